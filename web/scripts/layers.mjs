// One-way layers for web/src, checked by `npm run lint:layers` and by the
// Vitest suite (src/app/layers.test.ts), so `make test` fails on a new cycle.
//
//   lib, styles  →  components  →  entities  →  features  →  app
//   (public-viewer: the share page's own bundle, beside them, on lib only)
//
// A layer imports only from layers on its left and from itself; a feature
// never imports another feature: what two features share moves down into
// entities/<entity> (its API slice, rules and the components that show it).
// Tests may also import app (the composed store and route tree) and test/.
// Every relative import is checked: static, dynamic import() and vi.mock().
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ORDER = ['lib', 'styles', 'public-viewer', 'components', 'entities', 'features', 'app'];
const ALLOWED = {
  lib: ['lib'],
  styles: ['styles'],
  'public-viewer': ['public-viewer', 'lib', 'styles'],
  components: ['components', 'lib', 'styles', 'public-viewer'],
  entities: ['entities', 'components', 'lib', 'styles', 'public-viewer'],
  features: ['entities', 'components', 'lib', 'styles', 'public-viewer'],
  app: ORDER,
  test: ['test', 'app', 'features', 'entities', 'components', 'lib', 'styles', 'public-viewer'],
};
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** The layer (and, for features and entities, the slice) of a path relative to src. */
export function layerOf(rel) {
  const parts = rel.split(/[\\/]/);
  if (parts.length === 1) return { layer: 'app', slice: '' }; // main.tsx, vite-env.d.ts
  const layer = parts[0];
  return { layer, slice: layer === 'features' || layer === 'entities' ? parts[1] : '' };
}

/** Why importing `to` from `from` (paths relative to src) breaks the layers, or ''. */
export function violation(from, to, isTest) {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a.layer === b.layer) {
    if (a.layer === 'features' && a.slice !== b.slice) {
      return `feature "${a.slice}" imports feature "${b.slice}": move what they share into src/entities`;
    }
    return '';
  }
  const allowed = ALLOWED[a.layer];
  if (!allowed) return `unknown layer "${a.layer}" (add it to web/scripts/layers.mjs)`;
  if (allowed.includes(b.layer)) return '';
  if (isTest && ALLOWED.test.includes(b.layer)) return '';
  return `${a.layer} may not import ${b.layer} (layers: ${ORDER.join(' → ')})`;
}

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (/\.(tsx?|mjs|js)$/.test(name)) yield p;
  }
}

function resolveImport(file, spec) {
  const base = resolve(dirname(file), spec);
  for (const ext of ['', '.ts', '.tsx', '.d.ts', '/index.ts', '/index.tsx']) {
    if (existsSync(base + ext) && statSync(base + ext).isFile()) return base + ext;
  }
  return base;
}

/** web/src, found from this script's own place. */
export const webSrc = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Every import in src (default web/src) that breaks the layers: [{file, line, target, why}]. */
export function checkLayers(src = webSrc) {
  const out = [];
  for (const file of sources(src)) {
    const from = relative(src, file);
    const isTest = /\.test\.tsx?$/.test(file) || from.split(sep)[0] === 'test';
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(file, m[2]);
      const to = relative(src, target);
      if (to.startsWith('..')) continue; // outside src (e.g. vite config helpers)
      const why = violation(from, to, isTest);
      if (why) out.push({ file: from, line: text.slice(0, m.index).split('\n').length, target: to, why });
    }
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const found = checkLayers();
  for (const v of found) console.error(`src/${v.file}:${v.line}: imports src/${v.target}: ${v.why}`);
  if (found.length) process.exit(1);
  console.log('layers: every import follows lib → components → entities → features → app');
}
