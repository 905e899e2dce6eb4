import { expect, test } from '@playwright/test';
import { collectErrors, signUpAndSignIn, snap } from './helpers';

/**
 * Settings → API access against the real api (issue 17), the way an integrator meets it: make a
 * read-only key in the panel, copy the key shown once, call the API with it (a read works, a write
 * is refused for its scope), then revoke it in the panel and the very next call is refused. Every
 * expectation is what the server answered, never what happened to be on screen at one moment.
 */
test('create a read-only API key, use it, revoke it', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const errors = collectErrors(page);
  await signUpAndSignIn(page, 'apikeys');
  await page.goto('/workspace/settings');
  const panel = page.getByRole('region', { name: 'API access' });
  await expect(panel.getByText('No API keys yet.')).toBeVisible({ timeout: 30_000 });

  await panel.getByLabel('Key name').fill('Shopify sync');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/api-keys') && r.request().method() === 'POST');
  await panel.getByRole('button', { name: 'Create key' }).click();
  expect((await created).status()).toBe(201);
  const shown = panel.getByRole('textbox', { name: 'New API key' });
  await expect(shown).toHaveValue(/^p3d_/);
  const key = await shown.inputValue();
  await expect(panel.getByText('it will not be shown again')).toBeVisible();
  await expect(panel.getByRole('row').filter({ hasText: 'Shopify sync' })).toContainText(key.slice(0, 8));
  await snap(page, 'api-key-created', testInfo);

  const auth = { Authorization: `Bearer ${key}` };
  const read = await request.get('/api/blueprints', { headers: auth });
  expect(read.status()).toBe(200);
  const write = await request.post('/api/catalogs', { headers: auth, data: { name: 'From a read key' } });
  expect(write.status()).toBe(403);
  // A key cannot make keys: that stays with a signed-in person.
  const mint = await request.post('/api/api-keys', { headers: auth, data: { name: 'escalate', scopes: ['write'] } });
  expect(mint.status()).toBe(403);

  // The list shows when the key was last used, and never the key again after a reload.
  await page.reload();
  const row = panel.getByRole('row').filter({ hasText: 'Shopify sync' });
  await expect(row).not.toContainText('Never', { timeout: 30_000 });
  await expect(page.getByRole('textbox', { name: 'New API key' })).toHaveCount(0);
  expect(await page.content()).not.toContain(key);

  await row.getByRole('button', { name: 'Revoke Shopify sync' }).click();
  const revoked = page.waitForResponse((r) => r.url().includes('/api/api-keys/') && r.request().method() === 'DELETE');
  await page.getByRole('button', { name: 'Revoke key' }).click();
  expect((await revoked).status()).toBeLessThan(300);
  await expect(row).toContainText('Revoked');
  const after = await request.get('/api/blueprints', { headers: auth });
  expect(after.status()).toBe(401);
  expect(errors).toEqual([]);
});
