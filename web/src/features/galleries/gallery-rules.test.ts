import { describe, expect, it } from 'vitest';
import { DEFAULT_TILE_COLOR, effectiveCover, galleryCounts, move, parseGallery, validateGalleryName } from './gallery-rules';

describe('gallery rules', () => {
  it('reorders by one place and ignores moves off the ends', () => {
    expect(move(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(move(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    const same = ['a', 'b'];
    expect(move(same, 0, -1)).toBe(same);
    expect(move(same, 1, 1)).toBe(same);
  });

  it('keeps a valid cover: the chosen one, else the first product, else none', () => {
    expect(effectiveCover(['a', 'b'], 'b')).toBe('b');
    expect(effectiveCover(['a', 'b'], 'gone')).toBe('a');
    expect(effectiveCover([], 'a')).toBeNull();
  });

  it('names are required and bounded', () => {
    expect(validateGalleryName('  ')).not.toBeNull();
    expect(validateGalleryName('x'.repeat(101))).not.toBeNull();
    expect(validateGalleryName('Living room')).toBeNull();
  });

  it('reads the cover thumbnail from the server', () => {
    expect(parseGallery({ id: 'g', name: 'n', coverUrl: '/blobs?x' }).coverURL).toBe('/blobs?x');
    expect(parseGallery({ id: 'g', name: 'n', status: 'weird' }).status).toBe('ready');
  });

  it('reads the gallery’s own tags, tile colours and counts (spec §3)', () => {
    const g = parseGallery({ id: 'g', name: 'n', tags: ['summer'], productCount: 3, assetCount: 2, thumbnailColor: '#0F172A', thumbnailOverlay: '#FFFFFF' });
    expect(g).toMatchObject({ tags: ['summer'], productCount: 3, assetCount: 2, thumbnailColor: '#0F172A', thumbnailOverlay: '#FFFFFF' });
    expect(galleryCounts(g)).toBe('3 products · 2 in 3D');
    expect(galleryCounts({ productCount: 1, assetCount: 0 })).toBe('1 product · 0 in 3D');
    const old = parseGallery({ id: 'g', name: 'n', thumbnailColor: 'red' });
    expect(old.thumbnailColor).toBe(DEFAULT_TILE_COLOR);
    expect(old.assetCount).toBe(0);
  });
});
