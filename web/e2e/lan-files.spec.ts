import { expect as baseExpect, test, type Page } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, uniqueEmail } from './helpers';

/*
 * Issue 29 items 10 and 19: the merchant app opened on another host than PUBLIC_BASE_URL (a LAN
 * address under `make run`; here 127.0.0.1 while the server's base URL names localhost) loads every
 * file it shows (product thumbnails, avatar, brand logo) from the host it was opened on. The
 * browser stands in for a phone on the Wi-Fi: it cannot reach the laptop's localhost, so any file
 * URL naming localhost fails (and is recorded) instead of quietly loading.
 */
test.setTimeout(240_000);
const expect = baseExpect.configure({ timeout: 30_000 });

/** Every <img> on the page has loaded (none broken), and there is at least one of those named. */
async function imagesLoaded(page: Page, selectors: string[]) {
  for (const s of selectors) await expect(page.locator(s).first()).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => Array.from(document.querySelectorAll('img')).filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src)))
    .toEqual([]);
}

test('the app opened on another host than PUBLIC_BASE_URL shows its thumbnails, avatar and logo', async ({ page, context, request }) => {
  const unreachable: string[] = [];
  await context.route(/^https?:\/\/localhost[:/]/, (route) => {
    unreachable.push(route.request().url());
    return route.abort('addressunreachable');
  });
  const email = uniqueEmail('lan-files');
  const password = 'Sup3r-secret-pw';
  const api = new Api(request, (await apiSignUp(request, { email, password, name: 'LAN Tester' })).token);
  await api.call('post', '/api/subscription/trial', {});
  const blueprintId = await blueprintFromPhoto(api, request, productPhotoPNG(320, 400));
  await api.call('post', '/api/products', { name: 'LAN vase', blueprintId });
  for (const path of ['/api/users/me/avatar', '/api/branding/logo']) {
    const res = await request.post(path, {
      headers: { Authorization: `Bearer ${api.token}` },
      multipart: { file: { name: 'me.png', mimeType: 'image/png', buffer: productPhotoPNG(96, 96) } },
    });
    expect(res.status(), path).toBe(200);
  }
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  expect(new URL(page.url()).hostname).toBe('127.0.0.1');

  await page.goto('/workspace/products');
  await expect(page.getByText('LAN vase')).toBeVisible();
  await imagesLoaded(page, ['img[src*="/blobs?"]', 'img.avatar']);
  await page.goto('/workspace/settings');
  await imagesLoaded(page, ['img[alt="Current brand logo"]']);
  expect(unreachable, 'no file URL names localhost').toEqual([]);
});
