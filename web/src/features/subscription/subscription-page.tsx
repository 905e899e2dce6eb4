import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { IconCheck, IconClose } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { Meter } from '../../components/meter';
import { Toast } from '../../components/toast';
import { navigation } from './billing-redirect';
import { useStoreDefaultCurrency } from '../../entities/settings/store-settings-api';
import { errorMessage } from '../../lib/api';
import { formatInr, formatNumber } from '../../lib/format';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { OwnerOnlyNote } from '../../entities/team/view-only';
import {
  useChangePlanMutation,
  useGetSubscriptionQuery,
  useOpenBillingPortalMutation,
  usePurchaseAddonMutation,
  useStartCheckoutMutation,
  useStartTrialMutation,
  type AddonKind,
  type CheckoutKind,
  type Subscription,
} from '../../entities/subscription/subscription-api';
import {
  activationDone,
  activationMessage,
  addonMessage,
  billingOf,
  canPurchase,
  longDate,
  CREDITS_PACK_AMOUNT,
  freeButtonActs,
  freeButtonDisabled,
  freeButtonLabel,
  freeSwitchWarning,
  meterLimit,
  planPrice,
  planSubtext,
  planTitle,
  PRO_BUTTON_COOLDOWN_MS,
  proButtonAction,
  proButtonLabel,
  remaining,
  viewsLeft,
  showUpgradeButton,
  TRIAL_DEFAULT_DAYS,
  usagePercent,
  VIEWS_PACK_AMOUNT,
} from '../../entities/subscription/subscription-rules';

const freeFeatures: { text: string; included: boolean }[] = [
  { text: '2 product listings', included: true },
  { text: '5 AI credits', included: true },
  { text: 'Basic analytics', included: true },
  { text: 'No gallery', included: false },
  { text: 'No part type options', included: false },
  { text: 'No public sharing', included: false },
];
const proFeatures = [
  '50 product listings',
  '10 galleries',
  '50 AI credits',
  'Part-specific gallery and more',
  '25,000 public product views in total',
  'Advanced analytics',
];

/** How often the page re-reads the subscription while Stripe's confirmation is awaited. */
const ACTIVATION_POLL_MS = 1500;
/** How often the meters refresh while a build holds credits (they change when it ends). */
const HELD_POLL_MS = 5000;
/** How long the page waits for Stripe's confirmation before saying it will come later. */
const ACTIVATION_TIMEOUT_MS = 60_000;

/**
 * /workspace/subscription — plan, usage meters, plans and add-ons, all from the server. Where
 * the server sells through Stripe, Upgrade and Buy go to Stripe Checkout and come back with
 * ?checkout=success; the page then says "Payment received — activating Pro…" and re-reads
 * the subscription until the server has Stripe's confirmation. The return URL grants nothing.
 */
