import { brotliCompressSync, constants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { downsample, ENV_WIDTH, hdrBytes } from '../../scripts/env-maps.mjs';

/** The size of a flat RGBE file as env-maps.mjs writes it, and how many pixel bytes follow the header. */
function readHdr(buf: Uint8Array) {
  const text = new TextDecoder('latin1').decode(buf.subarray(0, 80));
  const m = /-Y (\d+) \+X (\d+)\n/.exec(text)!;
  const [height, width] = [Number(m[1]), Number(m[2])];
  const start = text.indexOf(m[0]) + m[0].length;
  return { width, height, pixels: buf.length - start };
}

describe('env-maps: the lighting maps of the Studio, Outdoor and Dramatic presets', () => {
  it('are 128×64 Radiance files of at most 24 KB in brotli (issue 54: the share page waits for its map)', () => {
    for (const name of ['studio', 'park', 'sunset']) {
      const hdr = hdrBytes(name);
      const { width, height, pixels } = readHdr(hdr);
      expect([width, height]).toEqual([ENV_WIDTH, ENV_WIDTH / 2]);
      expect(pixels).toBe(width * height * 4);
      const br = brotliCompressSync(hdr, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }).length;
      expect(br, name).toBeLessThanOrEqual(24_000);
    }
  });

  it('downsample keeps the light: the solid-angle weighted sum of every block is unchanged', () => {
    const [w, h, f] = [16, 8, 4];
    const data = new Float32Array(w * h * 4);
    for (let i = 0; i < w * h; i++) data.set([(i % 7) * 3.5, (i % 5) * 0.25, i === 37 ? 500 : 0.1, 1], i * 4);
    const weight = (y: number) => Math.cos(((y + 0.5) / h - 0.5) * Math.PI);
    const small = downsample({ width: w, height: h, data }, w / f);
    expect([small.width, small.height]).toEqual([4, 2]);
    let fine = 0;
    let coarse = 0;
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) fine += weight(y) * data[(y * w + x) * 4 + 2];
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) coarse += weight(y) * small.data[(Math.floor(y / f) * small.width + Math.floor(x / f)) * 4 + 2];
    expect(coarse).toBeCloseTo(fine, 3);
    expect(() => downsample({ width: w, height: h, data }, 5)).toThrow();
  });
});
