import { expect, test } from '@playwright/test';
import { uniqueEmail, verificationLink } from './helpers';

/*
 * Issue 50 item 10 (merchant walk 4, H9): "Keep me signed in" ticked at sign-up was ignored by
 * the verification link, which kept the session for its own tab only, and the link always opened
 * /my-home. Here a merchant follows a link into the workspace, is sent to sign in, creates an
 * account with the box ticked, opens the mailed link in a new tab (as a mail client does), sees
 * the spec's "Account created successfully! Redirecting..." and lands where they were going; a
 * further tab is still signed in.
 */
test.setTimeout(120_000);

test('"Keep me signed in" at sign-up carries through the mailed link, which returns where sign-up began (issue 50 item 10)', async ({ page, context }) => {
  const email = uniqueEmail('keepme');
  await page.goto('/workspace/products?status=draft');
  await page.waitForURL('**/login');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.waitForURL('**/signup');
  await page.getByLabel('Full Name').fill('Meera Shah');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('Sup3r-secret-pw');
  await page.getByLabel('Confirm Password').fill('Sup3r-secret-pw');
  await page.getByLabel('Keep me signed in for 24 hours').check();
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();

  const tab = await context.newPage();
  await tab.goto(await verificationLink(email));
  await expect(tab.getByText('Account created successfully! Redirecting...')).toBeVisible();
  await tab.waitForURL('**/workspace/products?status=draft');
  await expect(tab.getByRole('heading', { name: 'My Products', level: 1 })).toBeVisible();

  // Kept for the browser, not only for that tab.
  const another = await context.newPage();
  await another.goto('/workspace/catalogs');
  await expect(another.getByRole('heading', { name: 'All Catalogs', level: 1 })).toBeVisible();
  expect(new URL(another.url()).pathname).toBe('/workspace/catalogs');
});
