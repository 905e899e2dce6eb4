import { expect, test } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { collectErrors, signUpAndSignIn, snap } from './helpers';

// Issue 34 §3 in the add-product wizard on the real stack (api + worker + Postgres +
// River + blob store): after the front photo, "Add more angles (optional)" takes two
// more photos of the vase, "Generate 3D now" creates the product from all three (one
// build), the build modal says "Built from 3 photos", the worker builds it, and the
// preview step says the same.
test.setTimeout(240_000);

test('wizard: front + two more angles → a product built from 3 photos', async ({ page }, testInfo) => {
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'wizard-angles');
  const photo = productPhotoPNG(320, 400);

  await page.goto('/workspace/add-product');
  await page.getByLabel('Product name').fill('Three-view vase');
  await page.getByTestId('wizard-photo-input').setInputFiles({ name: 'front.png', mimeType: 'image/png', buffer: photo });
  await expect(page.getByAltText('Photo front.png')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Add more angles (optional)' })).toBeVisible();
  await page.getByTestId('more-angles-input').setInputFiles(
    ['left', 'back'].map((n) => ({ name: `${n}.png`, mimeType: 'image/png', buffer: photo })),
  );
  await expect(page.getByTestId('more-angle')).toHaveCount(2);
  // The price is shown before Generate 3D now: one AI credit per photo (security review M6).
  await expect(page.getByTestId('build-price')).toHaveText('Uses 3 AI credits, one per photo');
  await snap(page, 'wizard-angles-01-photos', testInfo);

  const created = page.waitForResponse((r) => r.url().endsWith('/api/products') && r.request().method() === 'POST', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Generate 3D now' }).click();
  const res = await created;
  expect(res.status()).toBe(201);
  expect(res.request().postDataJSON().moreImages).toHaveLength(2);
  const body = await res.json();
  expect(body.data.views).toBe(3);
  const id: string = body.data.id;

  const modal = page.getByRole('dialog', { name: 'Building your 3D' });
  await expect(modal.getByTestId('build-views')).toHaveText('Built from 3 photos');
  await snap(page, 'wizard-angles-02-building', testInfo);

  await expect
    .poll(
      async () => {
        const r = await page.request.get(`/api/products/${id}`, { headers: { Authorization: `Bearer ${token}` } });
        return (await r.json()).data.status;
      },
      { timeout: 180_000, intervals: [1000] },
    )
    .toBe('ready');
  await page.goto(`/workspace/add-product?step=preview&product=${encodeURIComponent(id)}`);
  await expect(page.getByTestId('preview-views')).toHaveText('Built from 3 photos');
  // The Preview step, where the merchant decides to publish, shows the build's quality (walk 4, H3).
  await expect(page.getByTestId('fidelity')).toHaveText('Mesh fidelity not measured');
  await expect(page.getByText('Check this model from every side before you publish.')).toBeVisible();
  await snap(page, 'wizard-angles-03-preview', testInfo);
  expect(errors, 'no console errors').toEqual([]);
});
