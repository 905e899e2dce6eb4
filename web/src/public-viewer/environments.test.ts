import { describe, expect, it } from 'vitest';
import { environmentFor, LIGHTING_PRESETS } from './environments';
import { NEUTRAL_ENVIRONMENT } from './neutral-env';

describe('environmentFor', () => {
  it('gives every lighting preset its own map: bundled .hdr files, Neutral pre-rendered', () => {
    const urls = LIGHTING_PRESETS.map(environmentFor);
    expect(new Set(urls).size).toBe(4);
    // model-viewer picks its HDR decoder by the .hdr extension.
    for (const u of urls) expect(u).toMatch(/^\/.*\.hdr$/);
    expect(environmentFor('Neutral')).toBe(NEUTRAL_ENVIRONMENT);
    expect(environmentFor('<script>')).toBe(NEUTRAL_ENVIRONMENT);
  });
});
