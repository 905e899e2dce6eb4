import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, snap, uniqueEmail } from './helpers';

/**
 * Issue 29: flows a merchant starts in the browser end well (logout, security, downloads,
 * drafts, branding, lists). Each test drives the real app against the real api + worker.
 */

const PASSWORD = 'Sup3r-secret-pw';

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
}

/** The token the app stored for this tab. */
async function pageToken(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const raw = sessionStorage.getItem('photo3d.auth') ?? localStorage.getItem('photo3d.auth');
    return raw ? (JSON.parse(raw) as { token: string }).token : null;
  });
}

async function meStatus(page: Page, token: string) {
  return (await page.request.get('/api/users/me', { headers: { Authorization: `Bearer ${token}` } })).status();
}

test.describe('issue 29 item 1: sessions', () => {
  test('Logout ends the session on the server: the copied token stops working', async ({ page }) => {
    const email = uniqueEmail('logout');
    await apiSignUp(page.request, { email, password: PASSWORD, name: 'Logout Tester' });
    await signIn(page, email);
    const token = await pageToken(page);
    expect(token).toBeTruthy();
    expect(await meStatus(page, token!)).toBe(200);

    await page.getByRole('button', { name: 'Account menu' }).click();
    const logout = page.waitForRequest((r) => r.url().endsWith('/api/auth/logout') && r.method() === 'POST');
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await logout;
    await page.waitForURL('**/login');
    await expect.poll(() => meStatus(page, token!)).toBe(401);
  });

  test('Profile → Security: sign out everywhere and change password keep this tab signed in', async ({ page }, testInfo) => {
    const email = uniqueEmail('security');
    const elsewhere = await apiSignUp(page.request, { email, password: PASSWORD, name: 'Security Tester' });
    await signIn(page, email);
    await page.goto('/workspace/profile');
    await expect(page.getByRole('heading', { name: 'Security' })).toBeVisible();

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(page.getByText('Signed out everywhere else')).toBeVisible();
    expect(await meStatus(page, elsewhere.token)).toBe(401);
    const afterEverywhere = await pageToken(page);
    expect(await meStatus(page, afterEverywhere!)).toBe(200);

    // A wrong current password is refused with a message and keeps the session.
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not-my-password-1');
    await form.getByLabel('New password', { exact: true }).fill('An0ther-secret-pw');
    await form.getByLabel('Confirm new password').fill('An0ther-secret-pw');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toBeVisible();
    await expect(page).toHaveURL(/\/workspace\/profile/);

    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('Password changed.')).toBeVisible();
    await snap(page, 'profile-security', testInfo);
    expect(await meStatus(page, afterEverywhere!)).toBe(401);
    const afterChange = await pageToken(page);
    expect(await meStatus(page, afterChange!)).toBe(200);
    // Still signed in after a reload; the old password no longer signs in, the new one does.
    await page.reload();
    await expect(page.getByRole('heading', { name: 'My Profile' })).toBeVisible();
    expect((await page.request.post('/api/auth/login', { data: { email, password: PASSWORD } })).status()).not.toBe(200);
    expect((await page.request.post('/api/auth/login', { data: { email, password: 'An0ther-secret-pw' } })).status()).toBe(200);
  });
});

test.describe('issue 29 item 2: downloads', () => {
  test('Analytics Export CSV downloads the file with the session token', async ({ page }) => {
    const email = uniqueEmail('export');
    const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'Export Tester' });
    const plan = await page.request.post('/api/subscription/plan', { headers: { Authorization: `Bearer ${token}` }, data: { plan: 'pro' } });
    expect(plan.ok(), await plan.text()).toBe(true);
    await signIn(page, email);
    await page.goto('/workspace/analytics');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    const path = await file.path();
    const text = readFileSync(path!, 'utf8');
    // A header row, not an error envelope.
    expect(text).not.toContain('"success"');
    expect(text.split('\n')[0]).toMatch(/,/);
  });
});

