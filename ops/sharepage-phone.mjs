// The emulated phone that ops/sharepage-load.mjs measures on and that
// sharepage-trace.mjs and sharepage-ab.mjs diagnose with: one definition, so
// a diagnosis is always of the very load the benchmark times. Debian's
// Chromium with software WebGL (SwiftShader), 390×844 at DPR 3 with touch, a
// Fast-4G-like network (9 Mbit/s down, 3 up, 150 ms round trip), cache off.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

/** Share page URLs on loopback only: these scripts drive the local stack. */
export function loopbackURL(url) {
  return !!url && /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url);
}

export function launchPhoneBrowser(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', ...extraArgs],
  });
}

/**
 * A fresh context (empty cache, new shopper: the user agent ends in a random
 * tag so each load is a new viewer) with its page and CDP session, network
 * throttled. `deviceScaleFactor` is for diagnostics only; the benchmark uses 3.
 */
export async function newPhonePage(browser, tag, { deviceScaleFactor = 3 } = {}) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36 ' +
      tag +
      '-' +
      Math.random().toString(36).slice(2),
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (9 * 1000 * 1000) / 8,
    uploadThroughput: (3 * 1000 * 1000) / 8,
  });
  return { context, page, cdp };
}
