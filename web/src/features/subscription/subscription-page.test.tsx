import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription, trialSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { navigation } from './billing-redirect';
import { pricingNote } from './subscription-page';
import type { Subscription } from '../../entities/subscription/subscription-api';

afterEach(() => vi.unstubAllGlobals());

function server(initial: Subscription, extra: Parameters<typeof stubFetch>[0] = {}) {
  let sub = initial;
  const fake = stubFetch({
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha', lastName: 'Rao' }),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/subscription': () => sub,
    'POST /api/subscription/trial': () => {
      if (sub.trialEverStarted) return jsonResponse({ success: false, error: { code: 'trial_used', message: 'The free trial has already been used' } }, 409);
      sub = trialSubscription();
      return sub;
    },
    'POST /api/subscription/plan': ({ body }) => {
      const plan = (body as { plan: 'free' | 'pro' }).plan;
      const base = freeSubscription({ trialEverStarted: sub.trialEverStarted });
      sub = plan === 'pro' ? { ...trialSubscription(), plan: 'pro', trialActive: false, trialStartedAt: null, trialEndsAt: null, trialEverStarted: sub.trialEverStarted } : base;
      return sub;
    },
    'POST /api/subscription/addons': ({ body }) => {
      const b = body as { kind: string; amount: number };
      sub =
        b.kind === 'credits'
          ? { ...sub, aiCreditsPurchased: sub.aiCreditsPurchased + b.amount, aiCreditBalance: (sub.aiCreditBalance ?? 0) + b.amount }
          : { ...sub, publicViewsPurchased: sub.publicViewsPurchased + b.amount, publicViewsBalance: (sub.publicViewsBalance ?? 0) + b.amount };
      return sub;
    },
    ...extra,
  });
  return fake;
}

async function open() {
  signIn();
  const utils = renderRoutes(routes, ['/workspace/subscription']);
  await screen.findByRole('heading', { name: 'My Subscription' });
  return utils;
}