/** Whether an <img> loaded real pixels (a broken image has naturalWidth 0). */
async function loaded(page: Page, name: string) {
  const img = page.getByRole('img', { name, exact: true });
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
}

test.describe('issue 29 item 3: wizard photos', () => {
  test('the Photo step and Verify show the uploaded photo, not a broken image', async ({ page }, testInfo) => {
    const email = uniqueEmail('wizardphoto');
    await apiSignUp(page.request, { email, password: PASSWORD, name: 'Photo Tester' });
    await signIn(page, email);
    await page.goto('/workspace/add-product');
    await page.getByLabel('Product name').fill('Studio vase');
    await page.getByTestId('wizard-photo-input').setInputFiles({ name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(320, 400) });
    await loaded(page, 'Photo vase.png');
    await snap(page, 'wizard-photo', testInfo);
    await page.getByRole('button', { name: 'Remove background' }).click();
    await loaded(page, 'Original photo');
    // After a reload the photo still shows (the signed URL is kept with the draft).
    await page.reload();
    await loaded(page, 'Original photo');
  });
});

test.describe('issue 29 item 4: drafts', () => {
  test('a draft says Draft on the dashboard, shows its photo and has Generate 3D', async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    const email = uniqueEmail('draft');
    await apiSignUp(page.request, { email, password: PASSWORD, name: 'Draft Tester' });
    await signIn(page, email);
    await page.goto('/workspace/add-product');
    await page.getByLabel('Product name').fill('Draft vase');
    await page.getByTestId('wizard-photo-input').setInputFiles({ name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(320, 400) });
    await loaded(page, 'Photo vase.png');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.waitForURL('**/workspace/products');

    // The dashboard's recent card (the worker's projection) says Draft, not Processing.
    const card = page.getByRole('link', { name: /Draft vase/ });
    await expect(async () => {
      await page.goto('/my-home');
      await expect(card).toContainText('Draft', { timeout: 2000 });
    }).toPass({ timeout: 30_000 });
    await expect(card).not.toContainText('Processing');
    await snap(page, 'dashboard-draft', testInfo);

    await card.click();
    await expect(page.getByTestId('product-status')).toHaveText('Draft');
    await loaded(page, 'Photo of Draft vase');
    await snap(page, 'product-draft', testInfo);
    await page.getByRole('button', { name: 'Generate 3D' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Generate 3D' }).click();
    await expect(page.getByTestId('product-status')).toHaveText(/Processing 3D…|Ready/);
    await expect(page.getByTestId('product-status')).toHaveText('Ready', { timeout: 150_000 });
  });
});

test.describe('issue 29 item 5: branding', () => {
  test('choosing a logo keeps unsaved edits; Save stores all; Reset + Save keeps the stored logo', async ({ page }, testInfo) => {
    const email = uniqueEmail('brand');
    const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'Brand Tester' });
    const branding = async () =>
      ((await (await page.request.get('/api/branding', { headers: { Authorization: `Bearer ${token}` } })).json()) as { data: { brandName: string; brandColor: string; logoUrl: string | null } }).data;
    await signIn(page, email);
    await page.goto('/workspace/settings');
    const name = page.getByLabel('Brand name');
    await expect(name).toHaveValue('Your Brand');
    await name.fill('Rao Furniture');
    await page.getByLabel('Brand colour', { exact: true }).fill('#112233');
    await page.getByLabel('Logo file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: productPhotoPNG(128, 128) });
    await loaded(page, 'Current brand logo');
    // The edits survive choosing the logo.
    await expect(name).toHaveValue('Rao Furniture');
    await expect(page.getByLabel('Brand colour', { exact: true })).toHaveValue('#112233');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await expect(page.getByText('Branding saved')).toBeVisible();
    const stored = await branding();
    expect(stored).toMatchObject({ brandName: 'Rao Furniture', brandColor: '#112233' });
    expect(stored.logoUrl).toBeTruthy();
    await page.reload();
    await expect(name).toHaveValue('Rao Furniture');
    await loaded(page, 'Current brand logo');
    await snap(page, 'settings-branding', testInfo);

    // Reset + Save: default name and colour, the stored logo stays.
    await page.getByRole('button', { name: 'Reset changes' }).click();
    await page.getByRole('button', { name: 'Save branding' }).click();
    await expect(page.getByText('Branding saved')).toBeVisible();
    const afterReset = await branding();
    expect(afterReset).toMatchObject({ brandName: 'Your Brand', brandColor: '#2E5BBA' });
    expect(afterReset.logoUrl).toBeTruthy();
  });
});

