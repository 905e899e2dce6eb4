import { expect, test } from '@playwright/test';
import { collectErrors, signUpAndSignIn } from './helpers';

// Issue 50, the merchant's polish table, where only a browser can tell: the new API key is
// shown whole (P19), Buy credits asks first (P17), the subscription page says what the
// trial costs before it starts (P16) and where the invoices are in test mode (P18), and
// the delete-account dialog leads to "Download my data" first (P22).
test('account polish: the whole API key, confirmed purchases, the trial terms, invoices, data first', async ({ page }) => {
  test.setTimeout(90_000);
  const errors = collectErrors(page);
  await signUpAndSignIn(page, 'polish');

  await page.goto('/workspace/settings');
  const panel = page.getByRole('region', { name: 'API access' });
  await panel.getByLabel('Key name').fill('Till');
  await panel.getByRole('button', { name: 'Create key' }).click();
  const shown = panel.getByRole('textbox', { name: 'New API key' });
  await expect(shown).toHaveValue(/^p3d_/);
  const field = await shown.evaluate((el: HTMLInputElement) => ({
    font: getComputedStyle(el).fontFamily,
    cut: el.scrollWidth > el.clientWidth,
    width: el.getBoundingClientRect().width,
    region: el.closest('.api-key-created')!.getBoundingClientRect().width,
  }));
  expect(field.font).toMatch(/mono/i);
  expect(field.cut, 'the whole key is visible').toBe(false);
  expect(field.width).toBeGreaterThan(field.region * 0.95);

  await page.getByRole('link', { name: 'Subscription → Invoices and receipts' }).click();
  await expect(page.locator('#invoices')).toContainText('this server bills in test mode');
  await expect(page.locator('#invoices')).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Start free trial' })).toHaveAccessibleDescription('7-day free trial, no card');
  await page.getByRole('button', { name: 'Buy 20 credits' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Buy 20 AI credits?' });
  await expect(confirm).toContainText('for ₹500');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByText('Added 20 AI credits')).toHaveCount(0);

  await page.goto('/workspace/profile');
  await page.getByRole('button', { name: 'Delete account' }).click();
  await page.getByRole('alertdialog', { name: 'Delete your account?' }).getByRole('button', { name: 'Download my data first' }).click();
  await expect(page.getByRole('alertdialog')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Download my data' })).toBeFocused();
  await expect(page.getByRole('button', { name: 'Download my data' })).toBeInViewport();
  expect(errors).toEqual([]);
});
