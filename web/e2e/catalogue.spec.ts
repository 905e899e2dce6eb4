import { expect as baseExpect, test, type APIRequestContext, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { productPhotoPNG } from './fixtures/product-photo';
import { apiSignUp, collectErrors, snap, uniqueEmail } from './helpers';

/*
 * The catalogue against the real api + worker: a merchant turns a blueprint into
 * a product, finds it in My Products with its thumbnail, filters, pages through
 * 12 products, edits one, takes a screenshot, moves it between catalogs, meets
 * the gallery Pro gate on Free and builds a gallery during the trial.
 * Set-up goes through the API; every wait is on what the server reports.
 */
// Two real builds (the first blueprint and the Rebuild step) on a shared, busy machine.
test.setTimeout(900_000);
// Generous waits: the first visit of each lazily loaded screen can be slow on a busy machine.
const expect = baseExpect.configure({ timeout: 30_000 });
// Date filters are calendar days in the browser's zone; the test compares them with the server's UTC times.
test.use({ timezoneId: 'UTC' });

const AUTH_KEY = 'photo3d.auth';

interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
}
interface ProductJSON {
  id: string;
  name: string;
  status: string;
  tags: string[];
  productUrl: string;
  description: string;
  catalogId: string;
  thumbnailUrl: string;
  createdAt: string;
}
interface CatalogJSON {
  id: string;
  name: string;
  isDefault: boolean;
  productCount: number;
}

class Api {
  constructor(
    private request: APIRequestContext,
    public token = '',
  ) {}
  private headers() {
    return { Authorization: `Bearer ${this.token}` };
  }
  async call<T>(method: 'get' | 'post' | 'patch' | 'delete', url: string, data?: unknown): Promise<T> {
    const res = await this.request[method](url, { headers: this.headers(), data: data as never });
    const body = (await res.json()) as Envelope<T>;
    expect(body.success, `${method.toUpperCase()} ${url}: ${JSON.stringify(body.error)}`).toBe(true);
    return body.data;
  }
  async upload(buffer: Buffer): Promise<string> {
    const res = await this.request.post('/api/uploads/content', {
      headers: this.headers(),
      multipart: { file: { name: 'vase.png', mimeType: 'image/png', buffer } },
    });
    const body = (await res.json()) as Envelope<{ url?: string; imageURL?: string; publicURL?: string }>;
    expect(body.success, JSON.stringify(body.error)).toBe(true);
    return (body.data.imageURL ?? body.data.url ?? body.data.publicURL)!;
  }
}

/** Waits until the image in `locator` has really decoded (a real thumbnail, not a broken link). */
async function imageLoaded(page: Page, selector: string) {
  await expect
    .poll(() => page.locator(selector).first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 20_000 })
    .toBe(true);
}

function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

