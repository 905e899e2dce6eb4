import { formatNumber } from '../../lib/format';
import type { Billing, Subscription } from './subscription-api';

/** Business constants (spec §9). */
export const TRIAL_DEFAULT_DAYS = 7;
export const CREDITS_PACK_AMOUNT = 20;
export const VIEWS_PACK_AMOUNT = 10_000;
/** The Pro button is briefly disabled after it acts (spec §2). */
export const PRO_BUTTON_COOLDOWN_MS = 300;

type SubFlags = Pick<Subscription, 'plan' | 'effectivePlan' | 'trialActive' | 'trialEverStarted'> & { billing?: Billing };

/** Billing of an older server that does not report it: purchases act at once. */
const INSTANT: Billing = {
  provider: 'test-mode',
  purchases: 'instant',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  graceUntil: null,
  paymentFailed: false,
  canManage: false,
};

/** The subscription's billing, defaulted for servers that do not report it. */
export function billingOf(s: { billing?: Billing }): Billing {
  return s.billing ?? INSTANT;
}

/** Purchases are possible on this server (Checkout or test mode); when not, billing.notice says why. */
export function canPurchase(s: { billing?: Billing }): boolean {
  return billingOf(s).purchases !== 'disabled';
}

/** A date as the subscription page writes it: 25 December 2026. */
export function longDate(iso: string): string {
  return new Date(iso).toLocaleDateString('en-IN', { day: 'numeric', month: 'long', year: 'numeric' });
}

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

/**
 * Current-plan card subtext: a cancelled subscription says until when Pro lasts, a paid one
 * when it renews; Enterprise is billed by contract.
 */
export function planSubtext(s: SubFlags): string {
  const b = billingOf(s);
  if (s.trialActive) return 'Trial active — enjoy Pro features';
  if (s.effectivePlan === 'enterprise') return 'Billed by contract — contact support to change it';
  if (s.effectivePlan === 'pro' && b.cancelAtPeriodEnd && b.currentPeriodEnd) return `Pro until ${longDate(b.currentPeriodEnd)}`;
  if (s.effectivePlan === 'pro' && b.currentPeriodEnd) return `Renews ${longDate(b.currentPeriodEnd)}`;
  if (s.effectivePlan !== 'free') return 'Renews monthly';
  return 'Upgrade to unlock Pro features';
}

/** Monthly price of the plan in effect (₹1,999 for Pro, ₹0 for Free); null for Enterprise (by contract). */
export function planPrice(s: SubFlags, proMonthly: number): number | null {
  if (s.effectivePlan === 'enterprise') return null;
  return s.effectivePlan === 'free' ? 0 : proMonthly;
}

/** Pro card button label (spec §2). */
export function proButtonLabel(s: SubFlags): string {
  if (s.effectivePlan === 'enterprise') return 'Included in Enterprise';
  if (s.effectivePlan === 'pro' && !s.trialActive) return 'Current Plan';
  if (s.trialActive || s.trialEverStarted || s.plan !== 'free') return 'Upgrade to Pro';
  return 'Start free trial';
}

/**
 * What the Pro button does: on the free plan with no trial used it starts the 7-day trial;
 * during a trial or once it was used it upgrades (through Stripe Checkout where the server
 * sells that way, else after a confirmation). null: disabled (Pro already, Enterprise, or a
 * server that refuses purchases).
 */
export function proButtonAction(s: SubFlags): 'trial' | 'upgrade' | null {
  if (s.plan !== 'free') return null;
  if (!s.trialActive && !s.trialEverStarted) return 'trial';
  return canPurchase(s) ? 'upgrade' : null;
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

/** What the page says after Stripe Checkout until the server has Stripe's confirmation. */
export function activationMessage(kind: 'pro' | 'credits' | 'views'): string {
  if (kind === 'credits') return 'Payment received — adding your AI credits…';
  if (kind === 'views') return 'Payment received — adding your public views…';
  return 'Payment received — activating Pro…';
}

/**
 * Whether the purchase made on Stripe's page shows in the server's subscription: Pro in force
 * (not a trial), or more credits/views purchased than when the page came back.
 */
export function activationDone(
  kind: 'pro' | 'credits' | 'views',
  before: Pick<Subscription, 'aiCreditsPurchased' | 'publicViewsPurchased'>,
  now: Pick<Subscription, 'plan' | 'trialActive' | 'aiCreditsPurchased' | 'publicViewsPurchased'>,
): boolean {
  if (kind === 'credits') return now.aiCreditsPurchased > before.aiCreditsPurchased;
  if (kind === 'views') return now.publicViewsPurchased > before.publicViewsPurchased;
  return now.plan === 'pro' && !now.trialActive;
}

/** Public views the Free plan would leave after switching now: bought ones not yet used or held (Free includes none). */
export function freeViewsLeft(s: Pick<Subscription, 'publicViewsPurchased' | 'publicViewsUsed' | 'publicViewsLeased'>): number {
  return Math.max(0, s.publicViewsPurchased - s.publicViewsUsed - (s.publicViewsLeased ?? 0));
}

function counted(n: number, one: string, many: string): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/**
 * What switching to Free does to the merchant's live public pages (issue 50 item 6), for the
 * confirmation; null when none is live. Pages stay published, but shoppers can open them only
 * while public views are left, and the Free plan includes none.
 */
export function freeSwitchWarning(
  s: Pick<Subscription, 'livePages' | 'publicViewsPurchased' | 'publicViewsUsed' | 'publicViewsLeased'>,
): string | null {
  const lp = s.livePages;
  if (!lp) return null;
  const parts = [
    lp.products > 0 && counted(lp.products, 'live product page', 'live product pages'),
    lp.galleries > 0 && counted(lp.galleries, 'live gallery page', 'live gallery pages'),
    lp.blueprints > 0 && counted(lp.blueprints, 'live model link', 'live model links'),
  ].filter((p): p is string => !!p);
  if (parts.length === 0) return null;
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  const total = lp.products + lp.galleries + lp.blueprints;
  const left = freeViewsLeft(s);
  if (left > 0) {
    return `Your ${list} ${total === 1 ? 'stays' : 'stay'} online only until your ${counted(left, 'remaining bought public view is', 'remaining bought public views are')} used: the Free plan includes no public views. After that shoppers see “temporarily unavailable”.`;
  }
  return `Your ${list} will go offline now: the Free plan includes no public views, so shoppers will see “temporarily unavailable”. ${total === 1 ? 'It stays' : 'They stay'} published and ${total === 1 ? 'comes' : 'come'} back when you upgrade to Pro again.`;
}
