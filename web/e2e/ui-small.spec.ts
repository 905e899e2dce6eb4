import { expect, test, type Page } from '@playwright/test';
import { collectErrors, signUpAndSignIn } from './helpers';

// Issue 29 items 15/16: small texts a visitor reads on an open server (the e2e stack
// runs SIGNUP_MODE=open with no waitlist form), and the notifications popover's action.

test('open server: landing and login say what they do, no dead newsletter field', async ({ page }) => {
  const errors = collectErrors(page);
  await page.goto('/');
  const hero = page.locator('.landing__hero');
  await expect(hero.getByRole('link', { name: 'Create an account' })).toHaveAttribute('href', '/signup');
  await expect(page.getByRole('link', { name: 'Join the waitlist' })).toHaveCount(0);
  await expect(page.getByLabel('Newsletter')).toHaveCount(0);

  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  await expect(page.getByText('Sign in to your account')).toBeVisible();
  await expect(page.getByText('Invite-only access')).toHaveCount(0);
  expect(errors).toEqual([]);
});

async function expectInside(page: Page) {
  const panel = page.getByRole('menu', { name: 'Workspace updates' });
  await expect(panel).toBeVisible();
  const action = panel.getByRole('menuitem', { name: 'Mark all as read' });
  await expect(action).toBeVisible();
  const p = (await panel.boundingBox())!;
  const a = (await action.boundingBox())!;
  // The whole action lies inside the panel (which clips what overflows it).
  expect(a.x).toBeGreaterThanOrEqual(p.x);
  expect(a.x + a.width).toBeLessThanOrEqual(p.x + p.width + 0.5);
  expect(a.y + a.height).toBeLessThanOrEqual(p.y + p.height + 0.5);
}

test('notifications popover: "Mark all as read" is never clipped', async ({ page }) => {
  test.setTimeout(120_000);
  await signUpAndSignIn(page, 'uismall');
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }, { width: 320, height: 640 }]) {
    await page.setViewportSize(size);
    await page.goto('/my-home');
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await expectInside(page);
  }
  await page.goto('/workspace/notifications');
  await expect(page.getByText('Your builds, published pages, captured leads and plan.')).toBeVisible();
});
