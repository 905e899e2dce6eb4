/**
 * Vite plugin: lighting environment maps from the npm package @pmndrs/assets (CC0 HDRIs),
 * turned into Radiance .hdr files that <model-viewer environment-image> can read.
 *
 * Why a conversion: the package ships its HDRIs as base64 OpenEXR modules, while model-viewer
 * only decodes RGBE (.hdr, picked by the file extension) or (gain-map) JPEGs. So
 * `import url from 'virtual:env-map/studio'` decodes the EXR with three.js' own EXRLoader at
 * build time and emits a hashed `studio-XXXX.hdr` asset (same origin: the public pages' CSP allows
 * 'self' only, and nothing is fetched from a CDN). The dev server serves the same bytes under
 * /@env-map/NAME.hdr.
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
function hdrBytes(name) {
  if (!cache.has(name)) cache.set(name, encodeRgbe(decodeExr(name)));
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
