import { expect, test, type Page } from '@playwright/test';
import { closeUpPNG, cutOffVasePNG, productPhotoPNG } from './fixtures/product-photo';
import { signUpAndSignIn, snap } from './helpers';

/*
 * Model quality in the real flow (api + worker + built-in reconstructor): the preview
 * shows the mesh fidelity the server computed, a photo that cuts the product off is built
 * and says so beside the model, and a photo with no separable product fails with the
 * server's sentence and costs no credit.
 */

test.describe.configure({ mode: 'serial' });
test.setTimeout(240_000);

const CUT_OFF =
  'The product runs off the top edge of the photo, so the model stops there: the part outside the photo is missing. ' +
  'For a faithful model, use a photo with the whole product in view and some space around it.';

const SEPARATION = 'We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view.';

async function build(page: Page, name: string, photo: Buffer): Promise<string> {
  await page.goto('/workspace/upload');
  await page.getByTestId('upload-input').setInputFiles({ name, mimeType: 'image/png', buffer: photo });
  await page.getByRole('button', { name: 'Use This Photo' }).click();
  await page.waitForURL(/\/(processing|preview)\/[^/]+$/);
  return decodeURIComponent(page.url().split('/').pop()!);
}

async function job(page: Page, token: string, id: string) {
  const res = await page.request.get(`/api/jobs/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.ok()).toBeTruthy();
  return (await res.json()).data as { status: string; fidelity: number | null; error: string; warnings: string[] };
}

test('the preview shows the server’s mesh fidelity; a cut-off photo is built with a warning; an inseparable photo fails with its reason', async ({ page }, testInfo) => {
  const token = await signUpAndSignIn(page, 'fidelity');

  const vase = await build(page, 'blue-vase.png', productPhotoPNG());
  await page.waitForURL(/\/preview\/[^/]+$/, { timeout: 120_000 });
  const done = await job(page, token, vase);
  expect(done.status).toBe('completed');
  expect(done.fidelity).not.toBeNull();
  await expect(page.getByTestId('fidelity')).toContainText(`Mesh fidelity ${done.fidelity}%`);
  expect(done.warnings).toEqual([]);
  await expect(page.getByTestId('build-warnings')).toHaveCount(0);

  // The vase framed so close that its neck runs off the top: built, and the preview says where the model stops.
  const cut = await build(page, 'cut-off-vase.png', cutOffVasePNG());
  await page.waitForURL(/\/preview\/[^/]+$/, { timeout: 120_000 });
  const cutDone = await job(page, token, cut);
  expect(cutDone.status).toBe('completed');
  expect(cutDone.warnings).toEqual([CUT_OFF]);
  await expect(page.locator('model-viewer')).toBeVisible();
  await expect(page.getByTestId('build-warnings')).toHaveText(CUT_OFF);
  await expect(page.getByTestId('build-warnings').getByRole('status')).toBeVisible();
  await snap(page, 'fidelity-01-cut-off', testInfo);

  const closeUp = await build(page, 'close-up.png', closeUpPNG());
  await expect.poll(async () => (await job(page, token, closeUp)).status, { timeout: 120_000 }).toBe('failed');
  expect((await job(page, token, closeUp)).error).toBe(SEPARATION);
  await page.goto(`/preview/${encodeURIComponent(closeUp)}`);
  await expect(page.getByText(SEPARATION)).toBeVisible();

  // Only the two finished vases used a credit each; the failed build released its hold.
  const sub = await page.request.get('/api/subscription', { headers: { Authorization: `Bearer ${token}` } });
  expect(sub.ok()).toBeTruthy();
  const { aiCreditsUsed, aiCreditsReserved } = (await sub.json()).data as { aiCreditsUsed: number; aiCreditsReserved: number };
  expect({ aiCreditsUsed, aiCreditsReserved }).toEqual({ aiCreditsUsed: 2, aiCreditsReserved: 0 });
});
