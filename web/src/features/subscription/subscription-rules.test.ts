import { describe, expect, it } from 'vitest';
import {
  addonMessage,
  freeButtonDisabled,
  freeButtonLabel,
  meterLimit,
  planPrice,
  planSubtext,
  planTitle,
  proButtonActs,
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
    expect(proButtonLabel(trial)).toBe('Current Plan');
    expect(proButtonLabel(pro)).toBe('Current Plan');
    expect(proButtonLabel(trialOver)).toBe('Upgrade to Pro');
    expect(proButtonLabel(enterprise)).toBe('Upgrade to Pro');
    expect(proButtonLabel({ plan: 'free', effectivePlan: 'free', trialActive: true, trialEverStarted: true })).toBe('Upgrade to Pro');
  });
  it('Pro acts only on free with no active trial', () => {
    expect(proButtonActs(free)).toBe(true);
    expect(proButtonActs(trialOver)).toBe(true);
    expect(proButtonActs(trial)).toBe(false);
    expect(proButtonActs(pro)).toBe(false);
  });
  it('Free label and disabled state', () => {
    expect(freeButtonLabel(free)).toBe('Current Plan');
    expect(freeButtonDisabled(free)).toBe(true);
    expect(freeButtonLabel(trial)).toBe('Start free trial');
    expect(freeButtonDisabled(trial)).toBe(false);
    expect(freeButtonLabel(pro)).toBe('Start free trial');
    expect(freeButtonDisabled(pro)).toBe(false);
  });
  it('add-on messages', () => {
    expect(addonMessage('credits')).toBe('Added 20 AI credits');
    expect(addonMessage('views')).toBe('Added 10,000 views');
  });
});
