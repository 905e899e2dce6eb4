import { expect as baseExpect, test } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, blueprintFromPhoto, collectErrors, signUpAndSignIn, snap } from './helpers';

/*
 * Issue 50 against the real api + worker (one real build):
 *  - item 17: the top bar's search finds a product by a tag and by its catalog's name, as its
 *    hint promises, and says what matched;
 *  - item 6 (merchant walk 4, H5): with a live product page, "Switch to Free" warns that it goes
 *    offline; afterwards the products list and the product page say "Offline — needs Pro", a
 *    shopper gets the "temporarily unavailable" page, and the notification names the plan.
 */
test.setTimeout(600_000);
const expect = baseExpect.configure({ timeout: 30_000 });

test('search by tag and catalog; a downgrade says which pages go offline and why', async ({ page, request }, testInfo) => {
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'issue50');
  const api = new Api(page.request, token);
  await api.call('post', '/api/subscription/trial', {});
  const bp = await blueprintFromPhoto(api, page.request, productPhotoPNG());
  const catalog = await api.call<{ id: string }>('post', '/api/catalogs', { name: 'Kitchen Collection' });
  const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Red Mug', blueprintId: bp, catalogId: catalog.id });
  await api.call('patch', `/api/products/${product.id}`, { tags: ['tableware'], description: 'Stoneware, 300 ml' });
  const pub = await api.call<{ shareURL: string; slug: string }>('post', `/api/products/${product.id}/publish`, {});
  // Search items come from the worker's projection: wait until it has the product.
  await expect
    .poll(async () => (await api.call<{ items: { id: string }[] }>('get', '/api/search?q=red%20mug')).items.map((i) => i.id), { timeout: 60_000 })
    .toContain(product.id);

  await test.step('item 17: the top bar finds the product by a tag and by its catalog', async () => {
    await page.goto('/workspace/products');
    const box = page.getByRole('combobox', { name: 'Search products, galleries and blueprints' });
    await box.fill('tableware');
    const option = page.getByRole('option', { name: /Red Mug/ });
    await expect(option).toContainText('Matches its tag “tableware”');
    await snap(page, 'issue50-search-by-tag', testInfo);
    await box.fill('kitchen coll');
    await expect(page.getByRole('option', { name: /Red Mug/ })).toContainText('Matches its catalog “Kitchen Collection”');
    await box.press('Enter');
    await page.waitForURL(`**/workspace/product/${product.id}`);
    await expect(page.getByTestId('product-live')).toHaveText('Live');
  });

  await test.step('item 6: Switch to Free warns that the live page goes offline', async () => {
    await page.goto('/workspace/subscription');
    await page.getByRole('article', { name: 'Free', exact: true }).getByRole('button', { name: 'Switch to Free' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    await expect(dialog.getByTestId('free-switch-warning')).toHaveText(
      'Your 1 live product page will go offline now: the Free plan includes no public views, so shoppers will see “temporarily unavailable”. It stays published and comes back when you upgrade to Pro again.',
    );
    await snap(page, 'issue50-switch-free-warning', testInfo);
    await dialog.getByRole('button', { name: 'Switch to Free' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Free Plan', exact: true })).toBeVisible();
  });

  await test.step('item 6: the workspace shows the true state, the shopper the notice', async () => {
    await page.goto('/workspace/products');
    const card = page.getByTestId('product-card').filter({ hasText: 'Red Mug' });
    await expect(card.getByTestId('product-page-state')).toHaveText('Offline — needs Pro');
    await expect(card.getByText('Live', { exact: true })).toHaveCount(0);
    await snap(page, 'issue50-products-offline', testInfo);
    await card.click();
    await expect(page.getByTestId('product-live')).toHaveText('Offline — needs Pro');
    await expect(page.getByTestId('page-offline')).toContainText('the Free plan includes no public views');
    await snap(page, 'issue50-product-offline', testInfo);

    const shopper = await request.get(`/v/${pub.slug}`, { headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) shopper' } });
    expect(await shopper.text()).toContain('This 3D view is temporarily unavailable');
  });

  await test.step('item 6: the notification names the plan change, not views used up', async () => {
    await expect
      .poll(async () => (await api.call<{ items: { title: string }[] }>('get', '/api/notifications')).items.map((n) => n.title), { timeout: 60_000 })
      .toContain('Your public pages are offline');
    await page.goto('/workspace/notifications');
    await expect(page.getByText('Your public pages are offline')).toBeVisible();
    await expect(page.getByText(/You switched to the Free plan, which includes no public views/)).toBeVisible();
    await expect(page.getByText('Public views used up')).toHaveCount(0);
    await snap(page, 'issue50-notifications', testInfo);
  });
  expect(errors).toEqual([]);
});
