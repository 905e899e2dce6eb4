import { expect, test } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { apiSignUp, collectErrors, processingPageShown, snap, uniqueEmail } from './helpers';

// Issue 34 §3 on the real stack (api + worker + Postgres + River + blob store): the
// upload page's "Add more angles (optional)" takes three more photos of the vase
// (a solid of revolution looks the same from every side), the worker carves one
// model from all four, and the processing screen and the preview say so.
test.setTimeout(240_000);

const AUTH_KEY = 'photo3d.auth';

test('four photos → one multi-view model whose views count is shown', async ({ page }, testInfo) => {
  const errors = collectErrors(page);
  const data = await apiSignUp(page.request, { name: 'Angle Maker', email: uniqueEmail('multiview'), password: 'Sup3r-secret-pw' });
  await page.goto('/login');
  await page.evaluate(([k, v]) => localStorage.setItem(k, v), [AUTH_KEY, JSON.stringify(data)]);

  await page.goto('/workspace/upload');
  const photo = productPhotoPNG();
  await page.getByTestId('upload-input').setInputFiles({ name: 'front.png', mimeType: 'image/png', buffer: photo });
  await expect(page.getByRole('heading', { name: 'Add more angles (optional)' })).toBeVisible();
  await page.getByTestId('more-angles-input').setInputFiles(
    ['right', 'left', 'back'].map((n) => ({ name: `${n}.png`, mimeType: 'image/png', buffer: photo })),
  );
  // Put them in the guide's order: left, back, right.
  await page.getByRole('button', { name: 'Move right.png down' }).click();
  await page.getByRole('button', { name: 'Move right.png down' }).click();
  await expect(page.getByTestId('more-angle')).toHaveText([/Left: left\.png/, /Back: back\.png/, /Right: right\.png/]);
  // The price is shown before the build starts: one AI credit per photo (security review M6).
  await expect(page.getByTestId('build-price')).toHaveText('Uses 4 AI credits, one per photo');
  await snap(page, 'multiview-01-angles', testInfo);

  const created = page.waitForResponse((r) => r.url().endsWith('/api/jobs') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Use These 4 Photos' }).click();
  const res = await created;
  expect(res.status()).toBe(201);
  const body = await res.json();
  expect(body.data.views).toBe(4);
  expect(res.request().postDataJSON().moreImages).toHaveLength(3);

  if (await processingPageShown(page)) {
    await expect(page.getByTestId('processing-views')).toHaveText('Built from 4 photos');
  }
  await page.waitForURL(/\/preview\/[^/]+$/, { timeout: 180_000 });
  await expect(page.getByTestId('preview-views')).toHaveText('Built from 4 photos');
  // No score for a multi-photo build, and the page says so (merchant walk 4, H1).
  await expect(page.getByTestId('fidelity')).toHaveText('Mesh fidelity not measured');
  await expect(page.getByText('Check this model from every side before you publish.')).toBeVisible();
  await snap(page, 'multiview-02-preview', testInfo);

  const jobId = decodeURIComponent(page.url().split('/').pop()!);
  const job = await (await page.request.get(`/api/jobs/${jobId}`, { headers: { Authorization: `Bearer ${data.token}` } })).json();
  expect(job.data.status).toBe('completed');
  expect(job.data.stats.views).toBe(4);
  expect(job.data.stats.shapeKind).toBe('multiview');
  // Four photos used four credits, none left held.
  const sub = await (await page.request.get('/api/subscription', { headers: { Authorization: `Bearer ${data.token}` } })).json();
  expect({ used: sub.data.aiCreditsUsed, reserved: sub.data.aiCreditsReserved }).toEqual({ used: 4, reserved: 0 });
  // Its thumbnail is the model drawn by the worker, not the front photo's cut-out: a build
  // that lost a part shows it on its card. My Blueprints tells it from a one-photo build.
  const thumb = await page.request.get(job.data.thumbnailURL);
  expect(thumb.ok()).toBe(true);
  const png = await thumb.body();
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  await page.goto('/workspace/blueprints');
  const card = page.getByTestId('blueprint-card').first();
  await expect(card.getByTestId('blueprint-views')).toHaveText('Built from 4 photos');
  await expect(card.getByTestId('fidelity')).toHaveText('Mesh fidelity not measured');
  await expect(card.locator('img')).toHaveJSProperty('complete', true);
  expect(await card.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  expect(errors, 'no console errors').toEqual([]);
});
