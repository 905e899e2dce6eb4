import { describe, expect, it } from 'vitest';
import type { SearchItem } from './search-api';
import { matchNote, matchSearchItems, normalizeQuery } from './search-rules';

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
  it('keeps what the server found through a tag, a description or a catalog (issue 50 item 17)', () => {
    const found: SearchItem[] = [
      { id: '4', label: 'Red Mug', type: 'Product', path: '/workspace/product/4', matchedOn: 'tag “tableware”' },
      { id: '5', label: 'Summer', type: 'Gallery', path: '/workspace/gallery/5', matchedOn: 'description' },
      { id: '6', label: 'Plate', type: 'Product', path: '/workspace/product/6' },
    ];
    expect(matchSearchItems(found, 'table').map((i) => i.id)).toEqual(['4', '5']);
    expect(matchNote(found[0])).toBe('Matches its tag “tableware”');
    expect(matchNote(found[1])).toBe('Matches its description');
    expect(matchNote(found[2])).toBeNull();
  });
});
