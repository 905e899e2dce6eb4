/**
 * The list rules My Products and My Gallery share (spec §2, §4, §5, §9): the
 * status filter, created from/to dates, sort, page and page size, kept in the
 * URL query so a reload or a shared link shows the same page.
 */

/** Rows per page (spec §9); the first is the default. */
export const PAGE_SIZES = [10, 20, 30, 50] as const;
export const DEFAULT_PAGE_SIZE = 10;

export type ItemStatus = 'processing' | 'ready' | 'error';
/** What a status checkbox selects: an item status, or (products) draft and live. */
export type StatusFilter = ItemStatus | 'draft' | 'live';
/** Filter checkboxes in spec order; error is shown as Needs attention. */
export const STATUS_FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'processing', label: 'Processing' },
  { value: 'ready', label: 'Ready' },
  { value: 'error', label: 'Needs attention' },
];
/** Products also have drafts (a photo without a build) and live ones (their page is published). */
export const PRODUCT_STATUS_FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'draft', label: 'Draft' },
  ...STATUS_FILTERS,
  { value: 'live', label: 'Live' },
];

export type SortKey = 'newest' | 'name';
export const SORTS: { value: SortKey; label: string }[] = [
  { value: 'newest', label: 'Newest' },
  { value: 'name', label: 'Name' },
];

export interface ListQuery {
  /** No status ticked means all (spec §5). */
  status: StatusFilter[];
  /** Calendar dates YYYY-MM-DD, inclusive; '' when unset. */
  from: string;
  to: string;
  sort: SortKey;
  page: number;
  pageSize: number;
  /** Search terms: a case-insensitive part of the name (the server's q); '' when unset. */
  q: string;
}

export const DEFAULT_QUERY: ListQuery = { status: [], from: '', to: '', sort: 'newest', page: 1, pageSize: DEFAULT_PAGE_SIZE, q: '' };

/** The server refuses longer search terms (GET /products q ≤ 200 characters). */
export const MAX_SEARCH_LENGTH = 200;

/** Search terms as the server takes them: trimmed, at most MAX_SEARCH_LENGTH characters. */
export function cleanSearch(s: string | null | undefined): string {
  return Array.from((s ?? '').trim()).slice(0, MAX_SEARCH_LENGTH).join('').trim();
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(s: string | null): string {
  if (!s || !DATE_RE.test(s)) return '';
  const d = new Date(`${s}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s ? '' : s;
}

/** Reads the list state from a URL query; anything unknown or malformed falls back to the default. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const wanted = new Set((params.get('status') ?? '').split(',').map((s) => s.trim()));
  const status = PRODUCT_STATUS_FILTERS.map((f) => f.value).filter((v) => wanted.has(v));
  const sort: SortKey = params.get('sort') === 'name' ? 'name' : 'newest';
  const size = Number(params.get('pageSize'));
  const pageSize = (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE;
  const p = Number(params.get('page'));
  const page = Number.isInteger(p) && p >= 1 ? p : 1;
  return { status, from: validDate(params.get('from')), to: validDate(params.get('to')), sort, page, pageSize, q: cleanSearch(params.get('q')) };
}

/** Writes the list state to a URL query, leaving defaults out so plain links stay plain. */
export function toSearchParams(q: ListQuery): URLSearchParams {
  const out = new URLSearchParams();
  if (q.status.length) out.set('status', q.status.join(','));
  if (q.from) out.set('from', q.from);
  if (q.to) out.set('to', q.to);
  if (q.q) out.set('q', q.q);
  if (q.sort !== 'newest') out.set('sort', q.sort);
  if (q.page !== 1) out.set('page', String(q.page));
  if (q.pageSize !== DEFAULT_PAGE_SIZE) out.set('pageSize', String(q.pageSize));
  return out;
}

/** The browser's IANA time zone, so "created on 31 Jan" means the merchant's 31 Jan. */
export function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The query parameters the list endpoints take (GET /api/products, GET /api/galleries).
 * Dates are calendar days in `tz` (sent only with a date filter; the server defaults to UTC).
 */
export function toApiParams(q: ListQuery, tz: string | undefined = browserTimeZone()): Record<string, string | number | undefined> {
  const dated = Boolean(q.from || q.to);
  return {
    status: q.status.length ? q.status.join(',') : undefined,
    from: q.from || undefined,
    to: q.to || undefined,
    tz: dated ? tz : undefined,
    q: q.q || undefined,
    sort: q.sort,
    page: q.page,
    pageSize: q.pageSize,
  };
}

/**
 * Applies a change. A new sort, page size or filter starts again at page 1
 * (spec §4); only an explicit page change keeps the page.
 */
export function updateQuery(q: ListQuery, change: Partial<ListQuery>): ListQuery {
  const next = { ...q, ...change };
  if (!('page' in change)) next.page = 1;
  return next;
}

export function hasFilters(q: ListQuery): boolean {
  return q.status.length > 0 || q.from !== '' || q.to !== '' || q.q !== '';
}

/** Clears status, dates and search terms (Clear all filters / Reset filters); sort and page size stay. */
export function clearFilters(q: ListQuery): ListQuery {
  return { ...q, status: [], from: '', to: '', q: '', page: 1 };
}

/** Number of pages; an empty list still has one page so "Page 1 of 1" reads sensibly. */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize));
}

/** '{from}–{to} of {total}' or '0 items' (spec §2). */
export function rangeText(page: number, pageSize: number, total: number): string {
  if (total <= 0) return '0 items';
  const from = Math.min((page - 1) * pageSize + 1, total);
  const to = Math.min(page * pageSize, total);
  return `${from}–${to} of ${total}`;
}

/** One page of a server-paged list: {items, total, page, pageSize}. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** Reads a page defensively; a missing total is the item count. */
export function parsePage<T>(raw: unknown, item: (v: unknown) => T): Page<T> {
  const r = (raw ?? {}) as Record<string, unknown>;
  const items = Array.isArray(r.items) ? r.items.map(item) : [];
  return {
    items,
    total: typeof r.total === 'number' ? r.total : items.length,
    page: typeof r.page === 'number' ? r.page : 1,
    pageSize: typeof r.pageSize === 'number' ? r.pageSize : items.length,
  };
}
