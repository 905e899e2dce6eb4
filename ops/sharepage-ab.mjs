// A/B of share page markup variants on the emulated phone of
// ops/sharepage-load.mjs (390×844 DPR 3, 9 Mbit/s, 150 ms RTT, SwiftShader,
// cache disabled, model-viewer's `load`). Each variant rewrites the page's
// HTML on its way to the browser (string replacements), and the variants run
// interleaved (A B C A B C …) so a busy machine hurts them alike. Besides the
// wall-clock `load` it reports the CPU time the GPU process and the page's
// renderer spent until `load`: on a shared machine CPU time moves much less
// than wall time, and SwiftShader's work (shader compiles, drawing) is CPU.
// A tool to decide what to change, not the benchmark (that is sharepage-load).
//
//   node ops/sharepage-ab.mjs URL RUNS 'base' 'eager:loading="eager" camera-controls=>camera-controls' …
// A variant is NAME or NAME:FROM=>TO[|FROM=>TO…] (replaced in the page's HTML, all occurrences);
// FROM written as ~REGEX is a regular expression (all matches).
// A variant named floor… shows the page with a one-triangle model (688 bytes, one PBR material,
// served by this script, no network) instead of its own, and without the model's preload: this
// very page, with model-viewer, its lighting and shadow, but a model that costs nothing to fetch,
// parse or draw (ops/sharebench.sh FLOOR=1 runs 'page' 'floor').
import { launchPhoneBrowser, loopbackURL, newPhonePage } from './sharepage-phone.mjs';
import { readFileSync, readdirSync } from 'node:fs';

const [url, runsArg, ...specs] = process.argv.slice(2);
if (!loopbackURL(url) || !specs.length) {
  console.error("usage: node ops/sharepage-ab.mjs http://127.0.0.1:PORT/v/SLUG RUNS 'name[:from=>to|from=>to]' …");
  process.exit(2);
}
const FLOOR_PATH = '/__ab/floor.glb';
const variants = specs.map((spec) => {
  const i = spec.indexOf(':');
  const name = i < 0 ? spec : spec.slice(0, i);
  const edits = i < 0 ? [] : spec.slice(i + 1).split('|').map((e) => e.split('=>'));
  // floor…: the model's src points at floorGLB, and its preload goes.
  if (name.startsWith('floor')) edits.unshift([`~ src="[^"]*model\\.glb[^"]*"`, ` src="${FLOOR_PATH}"`], ['~<link rel="preload" href="[^"]*model\\.glb[^"]*"[^>]*>', '']);
  return { name, edits, results: [] };
});

/** A binary glTF holding one triangle with one PBR material: the cheapest model model-viewer can show. */
function oneTriangleGLB() {
  const bin = Buffer.from(new Float32Array([0, 0, 0, 0.2, 0, 0, 0, 0.2, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1]).buffer);
  const gltf = {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, material: 0 }] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.2, 0.2, 1], metallicFactor: 0, roughnessFactor: 0.5 } }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 36 },
      { buffer: 0, byteOffset: 36, byteLength: 36 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [0.2, 0.2, 0] },
      { bufferView: 1, componentType: 5126, count: 3, type: 'VEC3' },
    ],
  };
  let json = Buffer.from(JSON.stringify(gltf));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0); // 'glTF'
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  const chunk = (body, type) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(body.length, 0);
    h.writeUInt32LE(type, 4);
    return Buffer.concat([h, body]);
  };
  return Buffer.concat([header, chunk(json, 0x4e4f534a), chunk(bin, 0x004e4942)]);
}
const floorGLB = oneTriangleGLB();

const tag = 'sharepage-ab-' + Math.random().toString(36).slice(2);
const browser = await launchPhoneBrowser([`--${tag}`]);

// CPU time (ms) of this browser's GPU process and of all its renderers.
function procs() {
  const all = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      all.push({ pid: +d, ppid: +f[1], cpu: ((+f[11] + +f[12]) * 1000) / 100, cmd });
    } catch {
      /* gone */
    }
  }
  const root = all.find((p) => p.cmd.includes(`--${tag}`) && !p.cmd.includes('--type='));
  const mine = new Set([root?.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!mine.has(p.pid) && mine.has(p.ppid)) (mine.add(p.pid), (grew = true));
  }
  const sum = (type) => all.filter((p) => mine.has(p.pid) && p.cmd.includes(`--type=${type}`)).reduce((a, p) => a + p.cpu, 0);
  return { gpu: sum('gpu-process'), renderer: sum('renderer') };
}

