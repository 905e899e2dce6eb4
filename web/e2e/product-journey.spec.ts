import { expect as baseExpect, test, type APIRequestContext } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { signUpAndSignIn, snap } from './helpers';

/*
 * Issue 13's journey against the real api + worker: a photo becomes a configured, published
 * product page. Photo → Remove background → toggles change the server's cutout → Generate 3D →
 * the build modal reaches Ready → materials → two variants with SKU/price → a hotspot placed by
 * clicking the model → Amazon and Etsy links with chips → preview checklist → publish with
 * email capture and deep links → a shopper in a fresh context: email gate, model with hotspot
 * and buy buttons, ?variant=v2, its AR file differs from v1's, the buy button redirects to the
 * store → the lead appears in the merchant's list. Every wait is on what the server reports.
 */
test.setTimeout(600_000);
const expect = baseExpect.configure({ timeout: 30_000 });

interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { message: string };
}
interface ProductJSON {
  id: string;
  status: string;
  modelUrl: string;
  variants: { id: string; name: string; material: string; sku: string; price: number | null }[];
  hotspots: { id: string; position: number[]; normal: number[]; title: string }[];
  links: { id: string; url: string; variantId: string; platform: { key: string } | null }[];
  presets: { cameraOrbit: string };
}

async function getProduct(request: APIRequestContext, token: string, id: string): Promise<ProductJSON> {
  const res = await request.get(`/api/products/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Envelope<ProductJSON>;
  if (!body.success) throw new Error(`GET product: ${JSON.stringify(body.error)}`);
  return body.data;
}

test('photo to a live product page with variants, hotspot, buy links, email capture and deep links', async ({ page, browser }, testInfo) => {
  const token = await signUpAndSignIn(page, 'journey');
  // Publishing a product page is a paid feature: the trial gives it (and part-type options).
  const trial = await page.request.post('/api/subscription/trial', { data: {}, headers: { Authorization: `Bearer ${token}` } });
  expect(trial.ok()).toBe(true);
  const product = (id: string) => getProduct(page.request, token, id);

  await test.step('init: name and photo, then Remove background', async () => {
    await page.goto('/workspace/add-product');
    const remove = page.getByRole('button', { name: 'Remove background' });
    await expect(remove).toBeDisabled();
    await page.getByLabel('Product name').fill('Journey vase');
    await expect(remove).toBeDisabled();
    await page.getByTestId('wizard-photo-input').setInputFiles({ name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(320, 400) });
    await expect(page.getByAltText('Photo vase.png')).toBeVisible();
    await expect(remove).toBeEnabled();
    await remove.click();
    await expect(page.getByText('Background removal in progress. You will confirm next.')).toBeVisible();
    await expect(page).toHaveURL(/step=verify/);
  });

  await test.step('verify: each toggle makes the server compute another cutout', async () => {
    const cutout = page.getByTestId('cutout');
    await expect(cutout).toHaveAttribute('data-clean-edges', 'true', { timeout: 60_000 });
    await expect(cutout).toHaveAttribute('data-keep-shadow', 'false');
    const first = await cutout.getAttribute('src');
    expect(first).toBeTruthy();
    await page.getByRole('checkbox', { name: 'Restore ground shadow' }).check();
    await expect(cutout).toHaveAttribute('data-keep-shadow', 'true', { timeout: 60_000 });
    const second = await cutout.getAttribute('src');
    expect(second).not.toBe(first);
    await page.getByRole('checkbox', { name: 'Clean edges' }).uncheck();
    await expect(cutout).toHaveAttribute('data-clean-edges', 'false', { timeout: 60_000 });
    const third = await cutout.getAttribute('src');
    expect(new Set([first, second, third]).size).toBe(3);
    // The cutout the page shows is a real decoded PNG from the server.
    await expect.poll(() => cutout.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.getByRole('checkbox', { name: 'Clean edges' }).check();
    await expect(cutout).toHaveAttribute('data-clean-edges', 'true', { timeout: 60_000 });
    await snap(page, 'journey-verify', testInfo);
  });

  let productId = '';
  await test.step('Generate 3D: the build modal reaches Ready', async () => {
    await page.getByRole('button', { name: 'Generate 3D' }).click();
    await expect(page).toHaveURL(/step=configurator&product=/);
    productId = new URL(page.url()).searchParams.get('product') ?? '';
    expect(productId).not.toBe('');
    const modal = page.getByRole('dialog', { name: 'Building your 3D' });
    await expect(modal).toBeVisible();
    await expect(modal.getByTestId('build-steps')).toHaveAttribute('data-state', 'ready', { timeout: 400_000 });
    expect((await product(productId)).status).toBe('ready');
    await snap(page, 'journey-ready', testInfo);
    await modal.getByRole('button', { name: 'Jump back in' }).click();
    await expect(modal).toBeHidden();
  });

  await test.step('materials and two variants with SKU and price', async () => {
    await page.getByRole('radio', { name: 'Matte black' }).click();
    await expect.poll(async () => (await product(productId)).variants[0].material).toBe('matte-black');
    await page.getByRole('tab', { name: 'Variants' }).click();
    await page.getByRole('button', { name: '+ Add variant' }).click();
    const v2 = page.locator('li[data-variant-id="v2"]');
    await expect(v2).toBeVisible();
    for (const [id, sku, price] of [
      ['v1', 'VASE-BLK', '49.99'],
      ['v2', 'VASE-WHT', '59'],
    ]) {
      const row = page.locator(`li[data-variant-id="${id}"]`);
      await row.getByLabel('SKU').fill(sku);
      await row.getByLabel('Price').fill(price);
      await row.getByRole('button', { name: 'Save variant' }).click();
    }
    await expect
      .poll(async () => (await product(productId)).variants.map((v) => [v.id, v.name, v.sku, v.price]))
      .toEqual([
        ['v1', 'Default', 'VASE-BLK', 49.99],
        ['v2', 'Variant 2', 'VASE-WHT', 59],
      ]);
    // Variant 2 is snow-white.
    await page.getByLabel('Variant', { exact: true }).selectOption('v2');
    await page.getByRole('tab', { name: 'Materials' }).click();
    await page.getByRole('radio', { name: 'Snow white' }).click();
    await expect.poll(async () => (await product(productId)).variants[1].material).toBe('snow-white');
  });

  await test.step('a hotspot placed by clicking the model', async () => {
    await page.getByRole('tab', { name: 'Hotspots' }).click();
    const viewer = page.locator('.configurator__viewer .model-viewer');
    await expect(viewer).toHaveAttribute('data-model-state', 'loaded', { timeout: 120_000 });
    const box = await viewer.boundingBox();
    if (!box) throw new Error('no viewer box');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(async () => (await product(productId)).hotspots.length).toBe(1);
    const h = (await product(productId)).hotspots[0];
    expect(h.title).toBe('Point 1');
    expect(h.position).toHaveLength(3);
    await expect(page.locator(`button[slot="hotspot-${h.id}"]`)).toHaveText('Point 1');
  });

  await test.step('Amazon and Etsy links with their chips', async () => {
    await page.getByRole('tab', { name: 'Links' }).click();
    await expect(page.getByText('No links added yet. Add your first purchase link below.')).toBeVisible();
    const input = page.getByRole('textbox', { name: 'Purchase link' });
    await input.fill('amazon.com/dp/B0JOURNEY');
    await expect(page.locator('.link-input .link-chip[data-platform="amazon"]')).toHaveText('Amazon');
    await page.getByRole('button', { name: 'Add link' }).click();
    await expect(page.locator('li[data-link-id] .link-chip[data-platform="amazon"]')).toBeVisible();
    await input.fill('https://www.etsy.com/listing/42/journey-vase');
    await expect(page.locator('.link-input .link-chip[data-platform="etsy"]')).toHaveText('Etsy');
    await page.getByRole('button', { name: 'Add link' }).click();
    await expect(page.locator('li[data-link-id] .link-chip[data-platform="etsy"]')).toBeVisible();
    const links = (await product(productId)).links;
    expect(links.map((l) => [l.url, l.platform?.key])).toEqual([
      ['https://amazon.com/dp/B0JOURNEY', 'amazon'],
      ['https://www.etsy.com/listing/42/journey-vase', 'etsy'],
    ]);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Saved.' })).toBeVisible();
    await snap(page, 'journey-configurator', testInfo);
  });

  await test.step('preview checklist, with the camera angle saved from the view', async () => {
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await expect(page).toHaveURL(/step=preview/);
    await expect(page.locator('.wizard__preview-viewer .model-viewer')).toHaveAttribute('data-model-state', 'loaded', { timeout: 120_000 });
    await page.getByRole('button', { name: 'Use this view as the default camera angle' }).click();
    await expect.poll(async () => (await product(productId)).presets.cameraOrbit).toMatch(/rad .*rad .*m$/);
    const list = page.getByTestId('checklist');
    for (const key of ['variants', 'hotspots', 'links', 'camera']) {
      await expect(list.locator(`[data-check="${key}"]`)).toHaveAttribute('data-ok', 'true', { timeout: 60_000 });
    }
    await snap(page, 'journey-preview', testInfo);
  });

  let shareURL = '';
  await test.step('publish with email capture and deep links', async () => {
    await page.getByRole('button', { name: 'Publish' }).click();
    // The options come first; the page goes live with them (issue 29 item 6).
    await page.getByRole('checkbox', { name: 'Require email capture' }).check();
    await page.getByRole('checkbox', { name: 'Allow deep links to variants' }).check();
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect(page.getByRole('heading', { name: 'Live! Your 3D is ready to share.' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'Require email capture' })).toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'Allow deep links to variants' })).toBeChecked();
    shareURL = await page.getByTestId('share-url').inputValue();
    expect(shareURL).toMatch(/\/v\/[\w-]+$/);
    await page.getByRole('button', { name: 'Show embed code' }).click();
    await expect(page.getByLabel('Embed code')).toHaveValue(/width="800" height="600"/);
    await snap(page, 'journey-publish', testInfo);
  });

  const shopperEmail = `shopper.${Date.now()}@example.com`;
  await test.step('a shopper: email gate, model with hotspot and buy buttons, ?variant=v2, AR file, buy redirect', async () => {
    const shopper = await browser.newContext({ baseURL: new URL(page.url()).origin });
    const s = await shopper.newPage();
    // The store is outside this machine: the test answers for it.
    await shopper.route(/^https:\/\/amazon\.com\//, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Amazon store page</h1>' }));
    // The browser reaches the app on the test's host; the share link names the configured public host.
    const path = new URL(shareURL).pathname;
    await s.goto(path);
    await expect(s.locator('#gate')).toBeVisible();
    await s.locator('#gate-email').fill(shopperEmail);
    await s.locator('#gate-consent').check();
    await s.getByRole('button', { name: 'View in 3D' }).click();
    await expect(s.locator('#gate')).toBeHidden();
    const viewer = s.locator('model-viewer#viewer');
    await expect(viewer).toHaveAttribute('src', /.+/);
    await expect(s.locator('.p3d-hotspot')).toHaveCount(1);
    await expect(s.locator('.p3d-hotspot-title')).toHaveText('Point 1');
    await expect(s.locator('a.p3d-buy[data-platform="amazon"]')).toHaveText('Buy on Amazon');
    await expect(s.locator('a.p3d-buy[data-platform="etsy"]')).toHaveText('Buy on Etsy');
    const arV1 = await s.locator('#ar-file').getAttribute('href');
    expect(arV1).toMatch(/v1\.glb/);

    await s.goto(`${path}?variant=v2`);
    if (await s.locator('#gate').isVisible()) {
      await s.locator('#gate-email').fill(shopperEmail);
      await s.locator('#gate-consent').check();
      await s.getByRole('button', { name: 'View in 3D' }).click();
    }
    await expect(s.locator('model-viewer#viewer')).toHaveAttribute('variant-name', 'v2');
    await expect(s.locator('#sku-value')).toHaveText('VASE-WHT');
    const arV2 = await s.locator('#ar-file').getAttribute('href');
    expect(arV2).toMatch(/v2\.glb/);
    const [b1, b2] = await Promise.all([s.request.get(arV1!), s.request.get(arV2!)]);
    expect(b1.ok() && b2.ok()).toBe(true);
    const [g1, g2] = [await b1.body(), await b2.body()];
    expect(g1.subarray(0, 4).toString('ascii')).toBe('glTF');
    expect(g2.subarray(0, 4).toString('ascii')).toBe('glTF');
    expect(g1.equals(g2)).toBe(false);
    await snap(s, 'journey-shopper', testInfo);

    await s.locator('a.p3d-buy[data-platform="amazon"]').click();
    await s.waitForURL('https://amazon.com/dp/B0JOURNEY');
    await expect(s.getByRole('heading', { name: 'Amazon store page' })).toBeVisible();
    await shopper.close();
  });

  await test.step("the lead appears in the merchant's list", async () => {
    await page.goto(`/workspace/product/${productId}`);
    await expect(page.getByTestId('leads')).toContainText(shopperEmail);
    await snap(page, 'journey-leads', testInfo);
  });
});
