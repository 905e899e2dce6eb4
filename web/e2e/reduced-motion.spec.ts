import { expect, test, type Page } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, uniqueEmail } from './helpers';

/*
 * A shopper or merchant whose system asks for reduced motion never gets a spinning model
 * (WCAG 2.2.2): not on the share page (the merchant's auto-spin yields), not in the app's
 * viewer (/demo), and the spin stops the moment the setting is turned on. Read from the real,
 * upgraded element in Chromium: its autoRotate property is what makes it turn. (The other
 * specs run with reduced motion, playwright.config.ts; this one asks for both.)
 */

type MV = HTMLElement & { autoRotate: unknown; loaded: unknown };

function spinning(page: Page) {
  return page.evaluate(() => {
    const mv = document.querySelector('model-viewer') as MV | null;
    if (!mv || !customElements.get('model-viewer')) return null;
    return mv.autoRotate === true;
  });
}

test('auto-spin follows prefers-reduced-motion on the share page and in the app viewer', async ({ browser, request }) => {
  test.setTimeout(180_000);
  const api = new Api(request);
  api.token = (await apiSignUp(request, { name: 'Motion Tester', email: uniqueEmail('motion'), password: 'Sup3r-secret-pw' })).token;
  await api.call('post', '/api/subscription/trial', {});
  const blueprintId = await blueprintFromPhoto(api, request, productPhotoPNG(200, 240));
  const pub = await api.call<{ shareURL: string }>('post', '/api/publications', { blueprintId });
  const baseURL = test.info().project.use.baseURL;

  await test.step('share page: spins by default, stops when the shopper turns reduced motion on', async () => {
    const ctx = await browser.newContext({ baseURL, reducedMotion: 'no-preference' });
    const page = await ctx.newPage();
    await page.goto(pub.shareURL);
    await expect.poll(() => spinning(page), { timeout: 60_000 }).toBe(true);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect.poll(() => spinning(page)).toBe(false);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await expect.poll(() => spinning(page)).toBe(true);
    await ctx.close();
  });

  await test.step('share page with reduced motion from the start: never turns', async () => {
    const ctx = await browser.newContext({ baseURL, reducedMotion: 'reduce' });
    const page = await ctx.newPage();
    await page.goto(pub.shareURL);
    await expect.poll(() => spinning(page), { timeout: 60_000 }).toBe(false);
    await expect(page.locator('model-viewer')).not.toHaveAttribute('auto-rotate');
    await ctx.close();
  });

  await test.step('the app viewer (/demo): the same', async () => {
    const ctx = await browser.newContext({ baseURL, reducedMotion: 'no-preference' });
    const page = await ctx.newPage();
    await page.goto('/demo');
    await expect.poll(() => spinning(page), { timeout: 60_000 }).toBe(true);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect.poll(() => spinning(page)).toBe(false);
    await ctx.close();
  });
});
