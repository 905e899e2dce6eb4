import { expect, test } from '@playwright/test';
import { collectErrors, uniqueEmail } from './helpers';

// Issue 29 item 9 / issue 31 part 4: without a mail relay (`make run`, this suite) a newcomer
// finds the verification mail in the dev Outbox (/dev/mail, loopback only), which the
// "Check your email" screen links; the worker sent it from a River job after sign-up.
test('a newcomer verifies their email from the dev Outbox', async ({ page }) => {
  test.setTimeout(90_000);
  const errors = collectErrors(page);
  const email = uniqueEmail('outbox');
  await page.goto('/signup');
  await page.getByLabel('Full Name').fill('Outbox Tester');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('Sup3r-secret-pw');
  await page.getByLabel('Confirm Password').fill('Sup3r-secret-pw');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Outbox' })).toHaveAttribute('href', '/dev/mail');

  await page.goto('/dev/mail');
  await expect(page.getByRole('heading', { name: 'Outbox' })).toBeVisible();
  const mail = page.locator('article', { hasText: `To ${email}` });
  await expect
    .poll(
      async () => {
        await page.reload();
        return mail.count();
      },
      { timeout: 20_000, message: 'the verification mail reaches the Outbox' },
    )
    .toBe(1);
  await expect(mail.getByRole('heading', { name: 'Verify your Photo3D email address' })).toBeVisible();
  await mail.getByRole('link', { name: /\/verify-email\?token=/ }).click();
  await expect(page.getByText('Your email address is verified.')).toBeVisible();
  await page.waitForURL('**/my-home');
  expect(errors).toEqual([]);
});