export default function SubscriptionPage() {
  const [params, setParams] = useSearchParams();
  // Teams (issue 51): every member sees the plan and its usage; only the owner changes or buys.
  const { isOwner } = useWorkspaceRole();
  const returned = params.get('checkout');
  const returnedKind = (params.get('kind') ?? 'pro') as CheckoutKind;
  const activating = returned === 'success';
  const [held, setHeld] = useState(false);
  // Fresh on every visit (in-app builds and publishing change the meters elsewhere).
  const { data: sub, isLoading, error } = useGetSubscriptionQuery(undefined, {
    refetchOnMountOrArgChange: true,
    pollingInterval: activating ? ACTIVATION_POLL_MS : held ? HELD_POLL_MS : 0,
  });
  const baseline = useRef<Subscription | null>(null);
  const [startTrial, { isLoading: starting }] = useStartTrialMutation();
  const [checkout, { isLoading: redirecting }] = useStartCheckoutMutation();
  const [portal, { isLoading: opening }] = useOpenBillingPortalMutation();
  const [purchase, { isLoading: buying, originalArgs: buyingArgs }] = usePurchaseAddonMutation();
  const [changePlan, { isLoading: changing }] = useChangePlanMutation();
  // The plan change waiting for the user's confirmation.
  const [confirming, setConfirming] = useState<'pro' | 'free' | null>(null);
  // The add-on purchase waiting for the user's confirmation (issue 50, P17: every purchase
  // is confirmed, as Upgrade to Pro is; through Stripe, Checkout is that confirmation).
  const [confirmingAddon, setConfirmingAddon] = useState<AddonKind | null>(null);
  const storeCurrency = useStoreDefaultCurrency();
  const [toast, setToast] = useState<{ message: string; tone: 'success' | 'error' } | null>(null);
  const [cooldown, setCooldown] = useState(false);
  const plansRef = useRef<HTMLElement>(null);
  const clearToast = useCallback(() => setToast(null), []);

  useEffect(() => setHeld((sub?.aiCreditsReserved ?? 0) > 0), [sub?.aiCreditsReserved]);

  // Back from Checkout: wait for the server's confirmation, then say so once.
  useEffect(() => {
    if (!sub || !returned) return;
    if (returned === 'cancelled') {
      setToast({ message: 'Checkout cancelled — nothing was charged.', tone: 'success' });
      setParams({}, { replace: true });
      return;
    }
    if (!activating) return;
    baseline.current ??= sub;
    if (activationDone(returnedKind, baseline.current, sub)) {
      setToast({ message: returnedKind === 'pro' ? 'You are now on the Pro plan' : addonMessage(returnedKind), tone: 'success' });
      baseline.current = null;
      setParams({}, { replace: true });
    }
  }, [sub, returned, activating, returnedKind, setParams]);

  // Stripe normally confirms within seconds; stop waiting after a minute (the reconciliation
  // job repairs a lost confirmation) and say so instead of spinning for ever.
  useEffect(() => {
    if (!activating) return;
    const t = window.setTimeout(() => {
      setToast({ message: 'Stripe has not confirmed the payment yet. It will show here within a few minutes.', tone: 'error' });
      baseline.current = null;
      setParams({}, { replace: true });
    }, ACTIVATION_TIMEOUT_MS);
    return () => window.clearTimeout(t);
  }, [activating, setParams]);

  useEffect(() => {
    if (!cooldown) return;
    const t = window.setTimeout(() => setCooldown(false), PRO_BUTTON_COOLDOWN_MS);
    return () => window.clearTimeout(t);
  }, [cooldown]);

  // Links from elsewhere name a section (#invoices from Settings, #billing): show it once
  // the page has rendered.
  const { hash } = useLocation();
  const loaded = Boolean(sub);
  useEffect(() => {
    if (!loaded || !hash) return;
    document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView?.({ block: 'start' });
  }, [hash, loaded]);

  if (isLoading) return <LoadingScreen />;
  if (error || !sub) {
    return (
      <div className="page">
        <h1 className="page__title">My Subscription</h1>
        <Alert tone="error">{errorMessage(error, 'Your subscription could not be loaded.')}</Alert>
      </div>
    );
  }

  const billing = billingOf(sub);
  const viaCheckout = billing.purchases === 'checkout';
  const purchasable = canPurchase(sub);

  async function pay(kind: CheckoutKind) {
    try {
      const { url } = await checkout(kind === 'pro' ? { kind } : { kind, packs: 1 }).unwrap();
      navigation.goTo(url);
    } catch (err) {
      setToast({ message: errorMessage(err, 'Checkout could not be opened. Please try again.'), tone: 'error' });
    }
  }

  async function manageBilling() {
    try {
      const { url } = await portal().unwrap();
      navigation.goTo(url);
    } catch (err) {
      setToast({ message: errorMessage(err, 'Billing could not be opened. Please try again.'), tone: 'error' });
    }
  }

  function buy(kind: AddonKind) {
    if (viaCheckout) return void pay(kind);
    setConfirmingAddon(kind);
  }

  async function onConfirmAddon() {
    const kind = confirmingAddon;
    if (!kind) return;
    try {
      await purchase({ kind, amount: kind === 'credits' ? CREDITS_PACK_AMOUNT : VIEWS_PACK_AMOUNT }).unwrap();
      setToast({ message: addonMessage(kind), tone: 'success' });
    } catch (err) {
      setToast({ message: errorMessage(err, 'The add-on could not be added. Please try again.'), tone: 'error' });
    } finally {
      setConfirmingAddon(null);
    }
  }

  async function onPro(s: Subscription) {
    const action = proButtonAction(s);
    if (action === 'upgrade') {
      if (viaCheckout) return pay('pro');
      setConfirming('pro');
      return;
    }
    if (action !== 'trial') return;
    setCooldown(true);
    try {
      await startTrial({ days: TRIAL_DEFAULT_DAYS }).unwrap();
      setToast({ message: `Your ${TRIAL_DEFAULT_DAYS}-day Pro trial has started`, tone: 'success' });
    } catch (err) {
      setToast({ message: errorMessage(err, 'The trial could not be started. Please try again.'), tone: 'error' });
    }
  }

  // Test-mode billing on our server; a real provider would take payment here.
  async function onConfirmPlan() {
    if (!confirming) return;
    try {
      await changePlan({ plan: confirming }).unwrap();
      setToast({ message: confirming === 'pro' ? 'You are now on the Pro plan' : 'You are now on the Free plan', tone: 'success' });
    } catch (err) {
      setToast({ message: errorMessage(err, 'Your plan could not be changed. Please try again.'), tone: 'error' });
    } finally {
      setConfirming(null);
    }
  }

  const creditsLimit = meterLimit(sub.aiCreditsIncluded, sub.aiCreditsPurchased);
  const viewsLimit = meterLimit(sub.publicViewsIncluded, sub.publicViewsPurchased);
  const price = sub.prices ?? { currency: 'INR', proMonthly: 1999, creditsPack: 500, viewsPack: 500 };
  const buyingKind = buying ? buyingArgs?.kind : undefined;
  const proActs = proButtonAction(sub) !== null;
  const planCost = planPrice(sub, price.proMonthly);
  // Paid Pro through Stripe is cancelled in the portal (at period end), not here.
  const freeViaPortal = viaCheckout && sub.plan === 'pro' && billing.canManage;
  const buyBlocked = !purchasable || redirecting;
  const whyNot = purchasable ? undefined : billing.notice;
  const offlineWarning = freeSwitchWarning(sub);

  return (
    <div className="page subscription">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Subscription</h1>
          <p className="page__subtitle">Your plan, what you have used and what you can add.</p>
        </div>
        {isOwner && showUpgradeButton(sub) && (
          <button type="button" className="btn btn--primary" onClick={() => plansRef.current?.scrollIntoView({ behavior: 'smooth', block: 'start' })}>
            Upgrade plan
          </button>
        )}
      </header>
      {!isOwner && <OwnerOnlyNote>Only the workspace owner changes the plan, buys add-ons and manages billing.</OwnerOnlyNote>}

      {activating && (
        <Alert tone="info">
          <span data-testid="activation">{activationMessage(returnedKind)}</span>
        </Alert>
      )}
      {billing.paymentFailed && billing.graceUntil && (
        <Alert tone="error">
          Your last payment failed. Pro stays active until {longDate(billing.graceUntil)}; update your payment method in Manage billing to keep it.
        </Alert>
      )}
      {billing.notice && (billing.purchases === 'disabled' || billing.provider === 'test-mode') && <Alert tone="info">{billing.notice}</Alert>}

      <section className="card plan-card" aria-labelledby="current-plan" id="billing">
        <p className="eyebrow">Current plan</p>
        <h2 id="current-plan" className="plan-card__title">{planTitle(sub)}</h2>
        <p className="plan-card__price">
          {planCost === null ? <strong>Custom pricing</strong> : <><strong>{formatInr(planCost)}</strong> <span>per month</span></>}
        </p>
        <p className="muted">{planSubtext(sub)}</p>
        {sub.trialActive && sub.trialEndsAt && (
          <p className="muted">Trial ends {longDate(sub.trialEndsAt)}</p>
        )}
        {isOwner && billing.canManage && (
          <p>
            <button type="button" className="btn btn--secondary" onClick={manageBilling} disabled={opening}>
              {opening ? 'Opening…' : 'Manage billing'}
            </button>{' '}
            <span className="muted">Payment method, invoices and receipts, cancellation.</span>
          </p>
        )}
      </section>

      <section className="card" aria-labelledby="usage-title">
        <h2 id="usage-title" className="section-title">Usage &amp; Limits</h2>
        <div className="usage-grid">
          <UsageMeter
            title="AI Credits"
            used={sub.aiCreditsUsed}
            limit={creditsLimit}
            held={sub.aiCreditsReserved}
            left={remaining(creditsLimit, sub.aiCreditsUsed, sub.aiCreditBalance)}
            buyLabel={`+20 credits (${formatInr(price.creditsPack)})`}
            onBuy={isOwner ? () => buy('credits') : undefined}
            busy={buyingKind === 'credits' || buyBlocked}
            why={whyNot}
          />
          <UsageMeter
            title="Public Views"
            used={sub.publicViewsUsed}
            limit={viewsLimit}
            left={remaining(viewsLimit, sub.publicViewsUsed, viewsLeft(sub.publicViewsBalance, sub.publicViewsLeased))}
            buyLabel={`+10,000 views (${formatInr(price.viewsPack)})`}
            onBuy={isOwner ? () => buy('views') : undefined}
            busy={buyingKind === 'views' || buyBlocked}
            why={whyNot}
          />
        </div>
        <p className="muted note">Only AI Credits and Public Views are metered.</p>
      </section>

      <section className="plans" ref={plansRef} aria-labelledby="plans-title" id="plans">
        <h2 id="plans-title" className="section-title">Plans &amp; Features</h2>
        <div className="plans__grid">
          <article className="card plan" aria-labelledby="plan-free">
            <h3 id="plan-free" className="plan__name">Free</h3>
            <p className="plan__price"><strong>{formatInr(0)}</strong> per month</p>
            <ul className="feature-list">
              {freeFeatures.map((f) => (
                <li key={f.text} className={f.included ? 'feature' : 'feature feature--no'}>
                  {f.included ? <IconCheck size={18} /> : <IconClose size={18} />} {f.text}
                </li>
              ))}
            </ul>
            {!isOwner ? null : freeViaPortal ? (
              <button type="button" className="btn btn--secondary btn--block" disabled={opening} onClick={manageBilling}>
                {billing.cancelAtPeriodEnd && billing.currentPeriodEnd ? `Free from ${longDate(billing.currentPeriodEnd)}` : 'Cancel in Manage billing'}
              </button>
            ) : (
              <button
                type="button"
                className="btn btn--secondary btn--block"
                disabled={freeButtonDisabled(sub) || changing}
                onClick={() => freeButtonActs(sub) && setConfirming('free')}
              >
                {freeButtonLabel(sub)}
              </button>
            )}
          </article>
          <article className="card plan plan--featured" aria-labelledby="plan-pro">
            <span className="plan__ribbon">MOST POPULAR</span>
            <h3 id="plan-pro" className="plan__name">Pro</h3>
            <p className="plan__price"><strong>{formatInr(price.proMonthly)}</strong> per month</p>
            <ul className="feature-list">
              {proFeatures.map((f) => (
                <li key={f} className="feature">
                  <IconCheck size={18} /> {f}
                </li>
              ))}
            </ul>
            {isOwner && (
              <button
                type="button"
                className="btn btn--primary btn--block"
                disabled={!proActs || cooldown || starting || changing || redirecting || (activating && returnedKind === 'pro')}
                aria-describedby={proButtonAction(sub) === 'trial' ? 'trial-terms' : undefined}
                title={proActs ? undefined : whyNot}
                onClick={() => onPro(sub)}
              >
                {redirecting ? 'Opening Checkout…' : proButtonLabel(sub)}
              </button>
            )}
            {isOwner && proButtonAction(sub) === 'trial' && (
              <p id="trial-terms" className="muted">
                {TRIAL_DEFAULT_DAYS}-day free trial, no card
              </p>
            )}
            {isOwner && !proActs && whyNot && sub.plan === 'free' && <p className="muted">{whyNot}</p>}
          </article>
        </div>
        <p className="muted note">{pricingNote(storeCurrency)}</p>
      </section>

      <section className="card" aria-labelledby="addons-title">
        <h2 id="addons-title" className="section-title">Add-ons</h2>
        <div className="addons">
          <article className="addon">
            <h3 className="addon__name">AI Credits Pack</h3>
            <p className="addon__price"><strong>{formatInr(price.creditsPack)}</strong> per pack</p>
            <p className="muted">20 extra credits</p>
            {isOwner && (
              <button type="button" className="btn btn--secondary" onClick={() => buy('credits')} disabled={buyingKind === 'credits' || buyBlocked} title={whyNot}>
                Buy 20 credits
              </button>
            )}
          </article>
          <article className="addon">
            <h3 className="addon__name">Public Views Pack</h3>
            <p className="addon__price"><strong>{formatInr(price.viewsPack)}</strong> per pack</p>
            <p className="muted">10,000 extra views</p>
            {isOwner && (
              <button type="button" className="btn btn--secondary" onClick={() => buy('views')} disabled={buyingKind === 'views' || buyBlocked} title={whyNot}>
                Buy 10,000 views
              </button>
            )}
          </article>
        </div>
        {isOwner && whyNot && <p className="muted note">{whyNot}</p>}
        {/* Settings' "Invoices and receipts" leads here (#invoices) in both modes (issue 50, P18). */}
        <p className="muted note" id="invoices">
          {viaCheckout ? 'Payments are handled by Stripe; receipts and invoices are in Manage billing.' : INVOICES_TEST_MODE}
        </p>
      </section>
      {confirming === 'pro' && (
        <ConfirmDialog title="Upgrade to Pro?" confirmLabel="Upgrade to Pro" busyLabel="Upgrading..." busy={changing} onConfirm={onConfirmPlan} onCancel={() => setConfirming(null)}>
          <p>
            Your plan changes to Pro now, at {formatInr(price.proMonthly)} per month: 50 product listings, 10 galleries, 50 AI credits and 25,000
            public product views.
          </p>
        </ConfirmDialog>
      )}
      {confirmingAddon && (
        <ConfirmDialog
          title={confirmingAddon === 'credits' ? 'Buy 20 AI credits?' : 'Buy 10,000 public views?'}
          confirmLabel={confirmingAddon === 'credits' ? 'Buy 20 credits' : 'Buy 10,000 views'}
          busyLabel="Buying..."
          busy={buying}
          onConfirm={() => void onConfirmAddon()}
          onCancel={() => setConfirmingAddon(null)}
        >
          <p>
            {confirmingAddon === 'credits' ? '20 AI credits' : '10,000 public views'} are added to your account now, for{' '}
            {formatInr(confirmingAddon === 'credits' ? price.creditsPack : price.viewsPack)}. Purchased packs stay when your plan changes.
          </p>
        </ConfirmDialog>
      )}
      {confirming === 'free' && (
        <ConfirmDialog title="Switch to the Free plan?" confirmLabel="Switch to Free" busyLabel="Switching..." busy={changing} onConfirm={onConfirmPlan} onCancel={() => setConfirming(null)}>
          {sub.trialActive && <p>This ends your Pro trial now. A trial can be used only once.</p>}
          <p>Your plan changes to Free now: 2 product listings and 5 AI credits, with no galleries and no public sharing.</p>
          {offlineWarning && (
            <Alert tone="info">
              <span data-testid="free-switch-warning">{offlineWarning}</span>
            </Alert>
          )}
        </ConfirmDialog>
      )}
      <Toast message={toast?.message ?? null} tone={toast?.tone} onDone={clearToast} />
    </div>
  );
}

