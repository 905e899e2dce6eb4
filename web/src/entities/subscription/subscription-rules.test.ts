import { describe, expect, it } from 'vitest';
import {
  activationDone,
  activationMessage,
  addonMessage,
  canPurchase,
  freeButtonActs,
  freeButtonDisabled,
  freeButtonLabel,
  freeSwitchWarning,
  freeViewsLeft,
  meterLimit,
  planPrice,
  planSubtext,
  planTitle,
  proButtonAction,
  proButtonLabel,
  remaining,
  viewsLeft,
  showUpgradeButton,
  usagePercent,
} from './subscription-rules';

const free = { plan: 'free', effectivePlan: 'free', trialActive: false, trialEverStarted: false } as const;
const trial = { plan: 'free', effectivePlan: 'pro', trialActive: true, trialEverStarted: true } as const;
const trialOver = { plan: 'free', effectivePlan: 'free', trialActive: false, trialEverStarted: true } as const;
const pro = { plan: 'pro', effectivePlan: 'pro', trialActive: false, trialEverStarted: false } as const;
const billing = {
  provider: 'stripe',
  purchases: 'checkout',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  graceUntil: null,
  paymentFailed: false,
  canManage: true,
} as const;
const enterprise = { plan: 'enterprise', effectivePlan: 'enterprise', trialActive: false, trialEverStarted: false } as const;

describe('usagePercent (spec §5)', () => {
  it('rounds, caps at 100 and is 0 when unlimited', () => {
    expect(usagePercent(0, 5)).toBe(0);
    expect(usagePercent(1, 3)).toBe(33);
    expect(usagePercent(2, 3)).toBe(67);
    expect(usagePercent(5, 5)).toBe(100);
    expect(usagePercent(9, 5)).toBe(100);
    expect(usagePercent(1000, null)).toBe(0);
    expect(usagePercent(0, 0)).toBe(0);
    expect(usagePercent(1, 0)).toBe(100);
  });
  it('limits are included + purchased; remaining floors at 0', () => {
    expect(meterLimit(5, 20)).toBe(25);
    expect(meterLimit(null, 20)).toBeNull();
    expect(remaining(25, 3)).toBe(22);
    expect(remaining(5, 9)).toBe(0);
    expect(remaining(25, 3, 21)).toBe(21);
    expect(remaining(null, 3, null)).toBeNull();
    // 1 view served, 49 leased to a share-page server: 24,999 of 25,000 are left.
    expect(remaining(25000, 1, viewsLeft(24950, 49))).toBe(24999);
    expect(viewsLeft(null, 49)).toBeNull();
  });
});

describe('plan card', () => {
  it('titles', () => {
    expect(planTitle(free)).toBe('Free Plan');
    expect(planTitle(trial)).toBe('Pro Plan (Trial)');
    expect(planTitle(pro)).toBe('Pro Plan');
    expect(planTitle(trialOver)).toBe('Free Plan');
  });
  it('subtexts', () => {
    expect(planSubtext(trial)).toBe('Trial active — enjoy Pro features');
    expect(planSubtext(pro)).toBe('Renews monthly');
    expect(planSubtext(free)).toBe('Upgrade to unlock Pro features');
  });
  it('price', () => {
    expect(planPrice(free, 1999)).toBe(0);
    expect(planPrice(trial, 1999)).toBe(1999);
    expect(planPrice(pro, 1999)).toBe(1999);
  });
  it("'Upgrade plan' only on free without a trial", () => {
    expect(showUpgradeButton(free)).toBe(true);
    expect(showUpgradeButton(trialOver)).toBe(true);
    expect(showUpgradeButton(trial)).toBe(false);
    expect(showUpgradeButton(pro)).toBe(false);
  });
});

