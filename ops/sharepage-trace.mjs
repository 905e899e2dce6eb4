// Where a phone's time goes between opening a share link and model-viewer's
// `load`: one cold load under the very emulation of ops/sharepage-load.mjs
// (390×844 DPR 3, 9 Mbit/s, 150 ms RTT, SwiftShader), recorded as a Chromium
// performance trace (devtools.timeline, v8, gpu categories). A diagnostic, not
// a benchmark: it prints
//   - the page's own marks (script in, element defined, load),
//   - the renderer main thread's self time by trace event up to `load`,
//   - its long tasks (≥ 50 ms) with what they mostly were,
//   - the synchronous WebGL calls that blocked the main thread (a WebGL call
//     that needs an answer, e.g. a program's link status, waits for the GPU
//     process, so shader compiles show up here),
//   - the GPU process's busy time by event.
// The raw trace can be opened in Chrome's Performance panel.
//
//   node ops/sharepage-trace.mjs http://127.0.0.1:8080/v/SLUG [trace.json]
// (ops/sharebench.sh runs it with TRACE=path against its throwaway stack.)
import { launchPhoneBrowser, loopbackURL, newPhonePage } from './sharepage-phone.mjs';
import { writeFileSync } from 'node:fs';

const url = process.argv[2];
const out = process.argv[3];
if (!loopbackURL(url)) {
  console.error('usage: node ops/sharepage-trace.mjs http://127.0.0.1:PORT/v/SLUG [trace.json]  (loopback only)');
  process.exit(2);
}

const browser = await launchPhoneBrowser();
// ops/sharepage-load.mjs reuses one browser for its runs, so from the second
// run on the GPU process is up and its program cache warm; WARM=1 traces such
// a second load (one untraced load first).
if (process.env.WARM) {
  const { context: c, page: p } = await newPhonePage(browser, 'sharepage-trace-warm');
  await p.addInitScript(() => document.addEventListener('load', (e) => e.target?.tagName === 'MODEL-VIEWER' && (window.__loaded = true), true));
  await p.goto(url);
  await p.waitForFunction(() => window.__loaded, null, { timeout: 60000 });
  await c.close();
}
const { page, cdp } = await newPhonePage(browser, 'sharepage-trace');
await page.addInitScript(() => {
  window.__marks = {};
  customElements.whenDefined('model-viewer').then(() => (window.__marks.defined = performance.now()));
  document.addEventListener(
    'load',
    (e) => {
      if (e.target && e.target.tagName === 'MODEL-VIEWER') window.__marks.load = performance.now();
    },
    true,
  );
  // Time every WebGL call on the main thread; only the ones that add up matter.
  window.__gl = {};
  // Canvas resizes (a new drawing buffer) and 2D copies wait on the GPU as well.
  for (const key of ['width', 'height']) {
    const d = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, key);
    Object.defineProperty(HTMLCanvasElement.prototype, key, {
      ...d,
      set(v) {
        const t = performance.now();
        d.set.call(this, v);
        const ms = performance.now() - t;
        const name = `canvas.${key}=${v}`;
        if (window.__marks.load === undefined && ms >= 30) (window.__slow ??= []).push({ name, at: t, ms, stack: new Error().stack.split('\n').slice(2, 6).map((l) => l.trim()).join(' < ') });
      },
    });
  }
  for (const proto of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype, CanvasRenderingContext2D.prototype, window.ImageBitmapRenderingContext?.prototype]) {
    if (!proto) continue;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || typeof d.value !== 'function' || name === 'constructor') continue;
      const fn = d.value;
      proto[name] = function (...args) {
        const t = performance.now();
        try {
          return fn.apply(this, args);
        } finally {
          if (window.__marks.load === undefined) {
            const s = (window.__gl[name] ??= { n: 0, ms: 0, max: 0, first: t });
            const ms = performance.now() - t;
            s.n++;
            s.ms += ms;
            s.max = Math.max(s.max, ms);
            // Which code waited: the caller's frames for the calls that blocked long.
            if (ms >= 30) (window.__slow ??= []).push({ name, at: t, ms, stack: new Error().stack.split('\n').slice(2, 6).map((l) => l.trim()).join(' < ') });
          }
        }
      };
    }
  }
});

const events = [];
cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
await cdp.send('Tracing.start', {
  transferMode: 'ReportEvents',
  traceConfig: {
    includedCategories: [
      'devtools.timeline',
      'disabled-by-default-devtools.timeline',
      'v8',
      'v8.execute',
      'disabled-by-default-v8.compile',
      'blink.user_timing',
      'loading',
      'gpu',
      'toplevel',
    ],
  },
});
await page.goto(url, { waitUntil: 'domcontentloaded' });
await page.waitForFunction(() => window.__marks.load !== undefined, null, { timeout: 60000, polling: 50 });
const marks = await page.evaluate(() => {
  const end = (re) => Math.max(0, ...performance.getEntriesByType('resource').filter((e) => re.test(e.name)).map((e) => e.responseEnd));
  return {
    ...window.__marks,
    posterIn: end(/\/poster\.png/),
    modelIn: end(/\/model\.glb/),
    scriptIn: end(/model-viewer-.*\.js/),
    timeOrigin: performance.timeOrigin,
    gl: window.__gl,
    slow: window.__slow ?? [],
  };
});
await cdp.send('Tracing.end');
await done;
await browser.close();
if (out) writeFileSync(out, JSON.stringify({ traceEvents: events }));

