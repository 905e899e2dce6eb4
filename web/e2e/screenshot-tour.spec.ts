import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, screensDir, uniqueEmail } from './helpers';

/**
 * The screenshot tour (issue 29): every screen at a laptop (1366×850) and a phone (390×844)
 * viewport, saved under artifacts/ (ops/test.sh sets ARTIFACTS_DIR) as tour-<screen>-<width>.png
 * for a person to look at. No screen may show a broken image at either width, nor scroll
 * sideways at 390 px (document scrollWidth > innerWidth; asserted, naming the elements that
 * stick out); laptop overflow is listed in the report; the look is for the eye.
 */

const VIEWPORTS = [
  { width: 1366, height: 850 },
  { width: 390, height: 844 },
];
const PASSWORD = 'Sup3r-secret-pw';

async function brokenImages(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.images)
      .filter((img) => img.getBoundingClientRect().width > 0 && img.complete && img.naturalWidth === 0)
      .map((img) => img.currentSrc || img.src),
  );
}

/** The elements that stick out past the right edge, innermost first: what to fix. */
async function widest(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = window.innerWidth;
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      const r = el.getBoundingClientRect();
      if (r.right <= w + 1 || r.width === 0) continue;
      if (Array.from(el.children).some((c) => c.getBoundingClientRect().right > w + 1)) continue;
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      out.push(`${el.tagName.toLowerCase()}${cls} right=${Math.round(r.right)}`);
      if (out.length >= 4) break;
    }
    return out;
  });
}

/**
 * The screen has rendered: loaded, its main heading (or the share page's viewer) shown, every
 * eager image done, web fonts in, and two frames painted since. Each is a condition the page
 * reports; a screen without a heading, or an image that never finishes, fails the tour.
 */
async function settle(page: Page, name: string) {
  await page.waitForLoadState('load');
  await expect(page.locator('h1, model-viewer').first(), `${name} shows its heading`).toBeVisible({ timeout: 20_000 });
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.loading === 'lazy' || img.complete), undefined, { timeout: 30_000 });
  await page.evaluate(() => document.fonts.ready.then(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))));
}

