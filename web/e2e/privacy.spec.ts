import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { apiSignUp, collectErrors, snap, uniqueEmail } from './helpers';

/**
 * Issue 31: Profile → Delete account on the real stack (api, worker, Postgres). The dialog
 * says what happens and asks for the password; from the 202 the account cannot sign in and
 * its old session is refused; the worker's erasure job mails the owner, after which the
 * address signs up again as a new account.
 */
test('Delete account: password confirmation, signed out at once, address free again', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const errors = collectErrors(page);
  const email = uniqueEmail('erase');
  const password = 'Sup3r-secret-pw';
  const first = await apiSignUp(request, { email, password, name: 'Erin Erasable' });
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');

  await page.goto('/workspace/profile');
  await page.getByRole('button', { name: 'Delete account' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete your account?' });
  await expect(dialog).toContainText('This cannot be undone.');
  await expect(dialog).toContainText('your subscription is cancelled');
  await dialog.getByLabel('Your password').fill('not-my-password');
  await dialog.getByRole('button', { name: 'Delete my account' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Your password is not correct.');
  await snap(page, 'privacy-delete-dialog', testInfo);
  await dialog.getByLabel('Your password').fill(password);
  await dialog.getByRole('button', { name: 'Delete my account' }).click();
  await page.waitForURL('**/login?accountDeleted=1');
  await expect(page.getByText('Your account is being deleted.')).toBeVisible();

  expect((await request.post('/api/auth/login', { data: { email, password } })).status()).toBe(401);
  expect((await request.get('/api/users/me', { headers: { Authorization: `Bearer ${first.token}` } })).status()).toBe(401);

  // The worker finishes the erasure and mails the owner (the dev mail store).
  const data = process.env.DATA_DIR ?? '.data';
  const outbox = join(isAbsolute(data) ? data : join(process.cwd(), '..', data), 'outbox');
  await expect
    .poll(
      () =>
        existsSync(outbox) &&
        readdirSync(outbox)
          .filter((f) => !f.startsWith('.')) // a mail still being written (temporary file, then renamed)
          .some((f) => {
          const m = JSON.parse(readFileSync(join(outbox, f), 'utf8')) as { to: string; subject: string };
          return m.to === email && m.subject === 'Your Photo3D account has been deleted';
        }),
      { timeout: 60_000, intervals: [500] },
    )
    .toBe(true);
  const again = await apiSignUp(request, { email, password: 'An0ther-secret-pw', name: 'Erin Again' });
  expect(again.user.id).not.toBe(first.user.id);
  expect(errors.filter((e) => !e.includes('401') && !e.includes('400'))).toEqual([]);
});

/** Issue 31 part 3: Profile → Download my data builds a ZIP in the worker; the page shows the link. */
test('Download my data: the worker builds a ZIP and the profile offers it', async ({ page, request }) => {
  test.setTimeout(120_000);
  const email = uniqueEmail('export');
  const password = 'Sup3r-secret-pw';
  const { token } = await apiSignUp(request, { email, password, name: 'Dana Download' });
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  await page.goto('/workspace/profile');
  await page.getByRole('button', { name: 'Download my data' }).click();
  await expect(page.getByText('Your data is ready.')).toBeVisible({ timeout: 60_000 });
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download ZIP' }).click();
  const file = await (await download).path();
  const zip = readFileSync(file);
  expect(zip.subarray(0, 2).toString()).toBe('PK');
  expect(zip.includes(Buffer.from('account.json'))).toBe(true); // the central directory names every entry
  expect(zip.includes(Buffer.from('leads.csv'))).toBe(true);
  const res = await request.get('/api/users/me/export', { headers: { Authorization: `Bearer ${token}` } });
  expect(((await res.json()) as { data: { status: string } }).data.status).toBe('ready');
});