test('blueprint → product → filters and paging → details → screenshot → catalogs → galleries', async ({ page, request }, testInfo) => {
  const errors = collectErrors(page);
  const api = new Api(request);
  let blueprintId = '';
  let first!: ProductJSON;

  await test.step('sign up through the API and build one blueprint from a drawn photo', async () => {
    const signup = await apiSignUp(request, { name: 'Catalogue Tester', email: uniqueEmail('catalogue'), password: 'Sup3r-secret-pw' });
    api.token = signup.token;
    const imageURL = await api.upload(productPhotoPNG(320, 400));
    const job = await api.call<{ id: string }>('post', '/api/jobs', { imageURL });
    blueprintId = job.id;
    await expect
      .poll(async () => (await api.call<{ status: string }>('get', `/api/jobs/${job.id}`)).status, { timeout: 150_000, intervals: [1000] })
      .toBe('completed');
    await page.goto('/login');
    await page.evaluate(([k, v]) => localStorage.setItem(k, v), [AUTH_KEY, JSON.stringify(signup)]);
  });

  await test.step('Add product picks the blueprint; the product appears in My Products with its thumbnail', async () => {
    await page.goto('/workspace/products');
    await expect(page.getByRole('heading', { name: 'My Products', level: 1 })).toBeVisible();
    await expect(page.getByText('Free plan limited to 2 products. Upgrade to Pro for 50 listings.')).toBeVisible();
    await page.getByRole('button', { name: 'Add product' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add product' });
    await dialog.getByRole('radio').first().check();
    await dialog.getByLabel('Product name').fill('Blue Vase');
    await dialog.getByRole('button', { name: 'Create product' }).click();
    await expect(page).toHaveURL(/\/workspace\/product\/[^/]+$/);
    await expect(page.getByRole('heading', { name: 'Blue Vase', level: 1 })).toBeVisible();
    const list = await api.call<{ items: ProductJSON[]; total: number }>('get', '/api/products');
    expect(list.total).toBe(1);
    first = list.items[0];
    expect(first.name).toBe('Blue Vase');

    await page.getByRole('link', { name: '← Back to products' }).click();
    const card = page.getByTestId('product-card');
    await expect(card).toHaveCount(1);
    await expect(card.getByText('Blue Vase')).toBeVisible();
    await expect(card.getByText('—', { exact: true })).toBeVisible(); // no tag yet
    await expect(card).toHaveAttribute('data-status', first.status);
    await imageLoaded(page, '[data-testid="product-card"] img');
    await snap(page, 'catalogue-01-my-products', testInfo);
  });

  await test.step('Free: galleries show the Pro gate; starting the trial opens them', async () => {
    await page.goto('/workspace/gallery');
    await expect(page.getByText('Galleries are a Pro feature')).toBeVisible();
    await expect(page.getByText('Pro allows up to 10 galleries and public sharing of collections')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Upgrade to Pro' })).toHaveAttribute('href', '/workspace/subscription');
    await snap(page, 'catalogue-02-gallery-pro-gate', testInfo);
    await page.getByRole('button', { name: 'Start free trial (7 days)' }).click();
    await expect(page.getByText('No galleries yet')).toBeVisible();
    await expect(page.getByTestId('range-text')).toHaveText('0 items');
    await expect(page.locator('#workspace-sidebar').getByRole('link', { name: 'Gallery' })).toBeVisible();
  });

  await test.step('12 products page at 10 per page; sort and rows per page return to page 1', async () => {
    for (let i = 1; i <= 11; i++) {
      await api.call('post', '/api/products', { name: `Item ${String(i).padStart(2, '0')}`, blueprintId });
    }
    await page.goto('/workspace/products');
    await expect(page.getByText('Free plan limited')).toHaveCount(0);
    await expect(page.getByTestId('product-card')).toHaveCount(10);
    await expect(page.getByTestId('range-text')).toHaveText('1–10 of 12');
    await expect(page.getByTestId('page-text')).toHaveText('Page 1 of 2');
    await expect(page.getByRole('button', { name: 'Prev' })).toBeDisabled();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page).toHaveURL(/[?&]page=2/);
    await expect(page.getByTestId('range-text')).toHaveText('11–12 of 12');
    await expect(page.getByTestId('product-card')).toHaveCount(2);
    await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
    // Newest first: the oldest two (Blue Vase, Item 01) are on page 2.
    await expect(page.getByTestId('product-card').last().getByText('Blue Vase')).toBeVisible();

    await page.getByLabel('Sort').selectOption('name');
    await expect(page).toHaveURL(/\?sort=name$/);
    await expect(page.getByTestId('page-text')).toHaveText('Page 1 of 2');
    await expect(page.getByTestId('product-card').first().getByText('Blue Vase')).toBeVisible();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Rows per page').selectOption('20');
    await expect(page).toHaveURL(/\?sort=name&pageSize=20$/);
    await expect(page.getByTestId('range-text')).toHaveText('1–12 of 12');
    await expect(page.getByTestId('product-card')).toHaveCount(12);
    await snap(page, 'catalogue-03-twelve-products', testInfo);
  });

  await test.step('filter by status and created date; the filters live in the URL', async () => {
    const created = first.createdAt.slice(0, 10); // the server's calendar day (UTC)
    await page.goto('/workspace/products');
    await page.getByRole('button', { name: 'Filters', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Filters' });
    // The boxes follow the URL, which updates a moment after the click.
    await panel.getByLabel('Needs attention').click();
    await expect(panel.getByLabel('Needs attention')).toBeChecked();
    await expect(page).toHaveURL(/status=error/);
    await expect(page.getByText('No products match your filters')).toBeVisible();
    await expect(page.getByText('Try adjusting your search terms or clear the status filter to see the full product catalog.')).toBeVisible();
    await expect(page.getByTestId('range-text')).toHaveText('0 items');
    await panel.getByLabel('Needs attention').click();
    await expect(panel.getByLabel('Needs attention')).not.toBeChecked();
    await panel.getByLabel('Ready').click();
    await expect(panel.getByLabel('Ready')).toBeChecked();
    await expect(page).toHaveURL(/status=ready/);
    await expect(page.getByTestId('range-text')).toHaveText('1–10 of 12');

    await panel.getByLabel('Created to').fill(dayBefore(created));
    await expect(page.getByText('No products match your filters')).toBeVisible();
    await page.reload(); // a reload keeps the filters
    await expect(page.getByText('No products match your filters')).toBeVisible();
    await page.getByRole('button', { name: 'Reset filters' }).click();
    await expect(page).toHaveURL(/\/workspace\/products$/);
    await expect(page.getByTestId('range-text')).toHaveText('1–10 of 12');

    await page.goto(`/workspace/products?from=${created}&to=${created}&status=ready`);
    await expect(page.getByTestId('range-text')).toHaveText('1–10 of 12');
    await page.getByRole('button', { name: /^Filters/ }).click();
    await expect(page.getByRole('dialog', { name: 'Filters' }).getByLabel('Created from')).toHaveValue(created);
    await page.getByRole('button', { name: 'Clear all filters' }).click();
    await expect(page).toHaveURL(/\/workspace\/products$/);

    // Search terms: a part of the name, case-insensitive, sent to the server and kept in the URL.
    await page.getByRole('searchbox', { name: 'Search products' }).fill('item 0');
    await page.getByRole('searchbox', { name: 'Search products' }).press('Enter');
    await expect(page).toHaveURL(/\?q=item\+0$/);
    await expect(page.getByTestId('range-text')).toHaveText('1–9 of 9');
    await expect(page.getByTestId('product-card').filter({ hasText: 'Blue Vase' })).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('searchbox', { name: 'Search products' })).toHaveValue('item 0');
    await expect(page.getByTestId('range-text')).toHaveText('1–9 of 9');
    await page.getByRole('searchbox', { name: 'Search products' }).fill('no such thing');
    await page.getByRole('searchbox', { name: 'Search products' }).press('Enter');
    await expect(page.getByText('No products match your filters')).toBeVisible();
    await page.getByRole('button', { name: 'Reset filters' }).click();
    await expect(page).toHaveURL(/\/workspace\/products$/);
    await expect(page.getByTestId('range-text')).toHaveText('1–10 of 12');
    await snap(page, 'catalogue-04-filters', testInfo);
  });

  await test.step('open the detail, edit details and tags', async () => {
    await page.goto('/workspace/products?sort=name');
    await page.getByTestId('product-card').filter({ hasText: 'Blue Vase' }).getByRole('button', { name: 'Manage Blue Vase' }).click();
    await expect(page).toHaveURL(new RegExp(`/workspace/product/${first.id}$`));
    await expect(page.getByTestId('product-status')).toHaveText('Ready');
    await expect(page.getByTestId('timeline')).toContainText('Model attached from blueprint');
    await expect(page.getByTestId('timeline')).toContainText('Mesh reconstruction complete');
    await page.getByLabel('Name', { exact: true }).fill('Blue Vase Deluxe');
    await page.getByLabel('Product URL').fill('shop.example.com/blue-vase');
    await page.getByLabel('Description').fill('Hand-glazed stoneware.');
    for (const tag of ['ceramic', 'blue']) {
      await page.getByLabel('New tag').fill(tag);
      await page.getByRole('button', { name: '+ Add Tag' }).click();
    }
    await page.getByRole('button', { name: 'Save Details' }).click();
    await expect
      .poll(async () => {
        const p = await api.call<ProductJSON>('get', `/api/products/${first.id}`);
        return { name: p.name, productUrl: p.productUrl, description: p.description, tags: p.tags };
      })
      .toEqual({ name: 'Blue Vase Deluxe', productUrl: 'https://shop.example.com/blue-vase', description: 'Hand-glazed stoneware.', tags: ['ceramic', 'blue'] });
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Blue Vase Deluxe', level: 1 })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Tags', exact: true })).toContainText('ceramic');
    await expect(page.getByTestId('timeline')).toContainText('Details edited');
  });

  await test.step('Screenshot downloads a PNG of the current view; presets and Embed work', async () => {
    await expect
      .poll(() => page.evaluate(() => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true), { timeout: 180_000 })
      .toBe(true);
    await page.getByRole('button', { name: 'Top-Down' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Screenshot' }).click()]);
    expect(download.suggestedFilename()).toBe('blue-vase-deluxe-screenshot.png');
    const png = readFileSync((await download.path())!);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(1000);
    // Embed never publishes on its own (issue 29 item 8): unpublished, it points to Publish.
    await page.getByRole('button', { name: 'Embed' }).click();
    await expect(page.getByTestId('embed-unpublished')).toBeVisible();
    expect((await api.call<{ publication: unknown }>('get', `/api/products/${first.id}`)).publication).toBeNull();
    // The product's own page, published with its options; Embed then shows its code.
    await api.call('post', `/api/products/${first.id}/publish`, { requireEmail: false, allowDeepLinks: false });
    await page.reload();
    await expect
      .poll(() => page.evaluate(() => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true), { timeout: 180_000 })
      .toBe(true);
    await page.getByRole('button', { name: 'Embed' }).click();
    await expect(page.getByLabel('Embed code')).toHaveValue(/<iframe src="[^"]+\/embed\/[^"]+"[^>]*width="800" height="600"/);
    await page.getByRole('tab', { name: 'AR Preview' }).click();
    await imageLoaded(page, 'img[alt="QR code that opens this product on your phone"]');
    await snap(page, 'catalogue-05-product-detail', testInfo);
  });

  await test.step('catalogs: create one, move the product there, delete it: the product falls back to the default', async () => {
    await page.goto('/workspace/catalogs');
    await expect(page.getByRole('heading', { name: 'All Catalogs' })).toBeVisible();
    await expect(page.getByTestId('catalog-totals')).toHaveText('1 catalog · 12 products');
    await expect(page.getByTestId('catalog-card').first().getByText('Default', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'New catalog' }).click();
    await page.getByLabel('Catalog name').fill('Summer Collection');
    await page.getByRole('button', { name: 'Create catalog' }).click();
    await expect(page.getByTestId('catalog-totals')).toHaveText('2 catalogs · 12 products');
    const catalogs = await api.call<{ items: CatalogJSON[] }>('get', '/api/catalogs');
    const summer = catalogs.items.find((c) => c.name === 'Summer Collection')!;
    const def = catalogs.items.find((c) => c.isDefault)!;

    await page.goto(`/workspace/product/${first.id}`);
    await page.getByLabel('Catalog', { exact: true }).selectOption(summer.id);
    await page.getByRole('button', { name: 'Save Details' }).click();
    await expect.poll(async () => (await api.call<ProductJSON>('get', `/api/products/${first.id}`)).catalogId).toBe(summer.id);

    await page.goto('/workspace/catalogs');
    await page.getByRole('link', { name: 'Summer Collection' }).click();
    await expect(page).toHaveURL(new RegExp(`/workspace/catalog/${summer.id}$`));
    await expect(page.getByTestId('product-card')).toHaveCount(1);
    await expect(page.getByTestId('product-card')).toContainText('Blue Vase Deluxe');
    await page.getByRole('button', { name: 'List' }).click();
    await expect(page.getByRole('list', { name: 'Products' })).toHaveClass(/list-rows/);
    await snap(page, 'catalogue-06-catalog', testInfo);
    await page.getByRole('link', { name: '← Back to Catalogs' }).click();
    await page.getByRole('button', { name: 'Delete Summer Collection' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByTestId('catalog-totals')).toHaveText('1 catalog · 12 products');
    await expect.poll(async () => (await api.call<ProductJSON>('get', `/api/products/${first.id}`)).catalogId).toBe(def.id);
  });

  await test.step('trial: create a gallery with a cover and open it', async () => {
    await page.locator('#workspace-sidebar').getByRole('link', { name: 'Gallery' }).click();
    await expect(page).toHaveURL(/\/workspace\/gallery$/);
    await page.getByRole('button', { name: 'Add gallery' }).click();
    await expect(page).toHaveURL(/\/workspace\/gallery\/create$/);
    await page.getByLabel('Gallery name').fill('Living Room');
    await page.getByLabel('Description', { exact: true }).fill('Pieces for a calm room.');
    await page.getByLabel('Tags', { exact: true }).fill('Ceramic');
    await page.getByRole('button', { name: '+ Add Tag' }).click();
    await expect(page.getByRole('list', { name: 'Gallery tags' })).toContainText('Ceramic');
    await page.getByRole('checkbox', { name: 'Item 01' }).check();
    await page.getByRole('checkbox', { name: 'Blue Vase Deluxe' }).check();
    await page.getByRole('radio', { name: 'Use Blue Vase Deluxe as cover' }).check();
    await page.getByRole('button', { name: 'Move Blue Vase Deluxe up' }).click();
    await page.getByRole('button', { name: 'Create gallery' }).click();
    await expect(page).toHaveURL(/\/workspace\/gallery\/(?!create)[^/]+$/);
    await expect(page.getByRole('heading', { name: 'Living Room', level: 1 })).toBeVisible();
    await imageLoaded(page, '[data-testid="gallery-cover"] img');
    const galleryId = new URL(page.url()).pathname.split('/').pop()!;
    const g = await api.call<{ coverProductId: string; productIds: string[] }>('get', `/api/galleries/${galleryId}`);
    expect(g.coverProductId).toBe(first.id);
    expect(g.productIds[0]).toBe(first.id);
    await expect(page.getByRole('list', { name: 'Products in this gallery' }).getByRole('listitem')).toHaveCount(2);
    await snap(page, 'catalogue-07-gallery', testInfo);

    await page.getByRole('link', { name: '← Back to galleries' }).click();
    const card = page.getByTestId('gallery-card');
    await expect(card).toHaveCount(1);
    await expect(card.getByText('Living Room')).toHaveCSS('text-transform', 'uppercase');
    await expect(card.getByText('Ceramic', { exact: true })).toBeVisible(); // the gallery's own tag, sent at creation (issue 50 item 16)
    await imageLoaded(page, '[data-testid="gallery-card"] img');
    await expect(page.getByTestId('range-text')).toHaveText('1–1 of 1');
    await page.getByRole('searchbox', { name: 'Search galleries' }).fill('kitchen');
    await page.getByRole('searchbox', { name: 'Search galleries' }).press('Enter');
    await expect(page.getByText('No galleries match your filters')).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search galleries' }).fill('living');
    await page.getByRole('searchbox', { name: 'Search galleries' }).press('Enter');
    await expect(page.getByTestId('range-text')).toHaveText('1–1 of 1');
    await card.getByRole('button', { name: 'Manage Living Room' }).click();
    await expect(page).toHaveURL(new RegExp(`/workspace/gallery/${galleryId}$`));
  });

  await test.step('Rebuild 3D asks first, starts a new build of the same product, which becomes ready again', async () => {
    await page.goto(`/workspace/product/${first.id}`);
    await expect(page.getByTestId('product-status')).toHaveText('Ready');
    await page.getByRole('button', { name: 'Rebuild 3D' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Rebuild 3D?' });
    await expect(confirm).toContainText('uses one AI credit');
    await confirm.getByRole('button', { name: 'Rebuild 3D' }).click();
    // The server answered 202 with a new build; the page follows the product until that build finishes.
    await expect.poll(async () => (await api.call<{ builds: unknown[] }>('get', `/api/products/${first.id}`)).builds.length).toBe(2);
    await expect(page.getByTestId('timeline')).toContainText('New build started');
    await expect
      .poll(async () => (await api.call<ProductJSON>('get', `/api/products/${first.id}`)).status, { timeout: 150_000, intervals: [1000] })
      .toBe('ready');
    await expect(page.getByTestId('product-status')).toHaveText('Ready', { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Rebuild 3D' })).toBeEnabled();
  });

  await test.step('an unknown product id shows the not-found state', async () => {
    await page.goto('/workspace/product/00000000-0000-0000-0000-000000000000');
    await expect(page.getByTestId('product-not-found')).toBeVisible();
  });

  // The not-found step asks for a product that does not exist; nothing else may fail.
  expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
});