test.describe('issue 29 item 7: wizard history', () => {
  test('an abandoned name does not pre-fill the next product; Back from the configurator offers the built product', async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const email = uniqueEmail('wizardback');
    await apiSignUp(page.request, { email, password: PASSWORD, name: 'Wizard Tester' });
    await signIn(page, email);
    const openWizard = async () => {
      await page.goto('/workspace/products');
      await page.getByRole('button', { name: 'Add product' }).first().click();
      await page.getByRole('link', { name: 'Start from a photo' }).click();
      await page.waitForURL('**/workspace/add-product**');
    };

    await openWizard();
    await page.getByLabel('Product name').fill('Abandoned stool');
    await openWizard();
    await expect(page.getByLabel('Product name')).toHaveValue('');

    await page.getByLabel('Product name').fill('Back vase');
    await page.getByTestId('wizard-photo-input').setInputFiles({ name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(320, 400) });
    await loaded(page, 'Photo vase.png');
    await page.getByRole('button', { name: 'Generate 3D now' }).click();
    await page.waitForURL(/step=configurator&product=/);
    const configurator = page.url();
    await page.goBack();
    const created = page.getByTestId('wizard-created');
    await expect(created).toContainText('You already created “Back vase”');
    await expect(page.getByLabel('Product name')).toHaveValue('');
    await snap(page, 'wizard-back-from-configurator', testInfo);
    await created.getByRole('link', { name: 'Continue with “Back vase”' }).click();
    await expect(page).toHaveURL(configurator);
  });
});

test.describe('issue 29 item 8: one public page per product', () => {
  test('a product with an uploaded model can be published; Embed never publishes; Share/Embed/QR use the product page', async ({ page }, testInfo) => {
    test.setTimeout(240_000);
    const email = uniqueEmail('onepage');
    const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'Page Tester' });
    const api = new Api(page.request, token);
    await api.call('post', '/api/subscription/plan', { plan: 'pro' });
    // A real GLB, built by the worker, then uploaded as the merchant's own model.
    const jobId = await blueprintFromPhoto(api, page.request, productPhotoPNG(320, 400), 'studio-vase.png');
    const job = await api.call<{ modelURL: string }>('get', `/api/jobs/${jobId}`);
    const glb = await (await page.request.get(job.modelURL)).body();
    const up = await page.request.post('/api/uploads/content', {
      headers: { Authorization: `Bearer ${token}` },
      multipart: { file: { name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(320, 400) } },
    });
    const uploadId = ((await up.json()) as { data: { uploadId: string } }).data.uploadId;
    const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Own model vase', uploadId, generate: false });
    const model = await page.request.post(`/api/products/${product.id}/model`, {
      headers: { Authorization: `Bearer ${token}` },
      multipart: { file: { name: 'vase.glb', mimeType: 'model/gltf-binary', buffer: glb } },
    });
    expect(model.ok(), await model.text()).toBe(true);

    await signIn(page, email);
    await page.goto(`/workspace/product/${product.id}`);
    await expect(page.getByTestId('product-status')).toHaveText('Ready');
    await expect(page.getByText('no 3D model to share')).toHaveCount(0);
    await page.getByRole('button', { name: 'Embed' }).click();
    await expect(page.getByTestId('embed-unpublished')).toBeVisible();
    expect((await api.call<{ publication: unknown }>('get', `/api/products/${product.id}`)).publication).toBeNull();
    expect((await api.call<{ items: unknown[] }>('get', '/api/publications')).items).toHaveLength(0);

    await page.getByRole('link', { name: 'Publish', exact: true }).first().click();
    await page.waitForURL(/step=publish/);
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect
      .poll(async () => ((await api.call<{ publication: { shareURL: string } | null }>('get', `/api/products/${product.id}`)).publication?.shareURL ?? ''), { timeout: 30_000 })
      .not.toBe('');
    const own = (await api.call<{ publication: { shareURL: string; qrURL: string } }>('get', `/api/products/${product.id}`)).publication;

    await page.goto(`/workspace/product/${product.id}`);
    await expect(page.getByTestId('product-live')).toHaveText('Live');
    await expect(page.getByTestId('share-url')).toHaveValue(own.shareURL);
    await page.getByRole('button', { name: 'Embed' }).click();
    await expect(page.getByLabel('Embed code')).toHaveValue(/\/embed\//);
    await page.getByRole('tab', { name: 'AR Preview' }).click();
    await loaded(page, 'QR code that opens this product on your phone');
    await expect(page.getByRole('img', { name: 'QR code that opens this product on your phone' })).toHaveAttribute('src', own.qrURL);
    await snap(page, 'product-live', testInfo);
    // Still one public page: the product's, none named after the photo's file.
    const pubs = (await api.call<{ items: { productId: string }[] }>('get', '/api/publications')).items;
    expect(pubs.map((x) => x.productId)).toEqual([product.id]);
  });
});

