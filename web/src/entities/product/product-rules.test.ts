import { describe, expect, it } from 'vitest';
import { addTag, atProductLimit, firstTag, normalizeProductURL, parseProduct, parseProductDetail, screenshotFileName } from './product-rules';

describe('product rules', () => {
  it('first tag or a dash', () => {
    expect(firstTag(['oak', 'bed'])).toBe('oak');
    expect(firstTag([])).toBe('—');
  });

  it('adds tags trimmed, once, within limits', () => {
    expect(addTag(['oak'], '  walnut ')).toEqual({ tags: ['oak', 'walnut'] });
    expect(addTag(['oak'], 'OAK')).toEqual({ error: 'That tag is already there.' });
    expect(addTag([], '   ')).toEqual({ error: 'Type a tag first.' });
    expect(addTag([], 'x'.repeat(31))).toHaveProperty('error');
    expect(addTag(Array.from({ length: 20 }, (_, i) => `t${i}`), 'one more')).toHaveProperty('error');
  });

  it('product URLs: https added to a bare host, other schemes refused', () => {
    expect(normalizeProductURL('shop.example.com/item')).toEqual({ url: 'https://shop.example.com/item' });
    expect(normalizeProductURL('')).toEqual({ url: '' });
    expect(normalizeProductURL('javascript:alert(1)')).toHaveProperty('error');
    expect(normalizeProductURL('localhost')).toHaveProperty('error');
  });

  it('free plan limit: at 2 of 2 Add product goes to the plans', () => {
    expect(atProductLimit(2, 2)).toBe(true);
    expect(atProductLimit(2, 1)).toBe(false);
    expect(atProductLimit(null, 400)).toBe(false);
  });

  it('reads a product and its timeline defensively', () => {
    const p = parseProduct({ id: 'p1', name: 'Vase', status: 'failed', tags: ['a', 3] });
    expect(p).toMatchObject({ id: 'p1', name: 'Vase', status: 'error', tags: ['a'], thumbnailURL: null, description: '' });
    const d = parseProductDetail({ id: 'p1', modelUrl: '/m.glb', thumbnailUrl: '/t.png', productUrl: 'https://x.example/a', timeline: [{ kind: 'materials_mapped', label: 'Materials mapped', detail: '3 parts', at: '2026-01-01T00:00:00Z' }] });
    expect(d).toMatchObject({ modelURL: '/m.glb', thumbnailURL: '/t.png', productURL: 'https://x.example/a' });
    expect(d.timeline).toEqual([{ kind: 'materials_mapped', label: 'Materials mapped', detail: '3 parts', at: '2026-01-01T00:00:00Z', fidelity: null, views: 0 }]);
    const spin = parseProductDetail({ timeline: [{ kind: 'mesh_reconstruction', fidelity: 91, views: 24 }, { kind: 'mesh_reconstruction', fidelity: 40, views: -2 }, { kind: 'mesh_reconstruction', views: '8' }] });
    expect(spin.timeline.map((e) => e.views)).toEqual([24, 0, 0]);
  });

  it('names screenshots after the product', () => {
    expect(screenshotFileName('Blue Vase / 2')).toBe('blue-vase-2-screenshot.png');
    expect(screenshotFileName('***')).toBe('product-screenshot.png');
  });
});