describe('SubscriptionPage', () => {
  it('free plan: card, meters, plans, add-ons and button rules', async () => {
    server(freeSubscription());
    await open();
    expect(screen.getByRole('button', { name: 'Upgrade plan' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Free Plan' })).toBeInTheDocument();
    expect(screen.getByText('Upgrade to unlock Pro features')).toBeInTheDocument();
    const credits = screen.getByTestId('meter-ai-credits');
    expect(within(credits).getByText('1 / 5')).toBeInTheDocument();
    expect(within(credits).getByText('4 remaining')).toBeInTheDocument();
    expect(within(credits).getByRole('meter')).toHaveAttribute('aria-valuenow', '20');
    expect(within(credits).getByRole('button', { name: '+20 credits (₹500)' })).toBeInTheDocument();
    expect(within(screen.getByTestId('meter-public-views')).getByRole('button', { name: '+10,000 views (₹500)' })).toBeInTheDocument();
    expect(screen.getByText('Only AI Credits and Public Views are metered.')).toBeInTheDocument();
    expect(screen.getByText('MOST POPULAR')).toBeInTheDocument();
    expect(screen.getByText('25,000 public product views in total')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Start free trial' })).toBeEnabled();
    // Issue 50, P16: the trial's terms before it starts, and what the prices mean.
    expect(screen.getByRole('button', { name: 'Start free trial' })).toHaveAccessibleDescription('7-day free trial, no card');
    expect(screen.getByText(/Plan prices are per month\. Public product views are a total/)).toBeInTheDocument();
    // Issue 50, P18: where Settings' "Invoices and receipts" leads, in test mode.
    expect(document.getElementById('invoices')).toHaveTextContent('this server bills in test mode, so nothing is charged and no invoices are issued');
    expect(screen.getByRole('button', { name: 'Buy 20 credits' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Buy 10,000 views' })).toBeInTheDocument();
  });

  it('starting the trial updates the page and the sidebar without reload', async () => {
    const { calls } = server(freeSubscription());
    await open();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Start free trial' }));
    expect(await screen.findByRole('heading', { name: 'Pro Plan (Trial)' })).toBeInTheDocument();
    expect(screen.getByText('Trial active — enjoy Pro features')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Upgrade plan' })).not.toBeInTheDocument();
    expect(calls.find((c) => c.url === '/api/subscription/trial')?.body).toEqual({ days: 7 });
    const sidebar = screen.getByRole('complementary', { name: 'Workspace' });
    expect(await within(sidebar).findByRole('link', { name: 'Gallery' })).toBeInTheDocument();
    // Issue 29 item 12: during a trial paying for Pro stays possible, not only "Switch to Free".
    // (enabled after the 300 ms double-click cooldown that follows starting the trial)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upgrade to Pro' })).toBeEnabled(), { timeout: 3000 });
  });

  it('buying credits and views updates the meters and confirms', async () => {
    const { calls } = server(freeSubscription());
    await open();
    const user = userEvent.setup();
    // Every purchase asks first, as Upgrade to Pro does (issue 50, P17); Cancel buys nothing.
    await user.click(screen.getByRole('button', { name: 'Buy 20 credits' }));
    let dialog = screen.getByRole('alertdialog', { name: 'Buy 20 AI credits?' });
    expect(dialog).toHaveTextContent('20 AI credits are added to your account now, for ₹500.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.url === '/api/subscription/addons')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Buy 20 credits' }));
    dialog = screen.getByRole('alertdialog', { name: 'Buy 20 AI credits?' });
    await user.click(within(dialog).getByRole('button', { name: 'Buy 20 credits' }));
    expect(await screen.findByText('Added 20 AI credits')).toBeInTheDocument();
    await waitFor(() => expect(within(screen.getByTestId('meter-ai-credits')).getByText('1 / 25')).toBeInTheDocument());
    expect(within(screen.getByTestId('meter-ai-credits')).getByText('24 remaining')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '+10,000 views (₹500)' }));
    await user.click(within(screen.getByRole('alertdialog', { name: 'Buy 10,000 public views?' })).getByRole('button', { name: 'Buy 10,000 views' }));
    expect(await screen.findByText('Added 10,000 views')).toBeInTheDocument();
    await waitFor(() => expect(within(screen.getByTestId('meter-public-views')).getByText('0 / 10,000')).toBeInTheDocument());
    expect(calls.filter((c) => c.url === '/api/subscription/addons').map((c) => c.body)).toEqual([
      { kind: 'credits', amount: 20 },
      { kind: 'views', amount: 10000 },
    ]);
  });

  // Spec §2: the Pro button reads "'Upgrade to Pro' if a trial … was ever started". Issue 10
  // item 7: it changes the plan (POST /api/subscription/plan) after a confirmation, and never
  // calls the trial endpoint again; a Pro user goes back to Free the same way.
  it('after a used trial "Upgrade to Pro" asks, then changes the plan; "Switch to Free" goes back', async () => {
    const { calls } = server(freeSubscription({ trialEverStarted: true }));
    await open();
    const user = userEvent.setup();
    expect(screen.getByRole('button', { name: 'Current Plan' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Upgrade to Pro' }));
    let dialog = screen.getByRole('alertdialog', { name: 'Upgrade to Pro?' });
    expect(dialog).toHaveTextContent('Your plan changes to Pro now, at ₹1,999 per month');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Upgrade to Pro' }));
    dialog = screen.getByRole('alertdialog', { name: 'Upgrade to Pro?' });
    await user.click(within(dialog).getByRole('button', { name: 'Upgrade to Pro' }));
    expect(await screen.findByRole('heading', { name: 'Pro Plan' })).toBeInTheDocument();
    expect(screen.getByText('Renews monthly')).toBeInTheDocument();
    expect(screen.getByText('You are now on the Pro plan')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Current Plan' })).toBeDisabled();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.url, c.body])).toEqual([['/api/subscription/plan', { plan: 'pro' }]]);

    await user.click(screen.getByRole('button', { name: 'Switch to Free' }));
    dialog = screen.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    expect(dialog).not.toHaveTextContent('This ends your Pro trial now.');
    await user.click(within(dialog).getByRole('button', { name: 'Switch to Free' }));
    expect(await screen.findByRole('heading', { name: 'Free Plan' })).toBeInTheDocument();
    expect(screen.getByText('You are now on the Free plan')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').at(-1)).toMatchObject({ url: '/api/subscription/plan', body: { plan: 'free' } });
    expect(calls.some((c) => c.url === '/api/subscription/trial')).toBe(false);
  });

  // Issue 19 item 7: the Free card's button is enabled during a trial, so it must act: it ends
  // the trial ("Upgrade to pro and downgrade to free both end any trial", spec §4).
  it('during a trial the Free card button ends the trial after a confirmation', async () => {
    const { calls } = server(trialSubscription());
    await open();
    const user = userEvent.setup();
    const button = screen.getByRole('button', { name: 'Switch to Free' });
    expect(button).toBeEnabled();
    await user.click(button);
    const dialog = screen.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    expect(dialog).toHaveTextContent('This ends your Pro trial now. A trial can be used only once.');
    await user.click(within(dialog).getByRole('button', { name: 'Switch to Free' }));
    expect(await screen.findByRole('heading', { name: 'Free Plan' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upgrade to Pro' })).toBeEnabled();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ plan: 'free' }]);
  });

  it('unlimited meters read Unlimited at 0%', async () => {
    server(freeSubscription({ plan: 'enterprise', effectivePlan: 'enterprise', aiCreditsIncluded: null, aiCreditBalance: null, aiCreditsUsed: 12 }));
    await open();
    const credits = screen.getByTestId('meter-ai-credits');
    expect(within(credits).getByText('12 / Unlimited')).toBeInTheDocument();
    expect(within(credits).getByRole('meter')).toHaveAttribute('aria-valuenow', '0');
  });
});

describe('SubscriptionPage billing (issues 29 item 12, 30)', () => {
  const stripeBilling = {
    provider: 'stripe',
    purchases: 'checkout',
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    graceUntil: null,
    paymentFailed: false,
    canManage: false,
  } as const;

  it('a server that refuses purchases says why and offers no enabled purchase button', async () => {
    const notice = 'Purchases are not available on this server. Please contact support to change your plan.';
    server(freeSubscription({ trialEverStarted: true, billing: { ...stripeBilling, provider: 'none', purchases: 'disabled', notice } }));
    await open();
    expect(screen.getAllByText(notice).length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Upgrade to Pro' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Buy 20 credits' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Buy 10,000 views' })).toBeDisabled();
    expect(screen.getByRole('button', { name: '+20 credits (₹500)' })).toBeDisabled();
  });

  it('Upgrade and Buy go to Stripe Checkout; nothing changes until the server confirms', async () => {
    const go = vi.spyOn(navigation, 'goTo').mockImplementation(() => {});
    const fake = server(freeSubscription({ trialEverStarted: true, billing: stripeBilling }), {
      'POST /api/billing/checkout': () => ({ url: 'https://checkout.stripe.com/c/pay/cs_test_1' }),
    });
    await open();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Upgrade to Pro' }));
    await waitFor(() => expect(go).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    await user.click(screen.getByRole('button', { name: 'Buy 20 credits' }));
    await waitFor(() => expect(go).toHaveBeenCalledTimes(2));
    expect(fake.calls.filter((c) => c.url === '/api/billing/checkout').map((c) => c.body)).toEqual([{ kind: 'pro' }, { kind: 'credits', packs: 1 }]);
    expect(fake.calls.some((c) => c.url === '/api/subscription/plan')).toBe(false);
    expect(screen.getByRole('heading', { name: 'Free Plan' })).toBeInTheDocument();
  });

  it('back from Checkout: "Payment received — activating Pro…" until the server has it, then Pro', async () => {
    let sub = freeSubscription({ trialEverStarted: true, billing: stripeBilling });
    server(sub, { 'GET /api/subscription': () => sub });
    signIn();
    renderRoutes(routes, ['/workspace/subscription?checkout=success&kind=pro']);
    expect(await screen.findByText('Payment received — activating Pro…')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Free Plan' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upgrade to Pro' })).toBeDisabled(); // no second payment while the first is confirmed
    sub = { ...sub, plan: 'pro', effectivePlan: 'pro', canSharePublic: true, billing: { ...stripeBilling, canManage: true, status: 'active' } };
    expect(await screen.findByRole('heading', { name: 'Pro Plan' }, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Payment received — activating Pro…')).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Manage billing' })).toBeEnabled();
  });

  it('a failed renewal shows the grace period, Manage billing opens the portal, a cancellation reads "Pro until DATE"', async () => {
    const go = vi.spyOn(navigation, 'goTo').mockImplementation(() => {});
    const pro = { ...trialSubscription(), plan: 'pro' as const, trialActive: false, trialStartedAt: null, trialEndsAt: null };
    server(
      {
        ...pro,
        billing: { ...stripeBilling, canManage: true, status: 'active', paymentFailed: true, graceUntil: '2026-12-02T10:00:00Z', currentPeriodEnd: '2026-12-25T10:00:00Z', cancelAtPeriodEnd: true },
      },
      { 'POST /api/billing/portal': () => ({ url: 'https://billing.stripe.com/p/session/test_1' }) },
    );
    await open();
    expect(screen.getByText(/Your last payment failed\. Pro stays active until 2 December 2026/)).toBeInTheDocument();
    expect(screen.getByText('Pro until 25 December 2026')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Free from 25 December 2026' })).toBeEnabled();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Manage billing' }));
    await waitFor(() => expect(go).toHaveBeenCalledWith('https://billing.stripe.com/p/session/test_1'));
  });

  it('credits held by a running build are shown, so used + held + remaining = limit', async () => {
    server(freeSubscription({ aiCreditsUsed: 1, aiCreditsReserved: 1, aiCreditBalance: 3 }));
    await open();
    const credits = screen.getByTestId('meter-ai-credits');
    expect(within(credits).getByText('1 / 5')).toBeInTheDocument();
    expect(within(credits).getByText('3 remaining')).toBeInTheDocument();
    expect(within(credits).getByText('1 held by a build in progress')).toBeInTheDocument();
  });

  it('Enterprise is not offered Pro and shows no Pro price', async () => {
    server(freeSubscription({ plan: 'enterprise', effectivePlan: 'enterprise' }));
    await open();
    expect(screen.getByText('Custom pricing')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Included in Enterprise' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Upgrade to Pro' })).not.toBeInTheDocument();
  });
});

describe('SubscriptionPage freshness (issue 29 item 12)', () => {
  it('re-reads the meters on every visit: credits spent elsewhere in the app show without a reload', async () => {
    let sub = freeSubscription();
    server(sub, { 'GET /api/subscription': () => sub, 'GET /api/products': () => ({ items: [], total: 0 }) });
    await open();
    expect(within(screen.getByTestId('meter-ai-credits')).getByText('1 / 5')).toBeInTheDocument();
    const user = userEvent.setup();
    const sidebar = screen.getByRole('complementary', { name: 'Workspace' });
    await user.click(within(sidebar).getByRole('link', { name: 'Products' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'My Subscription' })).not.toBeInTheDocument());
    sub = { ...sub, aiCreditsUsed: 2, aiCreditBalance: 3 }; // a build finished on another page
    await user.click(within(sidebar).getByRole('link', { name: 'Subscription' }));
    await waitFor(() => expect(within(screen.getByTestId('meter-ai-credits')).getByText('2 / 5')).toBeInTheDocument());
    expect(within(screen.getByTestId('meter-ai-credits')).getByText('3 remaining')).toBeInTheDocument();
  });

  // Issue 50 item 6 (merchant walk 4, H5): the confirmation says which live pages go offline.
  it('"Switch to Free" warns how many live pages go offline', async () => {
    const pro = { ...trialSubscription(), plan: 'pro' as const, trialActive: false, trialStartedAt: null, trialEndsAt: null, trialEverStarted: true };
    server({ ...pro, livePages: { products: 2, galleries: 1, blueprints: 0 } });
    await open();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Switch to Free' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    expect(within(dialog).getByTestId('free-switch-warning')).toHaveTextContent(
      'Your 2 live product pages and 1 live gallery page will go offline now: the Free plan includes no public views, so shoppers will see “temporarily unavailable”. They stay published and come back when you upgrade to Pro again.',
    );
    await user.keyboard('{Escape}');
  });

  it('"Switch to Free" with no live page has no warning', async () => {
    const pro = { ...trialSubscription(), plan: 'pro' as const, trialActive: false, trialStartedAt: null, trialEndsAt: null, trialEverStarted: true };
    server({ ...pro, livePages: { products: 0, galleries: 0, blueprints: 0 } });
    await open();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Switch to Free' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Switch to the Free plan?' });
    expect(within(dialog).queryByTestId('free-switch-warning')).not.toBeInTheDocument();
  });

  it('says plans are charged in rupees when the store sells in another currency (issue 50, P16)', () => {
    expect(pricingNote(undefined)).not.toMatch(/rupees/);
    expect(pricingNote('INR')).not.toMatch(/rupees/);
    expect(pricingNote('EUR')).toMatch(/Plans and packs are charged in Indian rupees \(₹\); your store currency \(EUR\) is for the prices shoppers see\.$/);
  });
});
