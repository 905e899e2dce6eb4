import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { collectErrors, signUpAndSignIn, snap } from './helpers';

/**
 * Real payments (issue 30) against the second api of ops/test.sh, which sells through Stripe
 * (BILLING_PROVIDER=stripe, the Stripe API answered by stripe-mock). The card form itself is
 * Stripe's page: the test intercepts the browser at that boundary, as a shopper's card would
 * be, then delivers the webhook Stripe would send — signed with the endpoint's secret exactly
 * as Stripe signs (t=…,v1=HMAC-SHA256(secret, "t.payload")) — to the running api.
 */

const billingBase = process.env.BILLING_BASE_URL;
const webhookSecret = process.env.E2E_STRIPE_WEBHOOK_SECRET ?? '';
// The API version stripe-go v82 (and so the server) expects on events.
const stripeAPIVersion = '2025-08-27.basil';

test.use({ baseURL: billingBase });
test.skip(!billingBase || !webhookSecret, 'needs the Stripe api that ops/test.sh starts (BILLING_BASE_URL, E2E_STRIPE_WEBHOOK_SECRET)');

function signed(payload: string, secret: string, at = Math.floor(Date.now() / 1000)) {
  const v1 = createHmac('sha256', secret).update(`${at}.${payload}`).digest('hex');
  return { 'Stripe-Signature': `t=${at},v1=${v1}`, 'Content-Type': 'application/json' };
}

function paidCheckout(eventId: string, userId: string) {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: stripeAPIVersion,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_test_${eventId}`,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        payment_status: 'paid',
        client_reference_id: userId,
        customer: `cus_${eventId}`,
        subscription: `sub_${eventId}`,
        amount_total: 199900,
        currency: 'inr',
        metadata: { kind: 'pro', packs: '1', user_id: userId },
      },
    },
  });
}

async function serverPlan(page: Page, token: string) {
  const res = await page.request.get('/api/subscription', { headers: { Authorization: `Bearer ${token}` } });
  expect(res.ok()).toBeTruthy();
  return ((await res.json()) as { data: { plan: string; effectivePlan: string; trialActive: boolean } }).data;
}

test('Upgrade → Stripe Checkout → signed webhook → "Payment received — activating Pro…" → Pro', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'billing');
  const auth = { Authorization: `Bearer ${token}` };
  const me = await page.request.get('/api/users/me', { headers: auth });
  const userId = ((await me.json()) as { data: { id: string } }).data.id;
  // During the 7-day trial (no card needed) the merchant may pay for Pro at once.
  expect((await page.request.post('/api/subscription/trial', { headers: auth, data: {} })).ok()).toBeTruthy();

  let checkoutURL = '';
  await page.route('https://checkout.stripe.com/**', async (route) => {
    checkoutURL = route.request().url();
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Checkout</title><h1>Stripe Checkout</h1>' });
  });

  const proCard = page.getByRole('article', { name: 'Pro', exact: true });
  await test.step('Upgrade goes to Stripe Checkout and grants nothing by itself', async () => {
    await page.goto('/workspace/subscription');
    await expect(page.getByRole('heading', { name: 'Pro Plan (Trial)', exact: true })).toBeVisible({ timeout: 30_000 });
    await proCard.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await expect(page.getByRole('heading', { name: 'Stripe Checkout' })).toBeVisible();
    expect(checkoutURL).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(await serverPlan(page, token)).toMatchObject({ plan: 'free', trialActive: true });
  });

  await test.step('back from Checkout: waiting for Stripe, the return URL grants nothing', async () => {
    await page.goto('/workspace/subscription?checkout=success&kind=pro');
    await expect(page.getByText('Payment received — activating Pro…')).toBeVisible({ timeout: 30_000 });
    await snap(page, 'billing-activating', testInfo);
    // Two more reads of the subscription by the page's own poll, and it still waits for Stripe.
    for (let i = 0; i < 2; i++) {
      await page.waitForResponse((r) => new URL(r.url()).pathname === '/api/subscription' && r.request().method() === 'GET');
    }
    await expect(page.getByText('Payment received — activating Pro…')).toBeVisible();
    expect((await serverPlan(page, token)).plan).toBe('free');
  });

  await test.step('a forged webhook is refused and changes nothing', async () => {
    const payload = paidCheckout(`evt_forged_${Date.now()}`, userId);
    const res = await page.request.post('/api/billing/stripe/webhook', { headers: signed(payload, 'whsec_not_the_endpoint_secret_0123456789'), data: payload });
    expect(res.status()).toBe(400);
    expect((await serverPlan(page, token)).plan).toBe('free');
  });

  await test.step("Stripe's signed checkout.session.completed makes Pro, and the page shows it", async () => {
    const payload = paidCheckout(`evt_e2e_${Date.now()}`, userId);
    const res = await page.request.post('/api/billing/stripe/webhook', { headers: signed(payload, webhookSecret), data: payload });
    expect(res.status(), await res.text()).toBe(200);
    await expect(page.getByRole('heading', { name: 'Pro Plan', exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('Payment received — activating Pro…')).toBeHidden();
    await expect(page.getByRole('button', { name: 'Manage billing', exact: true })).toBeEnabled();
    expect(new URL(page.url()).search).toBe('');
    // Delivered again (Stripe retries): applied once.
    const again = await page.request.post('/api/billing/stripe/webhook', { headers: signed(payload, webhookSecret), data: payload });
    expect(((await again.json()) as { data: { outcome: string } }).data.outcome).toBe('duplicate');
    expect(await serverPlan(page, token)).toMatchObject({ plan: 'pro', effectivePlan: 'pro', trialActive: false });
    await snap(page, 'billing-pro', testInfo);
  });

  await test.step('Manage billing opens the Stripe Customer Portal', async () => {
    let portalURL = '';
    await page.route(/^https:\/\/[^/]*stripe\.(com|me)\//, async (route) => {
      portalURL = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Portal</title><h1>Customer Portal</h1>' });
    });
    await page.getByRole('button', { name: 'Manage billing', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Customer Portal' })).toBeVisible();
    expect(portalURL).not.toBe('');
  });
  expect(errors).toEqual([]);
});
