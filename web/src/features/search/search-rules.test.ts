import { describe, expect, it } from 'vitest';
import type { SearchItem } from './search-api';
import { matchSearchItems, normalizeQuery } from './search-rules';

const items: SearchItem[] = [
  { id: '1', label: 'Oak Bed Frame', type: 'Product', path: '/workspace/product/1' },
  { id: '2', label: 'Living Room', type: 'Gallery', path: '/workspace/gallery/2' },
  { id: '3', label: 'bedside lamp', type: 'Blueprint', path: '/workspace/preview/3' },
];

describe('search', () => {
  it('ignores a query that is empty after trimming', () => {
    expect(normalizeQuery('   ')).toBeNull();
    expect(normalizeQuery(' bed ')).toBe('bed');
  });
  it('matches case-insensitive substrings of the label', () => {
    expect(matchSearchItems(items, 'BED').map((i) => i.id)).toEqual(['1', '3']);
    expect(matchSearchItems(items, ' room ').map((i) => i.id)).toEqual(['2']);
    expect(matchSearchItems(items, 'sofa')).toEqual([]);
    expect(matchSearchItems(items, '  ')).toEqual([]);
  });
});
