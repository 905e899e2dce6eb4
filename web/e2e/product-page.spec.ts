import { expect as baseExpect, test, type Page } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, snap, uniqueEmail } from './helpers';

/*
 * A product's public page against the real api + worker. Set-up goes through the API (a blueprint
 * built from a drawn photo becomes a product with two variants, a hotspot and store links, then is
 * published with the email gate and deep links); a shopper in a fresh browser context then meets the
 * gate, sees the model with its hotspot and buy buttons, opens ?variant=v2, gets a different AR file
 * for it, and follows a buy button to the store (intercepted: nothing leaves the machine); finally
 * the merchant finds the lead. Every wait is on what the server or the viewer reports.
 */
test.setTimeout(300_000);
const expect = baseExpect.configure({ timeout: 30_000 });

interface PublishJSON {
  publicationId: string;
  slug: string;
  shareURL: string;
  embedCode: string;
  qrURL: string;
  version: number;
  requireEmail: boolean;
  allowDeepLinks: boolean;
  locked: boolean;
}

/** Waits until model-viewer reports the model loaded (software WebGL on a busy machine: generous). */
async function modelLoaded(page: Page) {
  await page.waitForFunction(() => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true, undefined, {
    timeout: 90_000,
  });
}

test('product page: email gate → model, hotspot, buy buttons → ?variant=v2 → its AR file → store redirect → lead', async ({ browser, request }, testInfo) => {
  const api = new Api(request);
  let productId = '';
  let pub!: PublishJSON;
  const shopperEmail = uniqueEmail('shopper');

  await test.step('a trial merchant builds a product with two variants, a hotspot and links, and publishes it', async () => {
    const signup = await apiSignUp(request, {
      name: 'Product Page Tester',
      email: uniqueEmail('product-page'),
      password: 'Sup3r-secret-pw',
    });
    api.token = signup.token;
    await api.call('post', '/api/subscription/trial', {});
    const blueprintId = await blueprintFromPhoto(api, request, productPhotoPNG(320, 400));
    const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Lounge <Chair>', blueprintId });
    productId = product.id;
    await api.call('patch', `/api/products/${productId}/variants/v1`, { sku: 'LC-ORIG', price: 99, currency: 'USD' });
    await api.call('post', `/api/products/${productId}/variants`, { name: 'Black', material: 'matte-black', sku: 'LC-BLK', price: 129, currency: 'USD' });
    await api.call('post', `/api/products/${productId}/hotspots`, { position: [0, 0.2, 0.1], normal: [0, 0, 1], title: 'Stitched seat', text: 'Double-stitched seams.' });
    await api.call('post', `/api/products/${productId}/links`, { url: 'amazon.com/dp/B0E2ETEST' });
    await api.call('post', `/api/products/${productId}/links`, { url: 'https://www.etsy.com/listing/424242/black-lounge-chair', variantId: 'v2' });
    pub = await api.call<PublishJSON>('post', `/api/products/${productId}/publish`, { requireEmail: true, allowDeepLinks: true });
    expect(pub.slug).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(pub.requireEmail).toBe(true);
    expect(pub.embedCode).toContain('width="800" height="600"');
  });

  // A shopper: a fresh context (no session, no storage). The stores are intercepted.
  const shopper = await browser.newContext();
  const storeHits: string[] = [];
  await shopper.route(/^https:\/\/(www\.)?(amazon\.com|etsy\.com)\//, (route) => {
    storeHits.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Store</title><h1>Store page</h1>' });
  });
  const page = await shopper.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  // The gate's token (?gt=) opens the gated page's model routes; without it they are refused.
  const gated = (file: string) => new RegExp(`^/v/${pub.slug}/ar/${file}\\?gt=\\d+\\.[A-Za-z0-9_-]{22}$`);
  await test.step('the email gate comes first; after a valid email the model, hotspot and buy buttons show', async () => {
    await page.goto(pub.shareURL);
    // Before the email: the gated page's model, AR file and poster are not served (issue 28, item 9).
    for (const file of ['model.glb', 'ar/v1.glb', 'poster.png']) {
      const res = await page.request.get(new URL(`/v/${pub.slug}/${file}`, page.url()).href);
      expect(res.status(), file).toBe(403);
    }
    await expect(page.getByRole('heading', { name: 'Enter your email to view this product in 3D' })).toBeVisible();
    await expect(page.locator('model-viewer')).toBeHidden();
    // Behind the card: the teaser, a picture of a few dozen pixels the server makes from the poster,
    // scaled up and blurred (issue 29 item 19), never a broken image and never the poster itself.
    const teaser = page.locator('#gate-teaser');
    await expect(teaser).toBeVisible();
    await expect(teaser).toHaveAttribute('src', new RegExp(`^/v/${pub.slug}/teaser\\.jpg\\?v=[0-9a-f]{12}$`));
    await expect.poll(() => teaser.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const look = await teaser.evaluate((img: HTMLImageElement) => {
      const card = document.getElementById('gate')!.getBoundingClientRect();
      const box = img.getBoundingClientRect();
      return {
        natural: Math.max(img.naturalWidth, img.naturalHeight),
        filter: getComputedStyle(img).filter,
        covers: box.left <= card.left && box.right >= card.right && box.top <= card.top && box.bottom >= card.bottom,
      };
    });
    expect(look.natural).toBeLessThanOrEqual(48);
    expect(look.filter).toMatch(/blur\(\d+px\)/);
    expect(look.covers, 'the teaser fills the stage behind the card').toBe(true);
    await snap(page, 'product-page-00-gate', testInfo);
    await page.locator('#gate-email').fill('not-an-email');
    await page.getByRole('button', { name: 'View in 3D' }).click();
    await expect(page.getByRole('alert')).toHaveText('Enter a valid email address, for example name@example.com.');
    await page.locator('#gate-email').fill(shopperEmail);
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'View in 3D' }).click();
    await modelLoaded(page);
    await expect(page.locator('[slot="hotspot-h1"]')).toContainText('Stitched seat');
    await expect(page.getByRole('heading', { name: 'Lounge <Chair>' })).toBeVisible();
    await expect(page.locator('#price')).toHaveText('$99');
    await expect(page.locator('#sku')).toHaveText('SKU: LC-ORIG');
    await expect(page.locator('a.p3d-buy')).toHaveCount(1);
    await expect(page.locator('a.p3d-buy')).toHaveText('Buy on Amazon');
    // The model shown is the current variant's own GLB (its materials baked in), the same file
    // Scene Viewer opens for AR, so every AR mode shows the variant the shopper picked.
    await expect(page.locator('model-viewer')).toHaveAttribute('src', gated('v1.glb'));
    await snap(page, 'product-page-01-model', testInfo);
  });

  await test.step('?variant=v2 opens variant 2: its price, SKU and own store link', async () => {
    await page.goto(`${pub.shareURL}?variant=v2`);
    await modelLoaded(page);
    await expect(page.locator('model-viewer')).toHaveAttribute('variant-name', 'v2');
    await expect(page.locator('model-viewer')).toHaveAttribute('src', gated('v2.glb'));
    await expect
      .poll(() => page.evaluate(() => (document.querySelector('model-viewer') as HTMLElement & { variantName: string | null }).variantName))
      .toBe('v2');
    await expect(page.locator('#price')).toHaveText('$129');
    await expect(page.locator('#sku')).toHaveText('SKU: LC-BLK');
    await expect(page.locator('a.p3d-buy')).toHaveText('Buy on Etsy');
    await expect(page.locator('.p3d-variant[aria-pressed="true"]')).toHaveText('Black');
    await snap(page, 'product-page-02-variant-2', testInfo);
  });

  await test.step("variant 2's AR file differs from variant 1's", async () => {
    const arHref = await page.locator('#ar-file').getAttribute('href');
    expect(arHref).toMatch(gated('v2.glb'));
    // The worker makes the AR files once the page is published (security review 3, H1); until
    // then they answer 503 "not ready yet" with Retry-After.
    const ready = async (url: string) => {
      let res = await page.request.get(url);
      await expect.poll(async () => (res = await page.request.get(url)).status(), { timeout: 60_000 }).toBe(200);
      return res;
    };
    const ar2 = await ready(new URL(arHref!, page.url()).href);
    const ar1 = await ready(new URL(arHref!.replace('/ar/v2.glb', '/ar/v1.glb'), page.url()).href);
    expect(ar2.headers()['content-type']).toBe('model/gltf-binary');
    const [b1, b2] = [await ar1.body(), await ar2.body()];
    expect(b2.subarray(0, 4).toString('latin1')).toBe('glTF');
    expect(b1.equals(b2)).toBe(false);
    expect(b2.toString('latin1')).toContain('"matte-black"');
  });

  await test.step('the buy button goes through our redirect to the stored store URL', async () => {
    const href = await page.locator('a.p3d-buy').getAttribute('href');
    const link = new URL(href!, page.url());
    expect(link.pathname).toBe(`/v/${pub.slug}/go/l2`);
    // The page's analytics script tags the link with this browser's viewer id, so the
    // server counts the click as this shopper's.
    expect(link.searchParams.get('vid')).toMatch(/^[0-9a-f]{32}$/);
    link.searchParams.set('url', 'https://evil.example/');
    const redirect = await page.request.get(link.href, { maxRedirects: 0 });
    expect(redirect.status()).toBe(302);
    expect(redirect.headers()['location']).toBe('https://www.etsy.com/listing/424242/black-lounge-chair');
    await page.locator('a.p3d-buy').click();
    await expect.poll(() => storeHits).toContain('https://www.etsy.com/listing/424242/black-lounge-chair');
    await expect(page.getByRole('heading', { name: 'Store page' })).toBeVisible();
  });

  await test.step("the lead appears in the merchant's list", async () => {
    const leads = await api.call<{ items: { email: string; variantId: string }[] }>('get', `/api/products/${productId}/leads`);
    expect(leads.items.map((l) => l.email)).toEqual([shopperEmail]);
    const csv = await request.get(`/api/products/${productId}/leads.csv`, { headers: { Authorization: `Bearer ${api.token}` } });
    expect(csv.status()).toBe(200);
    expect(await csv.text()).toContain(shopperEmail);
  });

  expect(pageErrors).toEqual([]);
  await shopper.close();
});
