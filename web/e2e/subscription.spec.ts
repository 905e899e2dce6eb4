import { expect, test, type Page } from '@playwright/test';
import { collectErrors, signUpAndSignIn, snap } from './helpers';

/**
 * Plans against the real server (test-mode billing): the trial, then "Upgrade to Pro" once
 * the trial has ended, and back to Free — each plan change through a confirmation dialog and
 * POST /api/subscription/plan (issue 10 item 7, issue 19 item 7; spec §2 "Subscription page").
 */

interface ServerSubscription {
  plan: string;
  trialActive: boolean;
  trialEverStarted: boolean;
  effectivePlan: string;
}

async function serverSubscription(page: Page, token: string): Promise<ServerSubscription> {
  const res = await page.request.get('/api/subscription', { headers: { Authorization: `Bearer ${token}` } });
  expect(res.ok()).toBeTruthy();
  return ((await res.json()) as { data: ServerSubscription }).data;
}

test('trial → ended → Upgrade to Pro (confirmed) → back to Free (confirmed)', async ({ page }, testInfo) => {
  // Several page loads and four plan changes; generous for a busy CI machine.
  test.setTimeout(180_000);
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'plans');
  const planCalls: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/subscription\/(trial|plan)$/.test(r.url())) planCalls.push(`${new URL(r.url()).pathname} ${r.postData()}`);
  });
  const freeCard = page.getByRole('article', { name: 'Free', exact: true });
  const proCard = page.getByRole('article', { name: 'Pro', exact: true });

  await test.step('start the 7-day trial', async () => {
    await page.goto('/workspace/subscription');
    // The first visit loads the page's code; a busy machine may take a while.
    await expect(page.getByRole('heading', { name: 'Free Plan', exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(freeCard.getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    await proCard.getByRole('button', { name: 'Start free trial' }).click();
    await expect(page.getByRole('heading', { name: 'Pro Plan (Trial)', exact: true })).toBeVisible();
  });

  await test.step('end the trial: the Free card button acts, after a confirmation', async () => {
    // Downgrading to Free ends any trial (spec §4): the server's own way to end one now.
    await freeCard.getByRole('button', { name: 'Switch to Free' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    await expect(dialog).toContainText('This ends your Pro trial now.');
    await snap(page, 'subscription-end-trial-confirm', testInfo);
    await dialog.getByRole('button', { name: 'Switch to Free' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Free Plan', exact: true })).toBeVisible();
    expect(await serverSubscription(page, token)).toMatchObject({ plan: 'free', trialActive: false, trialEverStarted: true });
  });

  await test.step('after the trial: "Upgrade to Pro" asks, then changes the plan', async () => {
    const upgrade = proCard.getByRole('button', { name: 'Upgrade to Pro' });
    await expect(upgrade).toBeEnabled();
    await expect(freeCard.getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    await upgrade.click();
    const dialog = page.getByRole('alertdialog', { name: 'Upgrade to Pro?' });
    await expect(dialog).toContainText('Your plan changes to Pro now, at ₹1,999 per month');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect((await serverSubscription(page, token)).plan).toBe('free');

    await upgrade.click();
    await snap(page, 'subscription-upgrade-confirm', testInfo);
    await dialog.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Pro Plan', exact: true })).toBeVisible();
    await expect(page.getByText('Renews monthly')).toBeVisible();
    await expect(proCard.getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    expect(await serverSubscription(page, token)).toMatchObject({ plan: 'pro', effectivePlan: 'pro', trialActive: false });
    await snap(page, 'subscription-pro', testInfo);
  });

  await test.step('a Pro user goes back to Free the same way', async () => {
    await freeCard.getByRole('button', { name: 'Switch to Free' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    await expect(dialog).not.toContainText('trial');
    await dialog.getByRole('button', { name: 'Switch to Free' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Free Plan', exact: true })).toBeVisible();
    expect((await serverSubscription(page, token)).plan).toBe('free');
  });

  // The trial endpoint was called once, to start the trial; every other change was a plan change.
  expect(planCalls).toEqual([
    '/api/subscription/trial {"days":7}',
    '/api/subscription/plan {"plan":"free"}',
    '/api/subscription/plan {"plan":"pro"}',
    '/api/subscription/plan {"plan":"free"}',
  ]);
  expect(errors).toEqual([]);
});
