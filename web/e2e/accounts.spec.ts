import { expect, test } from '@playwright/test';
import { collectErrors, openVerificationLink, snap, uniqueEmail } from './helpers';

// One merchant's journey through the accounts & workspace spec, against the real server.
test.describe.configure({ mode: 'serial' });

const email = uniqueEmail('asha');
const password = 'Sup3r-secret-pw';

test('signup → dashboard → logout → guarded settings → login back → branding → trial → credits', async ({ page }, testInfo) => {
  // Many cold page loads plus sign-in's 1.5 s success message: generous for a busy machine
  // (at load 28 on 2 cores a full-page screenshot alone took over a minute).
  test.setTimeout(300_000);
  const errors = collectErrors(page);

  await test.step('landing and public pages', async () => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: /Turn one product photo/ })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Create an account' }).first()).toBeVisible();
    await snap(page, '01-landing', testInfo);
    await page.goto('/blog');
    await expect(page.getByText('Stories are on their way.')).toBeVisible();
    await expect(page.getByText('Blog launching soon')).toBeVisible();
    await snap(page, '02-blog', testInfo);
    await page.goto('/demo');
    await expect(page.getByRole('heading', { name: '3D Model Demo' })).toBeVisible();
    await snap(page, '03-demo', testInfo);
  });

  await test.step('signup with a unique email', async () => {
    await page.goto('/signup');
    await expect(page.getByRole('heading', { name: 'Create Account' })).toBeVisible();
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please fill in all fields');
    await page.getByLabel('Full Name').fill('Asha Rao');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm Password').fill(password);
    await expect(page.getByText('Passwords match')).toBeVisible();
    await snap(page, '04-signup', testInfo);
    await page.getByRole('button', { name: 'Create Account' }).click();
    // A new password account signs in from the link mailed to it (issue 28 item 14).
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    await snap(page, '04b-check-your-email', testInfo);
    await openVerificationLink(page, email);
  });

  await test.step('dashboard greets by first name', async () => {
    await page.waitForURL('**/my-home');
    await expect(page.getByRole('heading', { name: /^Good (Morning|Afternoon|Evening), Asha$/ })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Resume where you left off...' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Quick Actions' })).toBeVisible();
    await snap(page, '05-dashboard', testInfo);
  });

  await test.step('notifications and account menus', async () => {
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await expect(page.getByRole('heading', { name: 'Workspace updates' })).toBeVisible();
    await snap(page, '06-notifications-menu', testInfo);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('heading', { name: 'Workspace updates' })).toBeHidden();
    await page.goto('/workspace/notifications');
    await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
    await snap(page, '07-notifications-page', testInfo);
  });

  await test.step('logout', async () => {
    await page.getByRole('button', { name: 'Account menu' }).click();
    await expect(page.getByText('Hi, Asha')).toBeVisible();
    await snap(page, '08-account-menu', testInfo);
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
    await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  });

  await test.step('guarded settings redirects to login', async () => {
    await page.goto('/workspace/settings');
    await page.waitForURL('**/login');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please enter your email address');
    await snap(page, '09-login', testInfo);
  });

  await test.step('login returns to settings', async () => {
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/workspace/settings');
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  });

  await test.step('branding saved survives a reload', async () => {
    await page.getByLabel('Brand name').fill('Rao Furniture');
    await page.getByLabel('Brand colour', { exact: true }).fill('#1A4D8F');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await expect(page.getByText('Branding saved')).toBeVisible();
    await snap(page, '10-settings', testInfo);
    await page.reload();
    await expect(page.getByLabel('Brand name')).toHaveValue('Rao Furniture');
    await expect(page.getByLabel('Brand colour', { exact: true })).toHaveValue(/^#1A4D8F$/i);
  });

  await test.step('profile page', async () => {
    await page.goto('/workspace/profile');
    await expect(page.getByRole('heading', { name: 'My Profile' })).toBeVisible();
    await expect(page.getByLabel('First name')).toHaveValue('Asha');
    await snap(page, '11-profile', testInfo);
  });

  await test.step('start the trial: Pro Plan (Trial) and Gallery in the sidebar', async () => {
    await page.goto('/workspace/subscription');
    await expect(page.getByRole('heading', { name: 'My Subscription' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Free Plan' })).toBeVisible();
    const sidebar = page.getByRole('complementary', { name: 'Workspace' });
    await expect(sidebar.getByRole('link', { name: 'Gallery' })).toHaveCount(0);
    await snap(page, '12-subscription-free', testInfo);
    await page.getByRole('button', { name: 'Start free trial' }).click();
    await expect(page.getByRole('heading', { name: 'Pro Plan (Trial)' })).toBeVisible();
    await expect(page.getByText('Trial active — enjoy Pro features')).toBeVisible();
    await expect(sidebar.getByRole('link', { name: 'Gallery' })).toBeVisible();
  });

  await test.step('buy credits: the meter updates', async () => {
    const meter = page.getByTestId('meter-ai-credits');
    const before = await meter.locator('.usage__numbers').innerText();
    const limitBefore = Number(before.split('/')[1].replace(/[^\d]/g, ''));
    await page.getByRole('button', { name: 'Buy 20 credits' }).click();
    // Every purchase asks first (issue 50, P17).
    await page.getByRole('alertdialog', { name: 'Buy 20 AI credits?' }).getByRole('button', { name: 'Buy 20 credits' }).click();
    await expect(page.getByText('Added 20 AI credits')).toBeVisible();
    await expect(meter.locator('.usage__numbers')).toHaveText(new RegExp(`/ ${(limitBefore + 20).toLocaleString('en-IN')}$`));
    await snap(page, '13-subscription-trial', testInfo);
  });

  expect(errors).toEqual([]);
});

test('responsive shell: drawer below 968px', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 768, height: 1000 });
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  const sidebar = page.getByRole('complementary', { name: 'Workspace' });
  await expect(sidebar).not.toBeInViewport();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await expect(sidebar).toBeInViewport();
  await snap(page, '14-mobile-drawer', testInfo);
  await sidebar.getByRole('link', { name: 'Subscription' }).click();
  await page.waitForURL('**/workspace/subscription');
  await expect(sidebar).not.toBeInViewport();
  await page.setViewportSize({ width: 640, height: 900 });
  await snap(page, '15-subscription-640', testInfo);
});
