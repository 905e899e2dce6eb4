// A shopper opening a share link on a phone: Debian's Chromium with mobile
// emulation (390×844, touch, DPR 3), a Fast-4G-like network (9 Mbit/s down,
// 150 ms round trip) and software WebGL. Reports, per cold load (fresh
// context, empty cache): largest contentful paint, the time model-viewer fires
// `load` for the model, and the bytes transferred (as encoded on the wire).
// Prints one line per run and the median.
//
//   node ops/sharepage-load.mjs http://127.0.0.1:8080/v/SLUG [runs]
// (ops/sharebench.sh runs it against a throwaway stack.)
import { launchPhoneBrowser, loopbackURL, newPhonePage } from './sharepage-phone.mjs';

const url = process.argv[2];
const runs = Number(process.argv[3] ?? 3);
if (!loopbackURL(url)) {
  console.error('usage: node ops/sharepage-load.mjs http://127.0.0.1:PORT/v/SLUG [runs]  (loopback only)');
  process.exit(2);
}

const browser = await launchPhoneBrowser();

async function once() {
  const { context, page, cdp } = await newPhonePage(browser, 'sharepage-load');
  // Bytes on the wire (encoded, headers included), in all and per resource
  // type (document, script, stylesheet, image, fetch = the model, font …).
  let bytes = 0;
  const byType = {};
  const typeOf = new Map();
  cdp.on('Network.requestWillBeSent', (e) => typeOf.set(e.requestId, (e.type || 'other').toLowerCase()));
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
    const t = typeOf.get(e.requestId) || 'other';
    byType[t] = (byType[t] || 0) + e.encodedDataLength;
  });
  await page.addInitScript(() => {
    window.__lcp = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__lcp = Math.max(window.__lcp, e.startTime);
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    window.__defined = -1;
    customElements.whenDefined('model-viewer').then(() => (window.__defined = performance.now()));
    window.__modelLoad = new Promise((resolve) => {
      document.addEventListener(
        'load',
        (e) => {
          if (e.target && e.target.tagName === 'MODEL-VIEWER') resolve(performance.now());
        },
        true,
      );
    });
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  const modelLoad = await page.evaluate(() =>
    Promise.race([window.__modelLoad, new Promise((r) => setTimeout(() => r(-1), 60000))]),
  );
  // LCP is final once the page has been interacted with or settled; give
  // paints after the model's first frame a moment to be reported.
  await page.waitForTimeout(500);
  const lcp = await page.evaluate(() => window.__lcp);
  // When the poster's and the model's bytes were in: the network's share of
  // the wait, independent of how fast this machine's CPU renders.
  const arrived = await page.evaluate(() => {
    const end = (re) => Math.max(0, ...performance.getEntriesByType('resource').filter((e) => re.test(e.name)).map((e) => e.responseEnd));
    return { poster: end(/\/poster\.png/), model: end(/\/model\.glb/), script: end(/model-viewer-.*\.js/), defined: window.__defined };
  });
  await context.close();
  return { lcp, modelLoad, bytes, byType, posterIn: arrived.poster, modelIn: arrived.model, scriptIn: arrived.script, defined: arrived.defined };
}

const kb = (m) =>
  Object.entries(m)
    .sort((a, b) => b[1] - a[1])
    .map(([t, n]) => `${t} ${(n / 1024).toFixed(1)} KB`)
    .join(', ');

const results = [];
for (let i = 0; i < runs; i++) {
  const r = await once();
  results.push(r);
  console.log(
    `run ${i + 1}: LCP ${(r.lcp / 1000).toFixed(2)} s, model load ${(r.modelLoad / 1000).toFixed(2)} s, ` +
      `${(r.bytes / 1024).toFixed(0)} KB transferred; poster in at ${(r.posterIn / 1000).toFixed(2)} s, model bytes in at ${(r.modelIn / 1000).toFixed(2)} s`,
  );
  // Where the rest goes: the viewer script's bytes, its evaluation (the
  // element defined) and then parsing the model and compiling its shaders.
  console.log(`  viewer script in at ${(r.scriptIn / 1000).toFixed(2)} s, model-viewer defined at ${(r.defined / 1000).toFixed(2)} s`);
  console.log(`  bytes by type: ${kb(r.byType)}`);
}
await browser.close();
const median = (k) => results.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(
  `median of ${runs}: LCP ${(median('lcp') / 1000).toFixed(2)} s, model load ${(median('modelLoad') / 1000).toFixed(2)} s, ` +
    `${(median('bytes') / 1024).toFixed(0)} KB transferred; poster in at ${(median('posterIn') / 1000).toFixed(2)} s, ` +
    `model bytes in at ${(median('modelIn') / 1000).toFixed(2)} s`,
);
const types = [...new Set(results.flatMap((r) => Object.keys(r.byType)))];
console.log(`median bytes by type: ${kb(Object.fromEntries(types.map((t) => [t, results.map((r) => r.byType[t] || 0).sort((a, b) => a - b)[Math.floor(results.length / 2)]])))}`);
