// Writes brotli (.br) and gzip (.gz) siblings of the compressible files in
// dist/, after `vite build`. The Go server (web/precompressed.go) sends them
// by Accept-Encoding negotiation, so the shopper's phone downloads the
// model-viewer bundle at about a quarter of its size and the server spends no
// CPU compressing per request. Brotli runs at its maximum quality because this
// happens once per build. A variant that is not smaller than the original is
// not written (the server then sends the original).
// Usage: node scripts/precompress.mjs [dist]   (npm run build runs it)
import { readdirSync, readFileSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import { join, extname } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const dist = process.argv[2] ?? new URL('../dist/', import.meta.url).pathname;
// Images, models and fonts are already compressed; GLB is left as is (issue 18). Radiance .hdr
// lighting maps are not (the share page's neutral one: 131 KB raw, about 25 KB in brotli).
const compressible = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.wasm', '.txt', '.xml', '.map', '.hdr']);
const minBytes = 1024;

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

let raw = 0;
let br = 0;
let count = 0;
for (const file of [...walk(dist)]) {
  if (file.endsWith('.br') || file.endsWith('.gz')) {
    unlinkSync(file); // stale from an earlier run
    continue;
  }
  if (!compressible.has(extname(file))) continue;
  const buf = readFileSync(file);
  if (buf.length < minBytes) continue;
  const b = brotliCompressSync(buf, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  });
  const g = gzipSync(buf, { level: 9 });
  if (b.length < buf.length) writeFileSync(file + '.br', b);
  if (g.length < buf.length) writeFileSync(file + '.gz', g);
  raw += buf.length;
  br += Math.min(b.length, buf.length);
  count++;
}
console.log(`precompressed ${count} files: ${(raw / 1024).toFixed(0)} KB -> ${(br / 1024).toFixed(0)} KB brotli`);