test.describe('issue 29 items 13 and 11: lists and the SKU filter', () => {
  test('Draft and Live filters with a Live badge; search covers description and tags; list view survives paging', async ({ page }, testInfo) => {
    test.setTimeout(240_000);
    const email = uniqueEmail('lists');
    const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'List Tester' });
    const api = new Api(page.request, token);
    await api.call('post', '/api/subscription/plan', { plan: 'pro' });
    const photo = productPhotoPNG(160, 200);
    const uploadId = async () => {
      const up = await page.request.post('/api/uploads/content', {
        headers: { Authorization: `Bearer ${token}` },
        multipart: { file: { name: 'p.png', mimeType: 'image/png', buffer: photo } },
      });
      return ((await up.json()) as { data: { uploadId: string } }).data.uploadId;
    };
    for (let i = 1; i <= 11; i++) await api.call('post', '/api/products', { name: `Draft ${String(i).padStart(2, '0')}`, uploadId: await uploadId(), generate: false });
    const glazed = await api.call<{ id: string }>('post', '/api/products', { name: 'Jug', uploadId: await uploadId(), generate: false });
    await api.call('patch', `/api/products/${glazed.id}`, { description: 'Hand-glazed stoneware', tags: ['ceramic'] });
    const jobId = await blueprintFromPhoto(api, page.request, photo, 'lamp.png');
    const lamp = await api.call<{ id: string; catalogId: string }>('post', '/api/products', { name: 'Live lamp', blueprintId: jobId });
    await expect.poll(async () => (await api.call<{ status: string }>('get', `/api/products/${lamp.id}`)).status).toBe('ready');
    await api.call('post', `/api/products/${lamp.id}/publish`, { requireEmail: false, allowDeepLinks: false });

    await signIn(page, email);
    await page.goto('/workspace/products');
    const cards = page.getByTestId('product-card');
    // Search finds words of the description and the tags, not only the name.
    const search = page.getByRole('searchbox', { name: 'Search products' });
    await search.fill('stoneware');
    await search.press('Enter');
    await expect(cards).toHaveCount(1);
    await expect(cards).toContainText('Jug');
    await search.fill('ceramic');
    await search.press('Enter');
    await expect(cards).toHaveCount(1);
    await search.fill('');
    await search.press('Enter');

    await page.getByRole('button', { name: /^Filters/ }).click();
    const filters = page.getByRole('dialog', { name: 'Filters' });
    // The URL is the list state: a tick re-renders the popover, so click and wait for it.
    await filters.getByRole('checkbox', { name: 'Live' }).click();
    await expect(filters.getByRole('checkbox', { name: 'Live' })).toBeChecked();
    await expect(cards).toHaveCount(1);
    await expect(cards).toContainText('Live lamp');
    await expect(cards.getByText('Live', { exact: true })).toBeVisible();
    await snap(page, 'products-live-filter', testInfo);
    await filters.getByRole('checkbox', { name: 'Live' }).click();
    await expect(filters.getByRole('checkbox', { name: 'Live' })).not.toBeChecked();
    await filters.getByRole('checkbox', { name: 'Draft' }).click();
    await expect(filters.getByRole('checkbox', { name: 'Draft' })).toBeChecked();
    await expect(page.getByText(/of 12/)).toBeVisible();
    await expect(cards.filter({ hasText: 'Live lamp' })).toHaveCount(0);

    // The catalog's list view stays a list on the next page.
    await page.goto(`/workspace/catalog/${lamp.catalogId}`);
    await page.getByRole('button', { name: 'List' }).click();
    await expect(page.getByRole('list', { name: 'Products' })).toHaveClass(/list-rows/);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(page.getByRole('list', { name: 'Products' })).toHaveClass(/list-rows/);
    // Issue 29 item 11: the analytics SKU filter lists the live product, not the drafts.
    await page.goto('/workspace/analytics');
    const sku = page.getByLabel('SKU');
    await expect(sku.locator('option')).toHaveText(['All products', 'Live lamp']);
  });
});

