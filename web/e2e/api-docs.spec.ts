import { expect, test } from '@playwright/test';
import { collectErrors } from './helpers';

// The API reference at /docs/api, against the real server: it renders the document the api
// serves at /api/openapi.json under the app's real CSP (a refused script or eval would be a
// console error), its anchors and search work.
test('the API reference renders the served OpenAPI document, with anchors and search', async ({ page, request }) => {
  test.setTimeout(300_000); // a loaded machine renders slowly; never a timing assertion
  const errors = collectErrors(page);
  const served = await request.get('/api/openapi.json');
  expect(served.ok()).toBe(true);
  const doc = (await served.json()) as { paths: Record<string, Record<string, unknown>> };
  const total = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);

  await page.goto('/docs/api#op-getJob');
  await expect(page.getByRole('heading', { name: 'Photo3D API', level: 1 })).toBeVisible({ timeout: 120_000 });
  await expect(page.getByText(`${total} operations`)).toBeVisible();
  const getJob = page.locator('#op-getJob');
  await expect(getJob).toBeInViewport();
  await expect(getJob.getByText('/api/jobs/{id}')).toBeVisible();
  await expect(getJob.getByText('API key scope: read')).toBeVisible();

  await page.getByLabel('Search operations').fill('publish product');
  await expect(page.locator('#op-publishProduct')).toBeVisible();
  await expect(page.locator('#op-getJob')).toHaveCount(0);
  await page.locator('#op-publishProduct').getByText('Example').first().click();
  await expect(page.locator('#op-publishProduct pre').first()).toContainText('requireEmail');
  expect(errors).toEqual([]);
});
