import { expect, test, type Locator } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, blueprintFromPhoto, signUpAndSignIn } from './helpers';

/**
 * Issue 29 items 18–20 where a person notices them, on the real stack: controls styled
 * when a screen is opened directly (reload), round material swatches, a currency chosen
 * from a list (new prices in the merchant's default from Settings) and shown the way people write it, icons drawn without a font, the
 * navigation column the page's full height, thumbnails in the list view and a live model in
 * the home page's hero.
 */

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b, 'element is laid out').not.toBeNull();
  return b!;
}

test('issue 29 polish: styled controls after a reload, swatches, currency list, SVG icons, list thumbnails, hero model', async ({ page }) => {
  test.setTimeout(240_000);
  const token = await signUpAndSignIn(page, 'polish');
  const api = new Api(page.request, token);
  const photo = productPhotoPNG(240, 300);
  const jobId = await blueprintFromPhoto(api, page.request, photo, 'tall-vase.png');
  const product = await api.call<{ id: string; catalogId: string }>('post', '/api/products', { name: 'Tall vase', blueprintId: jobId });
  await expect.poll(async () => (await api.call<{ status: string }>('get', `/api/products/${product.id}`)).status, { timeout: 90_000 }).toBe('ready');
  await api.call('patch', `/api/products/${product.id}/variants/v1`, { price: 899, currency: 'INR' });

  // The add-product dropzone, opened directly: its text is centred in a dashed box.
  await page.goto('/workspace/add-product');
  const drop = page.locator('.wizard__drop');
  const title = drop.getByText('Drop a photo here, or click to choose one');
  const [d, t] = [await box(drop), await box(title)];
  expect(Math.abs(t.x + t.width / 2 - (d.x + d.width / 2))).toBeLessThan(4);
  expect(await drop.evaluate((el) => getComputedStyle(el).borderStyle)).toBe('dashed');

  // The wizard's configurator after a reload: tabs are tabs (no button chrome), the material
  // swatches round dots, the fieldsets without the browser's groove border.
  await page.goto(`/workspace/add-product?step=configurator&product=${product.id}`);
  await page.reload();
  const tab = page.getByRole('tab', { name: 'Materials' });
  await expect(tab).toBeVisible({ timeout: 30_000 });
  expect(await tab.evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('none');
  expect(await tab.evaluate((el) => getComputedStyle(el).borderBottomColor)).not.toBe('rgba(0, 0, 0, 0)');
  const swatch = page.locator('.material-option .swatch').first();
  const s = await box(swatch);
  expect(s.width).toBeGreaterThanOrEqual(14);
  expect(Math.abs(s.width - s.height)).toBeLessThan(1);
  expect(await page.locator('.configurator fieldset').first().evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('none');
  // Publish sits on Save's row, not wrapped below it.
  const save = await box(page.locator('.configurator__footer').getByRole('button', { name: 'Save', exact: true }));
  const publish = await box(page.locator('.configurator__footer').getByRole('button', { name: 'Publish' }));
  expect(Math.abs(publish.y - save.y)).toBeLessThan(4);

  // Currency: a list with the merchant's currency, the price as shoppers will read it, USD on one line.
  await page.getByRole('tab', { name: 'Variants' }).click();
  const currency = page.getByRole('combobox', { name: 'Currency' }).first();
  await expect(currency).toHaveValue('INR');
  await expect(currency.locator('option')).toContainText(['INR', 'USD', 'EUR', 'GBP']);
  await expect(page.getByTestId('price-preview').first()).toHaveText('Shoppers see ₹899');
  await currency.selectOption('USD');
  const c = await box(currency);
  expect(c.height).toBeLessThan(48); // "USD" does not wrap onto a second line

  // The merchant's default currency (Settings → Store): a new price starts in it, while a
  // price already set keeps its own (v1 in USD; the browser's locale would also say USD).
  await api.call('patch', `/api/products/${product.id}/variants/v1`, { price: 899, currency: 'USD' });
  await page.goto('/workspace/settings');
  await page.getByLabel('Default currency').selectOption('INR');
  await page.getByRole('button', { name: 'Save store settings' }).click();
  await expect(page.getByText('Store settings saved')).toBeVisible();
  await page.goto(`/workspace/product/${product.id}?tab=configurator`);
  await page.getByRole('tab', { name: 'Variants' }).click();
  await page.getByRole('button', { name: '+ Add variant' }).click();
  const added = page.locator('[data-variant-id="v2"]');
  await expect(added.getByRole('combobox', { name: 'Currency' })).toHaveValue('INR');
  await added.getByLabel('Price').fill('899');
  await expect(added.getByTestId('price-preview')).toHaveText('Shoppers see ₹899');
  await expect(page.locator('[data-variant-id="v1"]').getByRole('combobox', { name: 'Currency' })).toHaveValue('USD');

  // Analytics: info icons are drawn (SVG), Snapshot tabs styled, filters not bare native boxes.
  await page.goto('/workspace/analytics');
  const info = page.locator('.analytics__kpi .analytics__info').first();
  await expect(info).toBeVisible();
  await expect(info.locator('svg')).toHaveCount(1);
  expect(await info.textContent()).toBe('');
  const sku = page.getByLabel('SKU');
  expect(await sku.evaluate((el) => parseFloat(getComputedStyle(el).borderTopLeftRadius))).toBeGreaterThan(0);
  await expect(sku.locator('option')).toHaveText(['All products']); // an unpublished product is no SKU shoppers see

  // The navigation column runs the page's full height on a long page.
  await page.setViewportSize({ width: 1366, height: 600 });
  await page.goto(`/workspace/product/${product.id}?tab=configurator`);
  await expect(page.getByRole('tab', { name: 'Materials' })).toBeVisible({ timeout: 30_000 });
  const column = await page.evaluate(() => {
    const shell = document.querySelector('.shell');
    if (!shell) return null;
    const before = getComputedStyle(shell, '::before');
    return { bg: before.backgroundColor, height: shell.getBoundingClientRect().height, page: document.documentElement.scrollHeight };
  });
  expect(column).not.toBeNull();
  expect(column!.page).toBeGreaterThan(600);
  expect(column!.height).toBeGreaterThanOrEqual(column!.page - 1);
  expect(column!.bg).not.toBe('rgba(0, 0, 0, 0)');

  // The catalog's list view shows the product's thumbnail.
  await page.goto(`/workspace/catalog/${product.catalogId}?view=list`);
  await expect(page.getByTestId('list-thumb').first()).toBeVisible();
  await expect.poll(() => page.getByTestId('list-thumb').first().evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

  // The home page's hero shows a live model beside the copy.
  await page.setViewportSize({ width: 1366, height: 850 });
  const sample = page.waitForResponse((r) => /\/demo\/[^/]+\/model\.glb$/.test(new URL(r.url()).pathname), { timeout: 60_000 });
  await page.goto('/');
  const hero = page.getByTestId('hero-model');
  await expect(hero.locator('model-viewer')).toBeAttached({ timeout: 30_000 });
  expect((await sample).status()).toBe(200); // the viewer fetched the bundled sample (software WebGL may render it slowly)
  const h = await box(hero);
  expect(h.x).toBeGreaterThan(1366 / 2 - 40);
});