async function once(v) {
  // A variant named dpr2… renders at DPR 2: how much the pixel count weighs, not a change to ship.
  const { context, page } = await newPhonePage(browser, tag, { deviceScaleFactor: v.name.startsWith('dpr2') ? 2 : 3 });
  // A variant named capN… caps the devicePixelRatio model-viewer sees at N (before its script runs).
  const cap = /^cap([\d.]+)/.exec(v.name);
  if (cap) {
    await page.addInitScript((n) => {
      const real = window.devicePixelRatio;
      Object.defineProperty(window, 'devicePixelRatio', { get: () => Math.min(real, n), configurable: true });
    }, Number(cap[1]));
  }
  if (v.name.startsWith('floor')) {
    await page.route(`**${FLOOR_PATH}`, (route) => route.fulfill({ body: floorGLB, contentType: 'model/gltf-binary' }));
  }
  if (v.edits.length) {
    await page.route(url, async (route) => {
      const res = await route.fetch();
      let body = await res.text();
      for (const [from, to] of v.edits) {
        if (from.startsWith('~')) {
          const re = new RegExp(from.slice(1), 'g');
          if (!re.test(body)) throw new Error(`variant ${v.name}: /${from.slice(1)}/ matches nothing in the page`);
          body = body.replace(re, to);
          continue;
        }
        if (!body.includes(from)) throw new Error(`variant ${v.name}: "${from}" is not in the page`);
        body = body.split(from).join(to);
      }
      await route.fulfill({ response: res, body });
    });
  }
  await page.addInitScript(() => {
    window.__marks = {};
    customElements.whenDefined('model-viewer').then(() => (window.__marks.defined = performance.now()));
    document.addEventListener('environment-change', () => (window.__marks.env ??= performance.now()), true);
    window.__modelLoad = new Promise((resolve) => {
      document.addEventListener('load', (e) => e.target?.tagName === 'MODEL-VIEWER' && resolve(performance.now()), true);
    });
  });
  const before = procs();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  const load = await page.evaluate(() => Promise.race([window.__modelLoad, new Promise((r) => setTimeout(() => r(-1), 60000))]));
  const after = procs();
  const marks = await page.evaluate(() => window.__marks);
  // SHOT=DIR: a screenshot of the page at `load`, to compare variants by eye.
  if (process.env.SHOT) await page.screenshot({ timeout: 180000, path: `${process.env.SHOT}/${process.env.SHOT_TAG ?? ""}${v.name}-${Date.now() % 100000}.png` });
  await context.close();
  return { load, defined: marks.defined ?? -1, env: marks.env ?? -1, gpu: after.gpu - before.gpu, renderer: after.renderer - before.renderer };
}

const runs = Number(runsArg);
for (let i = 0; i < runs; i++) {
  for (const v of variants) {
    const r = await once(v);
    v.results.push(r);
    console.log(`${v.name.padEnd(14)} run ${i + 1}: defined ${(r.defined / 1000).toFixed(2)} s, environment ${(r.env / 1000).toFixed(2)} s, load ${(r.load / 1000).toFixed(2)} s, CPU gpu ${r.gpu.toFixed(0)} ms, renderer ${r.renderer.toFixed(0)} ms`);
  }
}
await browser.close();
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nmedians of ${runs}:`);
for (const v of variants) {
  console.log(
    `${v.name.padEnd(14)} defined ${(med(v.results.map((r) => r.defined)) / 1000).toFixed(2)} s, environment ${(med(v.results.map((r) => r.env)) / 1000).toFixed(2)} s, ` +
      `load ${(med(v.results.map((r) => r.load)) / 1000).toFixed(2)} s, CPU gpu ${med(v.results.map((r) => r.gpu)).toFixed(0)} ms, ` +
      `renderer ${med(v.results.map((r) => r.renderer)).toFixed(0)} ms`,
  );
}