test('screenshot tour: every screen at 1366×850 and 390×844, no broken image, nothing wider than a phone', async ({ page }) => {
  // About 60 page loads: a few minutes alone, far more on a busy shared test machine.
  test.setTimeout(1_200_000);
  const dir = join(screensDir, 'tour');
  mkdirSync(dir, { recursive: true });
  const email = uniqueEmail('tour');
  const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'Asha Rao' });
  const api = new Api(page.request, token);
  await api.call('post', '/api/subscription/plan', { plan: 'pro' });
  const photo = productPhotoPNG(320, 400);
  const jobId = await blueprintFromPhoto(api, page.request, photo, 'studio-vase.png');
  const product = await api.call<{ id: string; catalogId: string }>('post', '/api/products', { name: 'Studio vase', blueprintId: jobId });
  await expect.poll(async () => (await api.call<{ status: string }>('get', `/api/products/${product.id}`)).status, { timeout: 60_000 }).toBe('ready');
  await api.call('patch', `/api/products/${product.id}`, { description: 'Hand-glazed stoneware', tags: ['ceramic'] });
  const published = await api.call<{ shareURL: string }>('post', `/api/products/${product.id}/publish`, { requireEmail: false, allowDeepLinks: false });
  const up = await page.request.post('/api/uploads/content', {
    headers: { Authorization: `Bearer ${token}` },
    multipart: { file: { name: 'jug.png', mimeType: 'image/png', buffer: photo } },
  });
  const uploadId = ((await up.json()) as { data: { uploadId: string } }).data.uploadId;
  const draft = await api.call<{ id: string }>('post', '/api/products', { name: 'Draft jug', uploadId, generate: false });
  const gallery = await api.call<{ id: string }>('post', '/api/galleries', { name: 'Summer edit', productIds: [product.id] }).catch(() => null);

  const publicScreens: [string, string][] = [
    ['home', '/'],
    ['login', '/login'],
    ['signup', '/signup'],
    ['forgot-password', '/forgot-password'],
    ['api-docs', '/docs/api'],
    ['share-page', published.shareURL],
  ];
  const screens: [string, string][] = [
    ['dashboard', '/my-home'],
    ['products', '/workspace/products'],
    ['products-list', `/workspace/catalog/${product.catalogId}?view=list`],
    ['product-detail', `/workspace/product/${product.id}`],
    ['product-configurator', `/workspace/product/${product.id}?tab=configurator`],
    ['product-draft', `/workspace/product/${draft.id}`],
    ['add-product', '/workspace/add-product'],
    ['wizard-configurator', `/workspace/add-product?step=configurator&product=${product.id}`],
    ['wizard-preview', `/workspace/add-product?step=preview&product=${product.id}`],
    ['wizard-publish', `/workspace/add-product?step=publish&product=${product.id}`],
    ['catalogs', '/workspace/catalogs'],
    ['galleries', '/workspace/gallery'],
    ...(gallery ? ([['gallery-detail', `/workspace/gallery/${gallery.id}`]] as [string, string][]) : []),
    ['blueprints', '/workspace/blueprints'],
    // Create from a spin set: the capture guide and its diagram (issue 48 §5).
    ['spin-set', '/workspace/upload/spin'],
    // …and its video mode: the filming guide (one video per height, a full turn, lowest first).
    ['spin-video', '/workspace/upload/spin?mode=videos'],
    ['analytics', '/workspace/analytics'],
    ['subscription', '/workspace/subscription'],
    ['settings', '/workspace/settings'],
    ['profile', '/workspace/profile'],
    ['notifications', '/workspace/notifications'],
    // Teams (issue 51): members, invitations and the approval rule; publish requests.
    ['team', '/workspace/team'],
    ['approvals', '/workspace/approvals'],
  ];

  const problems: string[] = [];
  // Sideways overflow on a phone fails the tour (issue 29: api-docs and the gallery page
  // scrolled sideways at 390 px); on the laptop it is reported for a person to look at.
  const wide: string[] = [];
  const shoot = async (name: string, url: string) => {
    for (const vp of VIEWPORTS) {
      await page.setViewportSize(vp);
      await page.goto(url);
      await settle(page, `${name} @${vp.width}`);
      const broken = await brokenImages(page);
      if (broken.length) problems.push(`${name} @${vp.width}: broken images ${broken.join(', ')}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 1) {
        const culprits = await widest(page);
        const line = `${name} @${vp.width}: ${overflow}px wider than the screen (${culprits.join('; ')})`;
        if (vp.width <= 390) problems.push(line);
        else wide.push(line);
      }
      // The whole page, cut at 8,000 px so a person (and an image viewer) can still open it.
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.screenshot({
        path: join(dir, `tour-${name}-${vp.width}.png`),
        fullPage: true,
        clip: { x: 0, y: 0, width: vp.width, height: Math.min(height, 8000) },
      });
    }
  };

  for (const [name, url] of publicScreens.slice(0, 5)) await shoot(name, url);
  // Signed in through the form, like a merchant.
  await page.setViewportSize(VIEWPORTS[0]);
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  for (const [name, url] of screens) await shoot(name, url);
  // A new merchant's empty screens: one shared empty state (icon, one line, next action),
  // nothing clipped at either width (issue 29 item 18).
  const fresh = uniqueEmail('tour-empty');
  const freshAuth = await apiSignUp(page.request, { email: fresh, password: PASSWORD, name: 'Ravi Shah' });
  await new Api(page.request, freshAuth.token).call('post', '/api/subscription/plan', { plan: 'pro' });
  await page.evaluate(() => (localStorage.clear(), sessionStorage.clear())); // still on the workspace's origin
  await page.setViewportSize(VIEWPORTS[0]);
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(fresh);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  for (const [name, url] of [
    ['empty-products', '/workspace/products'],
    ['empty-catalogs', '/workspace/catalogs'],
    ['empty-galleries', '/workspace/gallery'],
    ['empty-dashboard', '/my-home'],
  ] as [string, string][]) {
    await shoot(name, url);
    await expect(page.locator('.empty-state').first()).toBeVisible();
  }
  await shoot(...publicScreens[5]);

  for (const w of wide) test.info().annotations.push({ type: 'overflow', description: w });
  if (wide.length) console.log(`screens wider than the viewport:\n  ${wide.join('\n  ')}`);
  expect(problems).toEqual([]);
});
