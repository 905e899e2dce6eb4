import { describe, expect, it } from 'vitest';
import { environmentFor, LIGHTING_PRESETS } from './environments';

describe('environmentFor', () => {
  it('gives every lighting preset its own map: bundled .hdr files, Neutral built in', () => {
    const urls = LIGHTING_PRESETS.map(environmentFor);
    expect(new Set(urls).size).toBe(4);
    for (const u of urls.slice(0, 3)) expect(u).toMatch(/^\/.*\.hdr$/);
    expect(environmentFor('Neutral')).toBe('neutral');
    expect(environmentFor('<script>')).toBe('neutral');
  });
});
