import { expect, test, type Page } from '@playwright/test';
import { apiSignUp, collectErrors, uniqueEmail } from './helpers';

// Issue 50 item 13: the merchant changes their sign-in email from Profile. The link goes to
// the NEW address (read here from the dev Outbox, as e2e/mail.spec.ts does); the old address
// is told, masked; afterwards the merchant signs in with the new address.

/** The Outbox article of the newest mail to `to` with `subject`, once it has arrived. */
async function outboxMail(page: Page, to: string, subject: string) {
  await page.goto('/dev/mail');
  const mail = page.locator('article', { hasText: `To ${to}` }).filter({ has: page.getByRole('heading', { name: subject }) });
  await expect
    .poll(
      async () => {
        await page.reload();
        return mail.count();
      },
      { timeout: 20_000, message: `"${subject}" reaches ${to} in the Outbox` },
    )
    .toBeGreaterThan(0);
  return mail.first();
}

test('a merchant changes their sign-in email by a link mailed to the new address', async ({ page, browser }) => {
  test.setTimeout(90_000);
  const errors = collectErrors(page);
  const oldEmail = uniqueEmail('email-old');
  const newEmail = uniqueEmail('email-new');
  const password = 'Sup3r-secret-pw';
  await apiSignUp(page.request, { email: oldEmail, password, name: 'Email Changer' });
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(oldEmail);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');

  await page.goto('/workspace/profile');
  const field = page.getByLabel('Email', { exact: true });
  await expect(field).toHaveValue(oldEmail);
  await expect(field).not.toBeEditable();
  await page.getByRole('button', { name: 'Change email' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change your sign-in email' });
  await dialog.getByLabel('New email address').fill(newEmail);
  await dialog.getByLabel('Current password').fill(password);
  await dialog.getByRole('button', { name: 'Send confirmation link' }).click();
  await expect(dialog.getByText(`We sent a confirmation link to ${newEmail}.`)).toBeVisible();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(field).toHaveValue(oldEmail); // nothing changes before the link is opened

  const confirmation = await outboxMail(page, newEmail, 'Confirm your new Photo3D sign-in email');
  await confirmation.getByRole('link', { name: /\/confirm-email-change\?token=/ }).click();
  await expect(page.getByText(`Your sign-in email is now ${newEmail}.`)).toBeVisible();

  const notice = await outboxMail(page, oldEmail, 'Your Photo3D sign-in email was changed');
  await expect(notice).toContainText(`${newEmail[0]}***@example.com`);
  await expect(notice).not.toContainText(newEmail);

  // This device kept its session and shows the new address.
  await page.goto('/workspace/profile');
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue(newEmail);

  // Another browser signs in with the new address; the old one is refused.
  const other = await browser.newContext();
  const fresh = await other.newPage();
  await fresh.goto('/login');
  await fresh.getByLabel('Email Address').fill(oldEmail);
  await fresh.getByLabel('Password').fill(password);
  await fresh.getByRole('button', { name: 'Sign In' }).click();
  await expect(fresh.getByText(/Invalid email or password/)).toBeVisible();
  await fresh.getByLabel('Email Address').fill(newEmail);
  await fresh.getByRole('button', { name: 'Sign In' }).click();
  await fresh.waitForURL('**/my-home');
  await other.close();
  expect(errors).toEqual([]);
});
