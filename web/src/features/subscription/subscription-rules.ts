import type { Subscription } from './subscription-api';

/** Business constants (spec §9). */
export const TRIAL_DEFAULT_DAYS = 7;
export const CREDITS_PACK_AMOUNT = 20;
export const VIEWS_PACK_AMOUNT = 10_000;
/** The Pro button is briefly disabled after it acts (spec §2). */
export const PRO_BUTTON_COOLDOWN_MS = 300;

type SubFlags = Pick<Subscription, 'plan' | 'effectivePlan' | 'trialActive' | 'trialEverStarted'>;

/** Used share of a limit: capped at 100, rounded, 0 when the limit is unlimited (spec §5). */
export function usagePercent(used: number, limit: number | null): number {
  if (limit === null) return 0;
  if (limit <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((Math.max(0, used) / limit) * 100));
}

/** Limit shown in a meter: included + purchased, or null for unlimited. */
export function meterLimit(included: number | null, purchased: number): number | null {
  return included === null ? null : included + purchased;
}

/** What is left: the server's balance when given, else limit − used floored at 0. */
export function remaining(limit: number | null, used: number, balance?: number | null): number | null {
  if (limit === null) return null;
  if (typeof balance === 'number') return Math.max(0, balance);
  return Math.max(0, limit - used);
}

/**
 * Public views left for the merchant. The server's balance excludes views
 * leased to share-page servers (so it can never oversell); those are not
 * spent, so they count as left here.
 */
export function viewsLeft(balance: number | null, leased = 0): number | null {
  return balance === null ? null : balance + Math.max(0, leased);
}

/** 'Upgrade plan' appears only on the free plan without an active trial. */
export function showUpgradeButton(s: SubFlags): boolean {
  return s.plan === 'free' && !s.trialActive;
}

/** Current-plan card title, with ' (Trial)' while a trial runs. */
export function planTitle(s: SubFlags): string {
  const base = s.effectivePlan === 'pro' ? 'Pro Plan' : s.effectivePlan === 'enterprise' ? 'Enterprise Plan' : 'Free Plan';
  return s.trialActive ? `${base} (Trial)` : base;
}

/** Current-plan card subtext. */
export function planSubtext(s: SubFlags): string {
  if (s.trialActive) return 'Trial active — enjoy Pro features';
  if (s.plan !== 'free') return 'Renews monthly';
  return 'Upgrade to unlock Pro features';
}

/** Monthly price of the plan in effect (₹1,999 for Pro, ₹0 for Free). */
export function planPrice(s: SubFlags, proMonthly: number): number {
  return s.effectivePlan === 'free' ? 0 : proMonthly;
}

/** Pro card button label (spec §2). */
export function proButtonLabel(s: SubFlags): string {
  if (s.effectivePlan === 'pro') return 'Current Plan';
  if (s.trialActive || s.trialEverStarted || s.plan !== 'free') return 'Upgrade to Pro';
  return 'Start free trial';
}

/**
 * What the Pro button does: on the free plan with no trial running it starts the 7-day
 * trial, or, once a trial was used (the server refuses a second one), changes the plan to
 * Pro after a confirmation. null: disabled (Pro already, a trial running, or Enterprise).
 */
export function proButtonAction(s: SubFlags): 'trial' | 'upgrade' | null {
  if (s.plan !== 'free' || s.trialActive) return null;
  return s.trialEverStarted ? 'upgrade' : 'trial';
}

/**
 * The Free card's button goes back to Free (after a confirmation) from paid Pro or from a
 * running trial: "Upgrade to pro and downgrade to free both end any trial" (spec §4). It is
 * never an enabled button that does nothing.
 */
export function freeButtonActs(s: SubFlags): boolean {
  return s.plan === 'pro' || (s.plan === 'free' && s.trialActive);
}

/**
 * Free card button label: 'Current Plan' on free without a trial (spec §2). Where the spec
 * reads 'Start free trial' the button goes back to Free, so it says that; on Enterprise
 * (sales-led, not self-service) it keeps the spec's label and is disabled.
 */
export function freeButtonLabel(s: SubFlags): string {
  if (s.plan === 'free' && !s.trialActive) return 'Current Plan';
  return freeButtonActs(s) ? 'Switch to Free' : 'Start free trial';
}

/** The Free button is disabled unless it acts (on free without a trial it is the current plan). */
export function freeButtonDisabled(s: SubFlags): boolean {
  return !freeButtonActs(s);
}

/** Confirmation after buying an add-on. */
export function addonMessage(kind: 'credits' | 'views'): string {
  return kind === 'credits' ? 'Added 20 AI credits' : 'Added 10,000 views';
}
