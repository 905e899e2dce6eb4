/**
 * Vite plugin: lighting environment maps from the npm package @pmndrs/assets (CC0 HDRIs),
 * turned into small Radiance .hdr files that <model-viewer environment-image> can read.
 *
 * Why a conversion: the package ships its HDRIs as base64 OpenEXR modules, while model-viewer
 * only decodes RGBE (.hdr, picked by the file extension) or (gain-map) JPEGs. So
 * `import url from 'virtual:env-map/studio'` decodes the EXR with three.js' own EXRLoader at
 * build time and emits a hashed `studio-XXXX.hdr` asset (same origin: the public pages' CSP allows
 * 'self' only, and nothing is fetched from a CDN). The dev server serves the same bytes under
 * /@env-map/NAME.hdr.
 *
 * Why small (issue 54): the maps only light the model (the stage behind it is CSS), and
 * model-viewer draws nothing before its lighting map has arrived. The package's 512×256 maps are
 * 525 KB raw, 250-300 KB in brotli, more than the model; they made the share page's first frame
 * wait a second on a phone. Each map is area-averaged (weighted by solid angle) to 128×64 before it
 * is written, 33 KB raw, 20-23 KB in brotli. three.js' PMREM filters a map from cube faces of a
 * quarter of its width: 32² here. Every surface rougher than 0.21 is lit from its 16² and blurrier
 * levels only, which come out nearly the same from either size, so those surfaces look the same;
 * only a glossy one shows softer reflections (docs/publishing.md, "What a shopper downloads").
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FloatType } from 'three';
import { EXRLoader } from 'three/examples/jsm/loaders/EXRLoader.js';

const PREFIX = 'virtual:env-map/';
const require = createRequire(import.meta.url);
/** Only the package's own file names: the import id must not reach outside it. */
const NAME = /^[a-z]+$/;

/** Decodes the package's base64 EXR module into RGBA floats. */
function decodeExr(name) {
  const src = readFileSync(require.resolve(`@pmndrs/assets/hdri/${name}.exr.js`), 'utf8');
  const start = src.indexOf('base64,');
  if (start < 0) throw new Error(`@pmndrs/assets/hdri/${name}.exr.js is not a base64 module`);
  const buf = Buffer.from(src.slice(start + 7, src.lastIndexOf("'")), 'base64');
  const loader = new EXRLoader();
  loader.setDataType(FloatType);
  return loader.parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

/** The width of the maps written: 128×64 equirectangular (see the top of this file). */
export const ENV_WIDTH = 128;

/**
 * Area-averages an equirectangular RGBA float image down to `width` columns (a whole divisor of
 * its width; rows in proportion). Each output pixel is the mean of its block weighted by each
 * source row's solid angle (cos latitude), so the light the map holds stays the same.
 */
export function downsample({ width, height, data }, out) {
  const f = width / out;
  if (!Number.isInteger(f) || f < 1 || height % f !== 0) throw new Error(`cannot reduce ${width}×${height} to ${out} columns`);
  const h = height / f;
  const res = new Float32Array(out * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < out; x++) {
      let wsum = 0;
      const acc = [0, 0, 0, 0];
      for (let j = 0; j < f; j++) {
        const sy = y * f + j;
        const w = Math.cos(((sy + 0.5) / height - 0.5) * Math.PI);
        for (let i = 0; i < f; i++) {
          const o = (sy * width + x * f + i) * 4;
          for (let c = 0; c < 4; c++) acc[c] += w * data[o + c];
          wsum += w;
        }
      }
      for (let c = 0; c < 4; c++) res[(y * out + x) * 4 + c] = acc[c] / wsum;
    }
  }
  return { width: out, height: h, data: res };
}

/** Encodes RGBA floats as a flat (not run-length encoded) Radiance RGBE file. */
export function encodeRgbe({ width, height, data }) {
  const header = Buffer.from(`#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y ${height} +X ${width}\n`, 'ascii');
  const px = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const r = Math.max(0, data[i * 4]);
    const g = Math.max(0, data[i * 4 + 1]);
    const b = Math.max(0, data[i * 4 + 2]);
    const m = Math.max(r, g, b);
    if (m < 1e-32) continue;
    const e = Math.ceil(Math.log2(m) + 1e-9);
    const scale = 256 / 2 ** e;
    px[i * 4] = Math.min(255, Math.floor(r * scale));
    px[i * 4 + 1] = Math.min(255, Math.floor(g * scale));
    px[i * 4 + 2] = Math.min(255, Math.floor(b * scale));
    px[i * 4 + 3] = e + 128;
  }
  return Buffer.concat([header, px]);
}

const cache = new Map();
/** The .hdr file written for the package's map `name`. */
export function hdrBytes(name) {
  if (!cache.has(name)) cache.set(name, encodeRgbe(downsample(decodeExr(name), ENV_WIDTH)));
  return cache.get(name);
}

/** @returns {import('vite').Plugin} */
export function envMaps() {
  let serve = false;
  return {
    name: 'env-maps',
    configResolved(config) {
      serve = config.command === 'serve';
    },
    resolveId(id) {
      return id.startsWith(PREFIX) ? '\0' + id : null;
    },
    load(id) {
      if (!id.startsWith('\0' + PREFIX)) return null;
      const name = id.slice(PREFIX.length + 1);
      if (!NAME.test(name)) throw new Error(`unknown environment map ${name}`);
      if (serve) return `export default ${JSON.stringify(`/@env-map/${name}.hdr`)};`;
      const ref = this.emitFile({ type: 'asset', name: `${name}.hdr`, source: hdrBytes(name) });
      return `export default import.meta.ROLLUP_FILE_URL_${ref};`;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/@env-map\/([a-z]+)\.hdr$/.exec(req.url ?? '');
        if (!m) return next();
        try {
          const body = hdrBytes(m[1]);
          res.setHeader('Content-Type', 'image/vnd.radiance');
          res.end(body);
        } catch {
          res.statusCode = 404;
          res.end();
        }
      });
    },
  };
}
