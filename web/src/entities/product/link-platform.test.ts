import { describe, expect, it } from 'vitest';
import vectorsFile from './link-platform-vectors.json';
import { detectPlatform, normalizeLinkUrl, PLATFORM_KEYS, type LinkPlatform } from './link-platform';

// The same vectors run in Go (internal/catalog/linkplatform_test.go).
const vectors = vectorsFile.vectors as { url: string; want: LinkPlatform | null; note?: string }[];

describe('detectPlatform (shared vectors)', () => {
  it.each(vectors.map((v) => [v.note ?? v.url, v] as const))('%s', (_name, v) => {
    expect(detectPlatform(v.url)).toEqual(v.want);
  });

  it('covers every platform at least three times', () => {
    for (const key of PLATFORM_KEYS) {
      expect(vectors.filter((v) => v.want?.key === key).length, key).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('normalizeLinkUrl', () => {
  it('prepends https:// only when there is no scheme', () => {
    expect(normalizeLinkUrl(' amazon.in/dp/1 ')).toBe('https://amazon.in/dp/1');
    expect(normalizeLinkUrl('http://etsy.com/x')).toBe('http://etsy.com/x');
    expect(normalizeLinkUrl('')).toBe('');
  });
});