describe('plan buttons (spec §2)', () => {
  it('Pro label', () => {
    expect(proButtonLabel(free)).toBe('Start free trial');
    // Issue 29 item 12: a trial can be converted by paying; Enterprise is not sold Pro.
    expect(proButtonLabel(trial)).toBe('Upgrade to Pro');
    expect(proButtonLabel(pro)).toBe('Current Plan');
    expect(proButtonLabel(trialOver)).toBe('Upgrade to Pro');
    expect(proButtonLabel(enterprise)).toBe('Included in Enterprise');
    expect(proButtonLabel({ plan: 'free', effectivePlan: 'free', trialActive: true, trialEverStarted: true })).toBe('Upgrade to Pro');
  });
  // "Only the Pro button acts, and only when the plan is free and no trial is active; it starts a
  // 7-day trial." Issue 10 item 7: after a used trial "Upgrade to Pro" changes the plan instead.
  it('Pro acts on free: a trial first, an upgrade during or after the trial; never where purchases are refused', () => {
    expect(proButtonAction(free)).toBe('trial');
    expect(proButtonAction(trialOver)).toBe('upgrade');
    expect(proButtonAction(trial)).toBe('upgrade');
    expect(proButtonAction(pro)).toBeNull();
    expect(proButtonAction(enterprise)).toBeNull();
    const off = { ...billing, provider: 'none', purchases: 'disabled', notice: 'Purchases are not available on this server.' } as const;
    expect(proButtonAction({ ...trialOver, billing: off })).toBeNull();
    expect(proButtonAction({ ...trial, billing: off })).toBeNull();
    expect(canPurchase({ billing: off })).toBe(false);
    expect(canPurchase({ billing: { ...billing, purchases: 'checkout' } })).toBe(true);
    expect(canPurchase({})).toBe(true);
  });
  it('paid Pro through Stripe: renewal, cancellation at period end, Enterprise by contract', () => {
    const end = '2026-12-25T10:00:00Z';
    expect(planSubtext({ ...pro, billing: { ...billing, currentPeriodEnd: end } })).toBe('Renews 25 December 2026');
    expect(planSubtext({ ...pro, billing: { ...billing, currentPeriodEnd: end, cancelAtPeriodEnd: true } })).toBe('Pro until 25 December 2026');
    expect(planSubtext(enterprise)).toBe('Billed by contract — contact support to change it');
    expect(planPrice(enterprise, 1999)).toBeNull();
  });
  it('activation after Checkout waits for the server, never for the return URL', () => {
    const before = { aiCreditsPurchased: 0, publicViewsPurchased: 0 };
    expect(activationMessage('pro')).toBe('Payment received — activating Pro…');
    expect(activationDone('pro', before, { plan: 'free', trialActive: false, ...before })).toBe(false);
    expect(activationDone('pro', before, { plan: 'free', trialActive: true, ...before })).toBe(false);
    expect(activationDone('pro', before, { plan: 'pro', trialActive: false, ...before })).toBe(true);
    expect(activationDone('credits', before, { plan: 'free', trialActive: false, aiCreditsPurchased: 20, publicViewsPurchased: 0 })).toBe(true);
    expect(activationDone('views', before, { plan: 'free', trialActive: false, aiCreditsPurchased: 20, publicViewsPurchased: 0 })).toBe(false);
  });
  // "Free card label: 'Current Plan' on free without a trial, else 'Start free trial'; it is
  // disabled on free without a trial." Issue 19 item 7: an enabled button must act, so where it
  // is enabled it goes back to Free and says so.
  it('Free label and disabled state: never enabled without acting', () => {
    expect(freeButtonLabel(free)).toBe('Current Plan');
    expect(freeButtonDisabled(free)).toBe(true);
    expect(freeButtonLabel(trialOver)).toBe('Current Plan');
    expect(freeButtonDisabled(trialOver)).toBe(true);
    expect(freeButtonLabel(trial)).toBe('Switch to Free');
    expect(freeButtonActs(trial)).toBe(true);
    expect(freeButtonDisabled(trial)).toBe(false);
    expect(freeButtonLabel(pro)).toBe('Switch to Free');
    expect(freeButtonActs(pro)).toBe(true);
    expect(freeButtonDisabled(pro)).toBe(false);
    expect(freeButtonLabel(enterprise)).toBe('Start free trial');
    expect(freeButtonActs(enterprise)).toBe(false);
    expect(freeButtonDisabled(enterprise)).toBe(true);
  });
  it('add-on messages', () => {
    expect(addonMessage('credits')).toBe('Added 20 AI credits');
    expect(addonMessage('views')).toBe('Added 10,000 views');
  });
});

// Issue 50 item 6: what switching to Free does to the live pages.
describe('freeSwitchWarning', () => {
  const views = { publicViewsPurchased: 0, publicViewsUsed: 0, publicViewsLeased: 0 };
  it('says nothing without live pages (or from an older server)', () => {
    expect(freeSwitchWarning({ ...views })).toBeNull();
    expect(freeSwitchWarning({ ...views, livePages: { products: 0, galleries: 0, blueprints: 0 } })).toBeNull();
  });
  it('counts each kind of page and says they stay published', () => {
    expect(freeSwitchWarning({ ...views, livePages: { products: 1, galleries: 0, blueprints: 0 } })).toBe(
      'Your 1 live product page will go offline now: the Free plan includes no public views, so shoppers will see “temporarily unavailable”. It stays published and comes back when you upgrade to Pro again.',
    );
    expect(freeSwitchWarning({ ...views, livePages: { products: 2, galleries: 1, blueprints: 3 } })).toMatch(
      /^Your 2 live product pages, 1 live gallery page and 3 live model links will go offline now: .* They stay published and come back/,
    );
  });
  it('bought views left keep the pages up until they are used', () => {
    const s = { publicViewsPurchased: 10_000, publicViewsUsed: 400, publicViewsLeased: 100, livePages: { products: 1, galleries: 0, blueprints: 0 } };
    expect(freeViewsLeft(s)).toBe(9_500);
    expect(freeSwitchWarning(s)).toBe(
      'Your 1 live product page stays online only until your 9,500 remaining bought public views are used: the Free plan includes no public views. After that shoppers see “temporarily unavailable”.',
    );
  });
});