function UsageMeter({
  title,
  used,
  held = 0,
  limit,
  left,
  buyLabel,
  onBuy,
  busy,
  why,
}: {
  title: string;
  used: number;
  /** Held by builds in progress: neither used nor left, so used + held + remaining = limit. */
  held?: number;
  limit: number | null;
  left: number | null;
  buyLabel: string;
  /** Buying is the owner's (issue 51): without it the meter has no buy button. */
  onBuy?: () => void;
  busy: boolean;
  why?: string;
}) {
  const pct = usagePercent(used, limit);
  const slug = title.toLowerCase().replace(/\s+/g, '-');
  return (
    <div className="usage" data-testid={`meter-${slug}`}>
      <div className="usage__head">
        <h3 className="usage__title">{title}</h3>
        <span className="usage__numbers">
          {formatNumber(used)} / {limit === null ? 'Unlimited' : formatNumber(limit)}
        </span>
      </div>
      <Meter label={`${title} used`} percent={pct} />
      <div className="usage__foot">
        <span className="muted">{left === null ? 'Unlimited' : `${formatNumber(left)} remaining`}</span>
        <span className="muted">{pct}%</span>
      </div>
      {held > 0 && <p className="muted">{`${formatNumber(held)} held by ${held === 1 ? 'a build' : 'builds'} in progress`}</p>}
      {onBuy && (
        <button type="button" className="btn btn--ghost btn--sm" onClick={onBuy} disabled={busy} title={why}>
          {buyLabel}
        </button>
      )}
    </div>
  );
}

/**
 * Under the plans (issue 50, P16): prices are monthly, the views are a total (they do not
 * reset each month, as "in total" says), and everything is charged in rupees whatever
 * currency the store sells in.
 */
export function pricingNote(storeCurrency: string | undefined): string {
  const base = 'Plan prices are per month. Public product views are a total for your account, not a monthly allowance; a pack adds 10,000 more.';
  if (!storeCurrency || storeCurrency === 'INR') return base;
  return `${base} Plans and packs are charged in Indian rupees (₹); your store currency (${storeCurrency}) is for the prices shoppers see.`;
}

/**
 * Where invoices are in test mode (issue 50, P18): Settings points here, and without a
 * payment provider nothing is charged, so there are no invoices to show.
 */
export const INVOICES_TEST_MODE =
  'Invoices and receipts: this server bills in test mode, so nothing is charged and no invoices are issued. With Stripe connected they are in Manage billing on this page.';
