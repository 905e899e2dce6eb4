// Sums the gzipped size of the JS chunks the browser loads for a route:
// the entry chunk and its static imports, plus the route's lazy page and its imports.
// Usage: node scripts/route-size.mjs [src/features/auth/login-page.tsx ...]  (after `vite build`)
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
const pages = process.argv.slice(2).length ? process.argv.slice(2) : ['src/features/auth/login-page.tsx'];

const seen = new Set();
function walk(key) {
  const entry = manifest[key];
  if (!entry) throw new Error(`not in manifest: ${key}`);
  if (seen.has(entry.file)) return;
  seen.add(entry.file);
  for (const imp of entry.imports ?? []) walk(imp);
}
walk('index.html');
for (const p of pages) walk(p);

let raw = 0;
let gz = 0;
for (const file of [...seen].sort()) {
  const buf = readFileSync(join(dist, file));
  const g = gzipSync(buf).length;
  raw += buf.length;
  gz += g;
  console.log(`${(g / 1024).toFixed(2).padStart(8)} KB gz  ${file}`);
}
console.log(`total: ${(raw / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzipped for ${pages.join(', ')}`);