test.describe('issue 29 item 10: another host', () => {
  // Issue 50 item 15 settled the rule: every public URL names PUBLIC_BASE_URL (localhost here)
  // whatever host the app is open on, and the oEmbed endpoint answers for exactly those URLs. This
  // test checked only the QR download; it now also checks the link the merchant is given and the
  // oEmbed discovery of that page opened at 127.0.0.1, which named a URL the endpoint refused when
  // links followed the request's host (merchant walk 4, H15).
  test('Download QR works with the app opened on 127.0.0.1 while public links name localhost; the page opened there advertises an oEmbed URL that answers (issue 50 item 15)', async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(180_000);
    expect(new URL(baseURL!).hostname).toBe('127.0.0.1');
    const email = uniqueEmail('qrhost');
    const { token } = await apiSignUp(page.request, { email, password: PASSWORD, name: 'QR Tester' });
    const api = new Api(page.request, token);
    await api.call('post', '/api/subscription/plan', { plan: 'pro' });
    const jobId = await blueprintFromPhoto(api, page.request, productPhotoPNG(160, 200), 'qr.png');
    const product = await api.call<{ id: string }>('post', '/api/products', { name: 'QR vase', blueprintId: jobId });
    await expect.poll(async () => (await api.call<{ status: string }>('get', `/api/products/${product.id}`)).status).toBe('ready');
    await api.call('post', `/api/products/${product.id}/publish`, { requireEmail: false, allowDeepLinks: false });
    await signIn(page, email);
    await page.goto(`/workspace/add-product?step=publish&product=${product.id}`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download QR' }).click();
    const file = await download;
    const png = readFileSync((await file.path())!);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    await expect(page.getByText('The QR code could not be downloaded.')).toHaveCount(0);

    const shareURL = await page.getByTestId('share-url').inputValue();
    expect(new URL(shareURL).hostname, 'the share link names PUBLIC_BASE_URL, not the host the app is open on').toBe('localhost');
    expect(new URL(shareURL).port).toBe(new URL(baseURL!).port);
    const opened = new URL(new URL(shareURL).pathname, baseURL).href; // the same page at 127.0.0.1
    const html = await (await page.request.get(opened)).text();
    const link = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(html);
    expect(link, 'the page names its oEmbed endpoint').not.toBeNull();
    const endpoint = new URL(link![1].replaceAll('&amp;', '&'));
    expect(endpoint.searchParams.get('url')).toBe(shareURL);
    expect((await page.request.get(endpoint.href)).status()).toBe(200);
    // Asked on the host the app is open on, the same endpoint answers for the same link.
    expect((await page.request.get(new URL(endpoint.pathname + endpoint.search, baseURL).href)).status()).toBe(200);
  });
});
