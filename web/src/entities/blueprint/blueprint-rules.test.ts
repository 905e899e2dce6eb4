import { describe, expect, it } from 'vitest';
import { glbFileName, parseBlueprints, signedURLExpired, slugify, validateBlueprintName } from './blueprint-rules';

describe('blueprint rules', () => {
  it('slugifies names for file names', () => {
    expect(slugify('Blue Vase (v2)!')).toBe('blue-vase-v2');
    expect(slugify('  Crème Brûlée Jar  ')).toBe('creme-brulee-jar');
    expect(slugify('Ünïcödé — 3D')).toBe('unicode-3d');
    expect(slugify('***')).toBe('blueprint');
    expect(slugify('a'.repeat(200)).length).toBe(80);
  });
  it('file name is the slug plus .glb', () => {
    expect(glbFileName('My Bottle')).toBe('my-bottle.glb');
    expect(glbFileName(null)).toBe('blueprint.glb');
  });
  it('parses an array or {items}, with real statuses', () => {
    const raw = [
      { id: 'a', name: 'A', jobId: 'j1', status: 'ready', thumbnailURL: '/t.png', createdAt: '2025-01-01T00:00:00Z' },
      { id: 'b', name: '', status: 'processing' },
      { id: 'c', name: 'C', status: 'failed' },
      { name: 'no id' },
    ];
    const list = parseBlueprints({ items: raw, total: 3 });
    expect(list.map((b) => [b.id, b.name, b.jobId, b.status])).toEqual([
      ['a', 'A', 'j1', 'ready'],
      ['b', 'Untitled blueprint', 'b', 'processing'],
      ['c', 'C', 'c', 'failed'],
    ]);
    expect(parseBlueprints(raw)).toHaveLength(3);
    expect(parseBlueprints('nope')).toEqual([]);
  });
  it('rename rule', () => {
    expect(validateBlueprintName('  ')).toBe('Enter a name.');
    expect(validateBlueprintName('x'.repeat(101))).toMatch(/100 characters/);
    expect(validateBlueprintName('Vase')).toBeNull();
  });
  it('reads the expiry of signed URLs', () => {
    const now = Date.UTC(2026, 0, 2, 10, 0, 0);
    expect(signedURLExpired(`/blobs?obj=a&expiry=${now / 1000 + 3600}`, now)).toBe(false);
    expect(signedURLExpired(`/blobs?obj=a&expiry=${now / 1000 - 1}`, now)).toBe(true);
    expect(signedURLExpired(`/blobs?obj=a&expiry=${now / 1000 + 30}`, now)).toBe(true); // too close to use
    expect(signedURLExpired('https://b.s3.amazonaws.com/k?X-Amz-Date=20260102T090000Z&X-Amz-Expires=3600', now)).toBe(true);
    expect(signedURLExpired('https://b.s3.amazonaws.com/k?X-Amz-Date=20260102T093000Z&X-Amz-Expires=3600', now)).toBe(false);
    expect(signedURLExpired('/models/a.glb', now)).toBe(false);
  });
});
