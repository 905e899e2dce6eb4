import { describe, expect, it } from 'vitest';
import { clearFilters, DEFAULT_QUERY, hasFilters, pageCount, parseListQuery, parsePage, rangeText, toApiParams, toSearchParams, updateQuery } from './list-rules';

describe('range text', () => {
  it.each([
    [1, 10, 0, '0 items'],
    [1, 10, 1, '1–1 of 1'],
    [1, 10, 12, '1–10 of 12'],
    [2, 10, 12, '11–12 of 12'],
    [1, 20, 12, '1–12 of 12'],
    [3, 10, 30, '21–30 of 30'],
    [5, 50, 201, '201–201 of 201'],
  ])('page %i × %i of %i → %s', (page, size, total, text) => {
    expect(rangeText(page, size, total)).toBe(text);
  });
});

describe('page math', () => {
  it.each([
    [0, 10, 1],
    [1, 10, 1],
    [10, 10, 1],
    [11, 10, 2],
    [12, 10, 2],
    [50, 50, 1],
    [51, 50, 2],
  ])('%i items at %i per page → %i pages', (total, size, pages) => {
    expect(pageCount(total, size)).toBe(pages);
  });

  it('a sort, page-size or filter change goes back to page 1; a page change keeps its page', () => {
    const on3 = { ...DEFAULT_QUERY, page: 3 };
    expect(updateQuery(on3, { sort: 'name' }).page).toBe(1);
    expect(updateQuery(on3, { pageSize: 20 }).page).toBe(1);
    expect(updateQuery(on3, { status: ['ready'] }).page).toBe(1);
    expect(updateQuery(on3, { from: '2026-01-01' }).page).toBe(1);
    expect(updateQuery(on3, { page: 4 }).page).toBe(4);
  });
});

describe('filters ↔ URL query', () => {
  it('round-trips every field and leaves defaults out of the URL', () => {
    const q = { status: ['processing', 'error'] as const, from: '2026-03-01', to: '2026-03-31', sort: 'name' as const, page: 2, pageSize: 20, q: 'oak chair' };
    const params = toSearchParams({ ...q, status: [...q.status] });
    expect(params.toString()).toBe('status=processing%2Cerror&from=2026-03-01&to=2026-03-31&q=oak+chair&sort=name&page=2&pageSize=20');
    expect(parseListQuery(params)).toEqual({ ...q, status: ['processing', 'error'] });
    expect(toSearchParams(DEFAULT_QUERY).toString()).toBe('');
  });

  it('ignores hostile or malformed values', () => {
    const q = parseListQuery(new URLSearchParams('status=ready,deleted,<script>&from=2026-02-30&to=yesterday&sort=price&page=-2&pageSize=1000'));
    expect(q).toEqual({ ...DEFAULT_QUERY, status: ['ready'] });
    expect(parseListQuery(new URLSearchParams('page=2.5')).page).toBe(1);
    // Search terms are trimmed and cut to what the server accepts (200 characters), never refused.
    expect(parseListQuery(new URLSearchParams(`q=${encodeURIComponent('  oak  ')}`)).q).toBe('oak');
    expect(parseListQuery(new URLSearchParams(`q=${'é'.repeat(250)}`)).q).toHaveLength(200);
  });

  it('keeps status in spec order whatever the URL order', () => {
    expect(parseListQuery(new URLSearchParams('status=error,ready,processing')).status).toEqual(['processing', 'ready', 'error']);
  });

  it('sends the API only what is set; no status ticked means all', () => {
    expect(toApiParams(DEFAULT_QUERY, 'Asia/Kolkata')).toEqual({ status: undefined, from: undefined, to: undefined, tz: undefined, q: undefined, sort: 'newest', page: 1, pageSize: 10 });
    expect(toApiParams({ ...DEFAULT_QUERY, q: 'oak' })).toMatchObject({ q: 'oak', tz: undefined });
    expect(toApiParams({ ...DEFAULT_QUERY, status: ['ready', 'error'], from: '2026-01-02' }, 'Asia/Kolkata')).toMatchObject({ status: 'ready,error', from: '2026-01-02', tz: 'Asia/Kolkata' });
  });

  it('clear all filters keeps sort and page size', () => {
    const q = { status: ['ready' as const], from: '2026-01-01', to: '2026-01-31', sort: 'name' as const, page: 3, pageSize: 30, q: 'oak' };
    expect(hasFilters(q)).toBe(true);
    expect(hasFilters({ ...DEFAULT_QUERY, q: 'oak' })).toBe(true);
    const c = clearFilters(q);
    expect(c).toEqual({ status: [], from: '', to: '', q: '', sort: 'name', page: 1, pageSize: 30 });
    expect(hasFilters(c)).toBe(false);
  });
});

describe('parsePage', () => {
  it('reads the envelope payload and tolerates a missing total', () => {
    expect(parsePage({ items: [1, 2], total: 12, page: 2, pageSize: 10 }, Number)).toEqual({ items: [1, 2], total: 12, page: 2, pageSize: 10 });
    expect(parsePage({ items: [1] }, Number).total).toBe(1);
    expect(parsePage(null, Number)).toEqual({ items: [], total: 0, page: 1, pageSize: 0 });
  });
});
