import { expect, test } from '@playwright/test';
import { apiSignUp, collectErrors, signUpAndSignIn, snap, uniqueEmail } from './helpers';

/** Layout details of the accounts spec that only a real browser can measure (issue 10 item 8). */

// Each test loads pages cold (lazy chunks, the 3D viewer): generous for a busy CI machine.
test.describe.configure({ timeout: 120_000 });
const firstPaint = { timeout: 30_000 };

test('account menu dropdown is 320px wide (spec §2: "Dropdown width 320px")', async ({ page }) => {
  const errors = collectErrors(page);
  await signUpAndSignIn(page, 'menu');
  await page.getByRole('button', { name: 'Account menu' }).click();
  const menu = page.getByRole('menu', { name: 'Account' });
  await expect(menu).toBeVisible(firstPaint);
  expect((await menu.boundingBox())?.width).toBe(320);
  expect(errors).toEqual([]);
});

test('sign-in shows "Logged in successfully! Redirecting..." before it leaves', async ({ page }) => {
  const { email } = (await apiSignUp(page.request, { email: uniqueEmail('login'), password: 'Sup3r-secret-pw', name: 'Lee' })).user;
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill('Sup3r-secret-pw');
  await page.getByRole('button', { name: 'Sign In' }).click();
  // The message lives on the sign-in page only: seeing it means it was shown before leaving.
  await expect(page.getByText('Logged in successfully! Redirecting...')).toBeVisible(firstPaint);
  await page.waitForURL('**/my-home');
});

test.describe('marketing menu: mobile under 900px, desktop and section stepping at 900px (spec §2)', () => {
  test('899px: the menu button, not the desktop links', async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 899, height: 800 });
    await page.goto('/demo');
    const toggle = page.getByRole('button', { name: 'Open menu' });
    await expect(toggle).toBeVisible(firstPaint);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toBeHidden();
    await toggle.click();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toBeVisible();
    await snap(page, 'marketing-899-menu', testInfo);
  });

  test('900px: the desktop links, and a key steps one full section', async ({ page }) => {
    await page.setViewportSize({ width: 900, height: 800 });
    await page.goto('/');
    await expect(page.getByRole('heading', { name: /Turn one product photo/ })).toBeVisible(firstPaint);
    await expect(page.getByRole('button', { name: 'Open menu' })).toBeHidden();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toBeVisible();
    await page.keyboard.press('ArrowDown');
    // Stepping scrolls the second full-screen section to the top; a plain arrow key would
    // only scroll a few lines.
    await expect
      // Within a pixel of the top (Math.abs: a top of -0.3 px rounds to -0).
      .poll(() => page.evaluate(() => Math.abs(Math.round(document.querySelectorAll('[data-step-section]')[1].getBoundingClientRect().top))))
      .toBe(0);
  });
});

test('demo page says what its samples are: generated models with software-rendered reference images', async ({ page }) => {
  await page.goto('/demo');
  await expect(page.getByText(/Sample models generated in code, each beside a software-rendered reference image/)).toBeVisible(firstPaint);
  await expect(page.getByRole('img', { name: 'Reference image: Bed' })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(/from one photo|reference photo/i);
});