const s = (ms) => (ms / 1000).toFixed(2) + ' s';
console.log(
  `poster in ${s(marks.posterIn)}, model bytes in ${s(marks.modelIn)}, viewer script in ${s(marks.scriptIn)}, ` +
    `model-viewer defined ${s(marks.defined)}, load ${s(marks.load)}`,
);

// The renderer's main thread: the thread named CrRendererMain in the process
// that ran the page's navigation.
const threadName = new Map();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
const nav = events.find((e) => e.name === 'navigationStart' || e.name === 'markAsMainFrame');
const mains = [...threadName].filter(([, n]) => n === 'CrRendererMain').map(([k]) => k);
const busiest = (keys) =>
  keys
    .map((k) => [k, events.filter((e) => `${e.pid}:${e.tid}` === k && e.ph === 'X').reduce((a, e) => a + (e.dur || 0), 0)])
    .sort((a, b) => b[1] - a[1])[0]?.[0];
const main = busiest(mains);
const gpuMain = busiest([...threadName].filter(([, n]) => n === 'CrGpuMain').map(([k]) => k));
// Trace clock → page clock (ms since navigation start).
const navStart = events.find((e) => `${e.pid}:${e.tid}` === main && e.name === 'navigationStart') ?? nav;
const t0 = navStart ? navStart.ts : Math.min(...events.filter((e) => e.ts > 0).map((e) => e.ts));
const loadTs = t0 + marks.load * 1000;

function selfTimes(key) {
  const xs = events
    .filter((e) => `${e.pid}:${e.tid}` === key && e.ph === 'X' && e.ts >= t0 && e.ts <= loadTs)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  for (const e of xs) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    const label = labelOf(e);
    self.set(label, (self.get(label) || 0) + (e.dur || 0));
    if (parent) self.set(labelOf(parent), (self.get(labelOf(parent)) || 0) - Math.min(e.dur || 0, parent.ts + parent.dur - e.ts));
    stack.push(e);
  }
  return [...self].sort((a, b) => b[1] - a[1]);
}
function labelOf(e) {
  if (e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.compile' || e.name === 'v8.parseOnBackground') {
    const u = e.args?.data?.url || e.args?.data?.fileName || '';
    return u ? `${e.name} ${u.replace(/^.*\//, '')}` : e.name;
  }
  return e.name;
}

const ms = (us) => (us / 1000).toFixed(0).padStart(6) + ' ms';
console.log(`\nrenderer main thread, self time by event up to load (top 20):`);
for (const [name, us] of selfTimes(main).slice(0, 20)) console.log(`${ms(us)}  ${name}`);

console.log(`\nlong tasks on the main thread (≥ 50 ms), start → length, top child events:`);
const tasks = events
  .filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur >= 50000 && e.ts >= t0 && e.ts <= loadTs)
  .sort((a, b) => a.ts - b.ts);
for (const t of tasks) {
  const inner = new Map();
  for (const e of events) {
    if (`${e.pid}:${e.tid}` !== main || e.ph !== 'X' || e === t || e.ts < t.ts || e.ts + e.dur > t.ts + t.dur) continue;
    if (e.dur < 5000) continue;
    const l = labelOf(e);
    inner.set(l, Math.max(inner.get(l) || 0, e.dur));
  }
  const top = [...inner].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, d]) => `${n} ${(d / 1000).toFixed(0)}`).join(', ');
  console.log(`${s((t.ts - t0) / 1000)} → ${(t.dur / 1000).toFixed(0).padStart(5)} ms  ${top}`);
}

console.log(`\nWebGL calls on the main thread before load (total ≥ 5 ms):`);
for (const [name, v] of Object.entries(marks.gl).sort((a, b) => b[1].ms - a[1].ms)) {
  if (v.ms < 5) continue;
  console.log(`${v.ms.toFixed(0).padStart(6)} ms  ${name} ×${v.n} (longest ${v.max.toFixed(0)} ms, first at ${s(v.first)})`);
}

console.log(`\nWebGL calls that blocked the main thread ≥ 30 ms (at, length, caller):`);
for (const c of marks.slow) console.log(`${s(c.at)} ${c.ms.toFixed(0).padStart(5)} ms  ${c.name}  ${c.stack.replace(/https?:\/\/[^/]+\/assets\//g, '')}`);

if (gpuMain) {
  console.log(`\nGPU process main thread, self time by event up to load (top 12):`);
  for (const [name, us] of selfTimes(gpuMain).slice(0, 12)) console.log(`${ms(us)}  ${name}`);
}
