import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert } from '../../components/alert';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { IconCheck, IconClose } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { Meter } from '../../components/meter';
import { Toast } from '../../components/toast';
import { errorMessage } from '../../lib/api';
import { formatInr, formatNumber } from '../../lib/format';
import {
  useChangePlanMutation,
  useGetSubscriptionQuery,
  usePurchaseAddonMutation,
  useStartTrialMutation,
  type AddonKind,
  type Subscription,
} from './subscription-api';
import {
  addonMessage,
  CREDITS_PACK_AMOUNT,
  freeButtonActs,
  freeButtonDisabled,
  freeButtonLabel,
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
} from './subscription-rules';

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

/** /workspace/subscription — plan, usage meters, plans and add-ons, all from the server. */
export default function SubscriptionPage() {
  const { data: sub, isLoading, error } = useGetSubscriptionQuery();
  const [startTrial, { isLoading: starting }] = useStartTrialMutation();
  const [purchase, { isLoading: buying, originalArgs: buyingArgs }] = usePurchaseAddonMutation();
  const [changePlan, { isLoading: changing }] = useChangePlanMutation();
  // The plan change waiting for the user's confirmation.
  const [confirming, setConfirming] = useState<'pro' | 'free' | null>(null);
  const [toast, setToast] = useState<{ message: string; tone: 'success' | 'error' } | null>(null);
  const [cooldown, setCooldown] = useState(false);
  const plansRef = useRef<HTMLElement>(null);
  const clearToast = useCallback(() => setToast(null), []);

  useEffect(() => {
    if (!cooldown) return;
    const t = window.setTimeout(() => setCooldown(false), PRO_BUTTON_COOLDOWN_MS);
    return () => window.clearTimeout(t);
  }, [cooldown]);

  if (isLoading) return <LoadingScreen />;
  if (error || !sub) {
    return (
      <div className="page">
        <h1 className="page__title">My Subscription</h1>
        <Alert tone="error">{errorMessage(error, 'Your subscription could not be loaded.')}</Alert>
      </div>
    );
  }

  async function buy(kind: AddonKind) {
    try {
      await purchase({ kind, amount: kind === 'credits' ? CREDITS_PACK_AMOUNT : VIEWS_PACK_AMOUNT }).unwrap();
      setToast({ message: addonMessage(kind), tone: 'success' });
    } catch (err) {
      setToast({ message: errorMessage(err, 'The add-on could not be added. Please try again.'), tone: 'error' });
    }
  }

  async function onPro(s: Subscription) {
    const action = proButtonAction(s);
    if (action === 'upgrade') {
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

  return (
    <div className="page subscription">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Subscription</h1>
          <p className="page__subtitle">Your plan, what you have used and what you can add.</p>
        </div>
        {showUpgradeButton(sub) && (
          <button type="button" className="btn btn--primary" onClick={() => plansRef.current?.scrollIntoView({ behavior: 'smooth', block: 'start' })}>
            Upgrade plan
          </button>
        )}
      </header>

      <section className="card plan-card" aria-labelledby="current-plan">
        <p className="eyebrow">Current plan</p>
        <h2 id="current-plan" className="plan-card__title">{planTitle(sub)}</h2>
        <p className="plan-card__price">
          <strong>{formatInr(planPrice(sub, price.proMonthly))}</strong> <span>per month</span>
        </p>
        <p className="muted">{planSubtext(sub)}</p>
        {sub.trialActive && sub.trialEndsAt && (
          <p className="muted">Trial ends {new Date(sub.trialEndsAt).toLocaleDateString('en-IN', { day: 'numeric', month: 'long', year: 'numeric' })}</p>
        )}
      </section>

      <section className="card" aria-labelledby="usage-title">
        <h2 id="usage-title" className="section-title">Usage &amp; Limits</h2>
        <div className="usage-grid">
          <UsageMeter
            title="AI Credits"
            used={sub.aiCreditsUsed}
            limit={creditsLimit}
            left={remaining(creditsLimit, sub.aiCreditsUsed, sub.aiCreditBalance)}
            buyLabel={`+20 credits (${formatInr(price.creditsPack)})`}
            onBuy={() => buy('credits')}
            busy={buyingKind === 'credits'}
          />
          <UsageMeter
            title="Public Views"
            used={sub.publicViewsUsed}
            limit={viewsLimit}
            left={remaining(viewsLimit, sub.publicViewsUsed, viewsLeft(sub.publicViewsBalance, sub.publicViewsLeased))}
            buyLabel={`+10,000 views (${formatInr(price.viewsPack)})`}
            onBuy={() => buy('views')}
            busy={buyingKind === 'views'}
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
            <button
              type="button"
              className="btn btn--secondary btn--block"
              disabled={freeButtonDisabled(sub) || changing}
              onClick={() => freeButtonActs(sub) && setConfirming('free')}
            >
              {freeButtonLabel(sub)}
            </button>
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
            <button type="button" className="btn btn--primary btn--block" disabled={!proActs || cooldown || starting || changing} onClick={() => onPro(sub)}>
              {proButtonLabel(sub)}
            </button>
          </article>
        </div>
      </section>

      <section className="card" aria-labelledby="addons-title">
        <h2 id="addons-title" className="section-title">Add-ons</h2>
        <div className="addons">
          <article className="addon">
            <h3 className="addon__name">AI Credits Pack</h3>
            <p className="addon__price"><strong>{formatInr(price.creditsPack)}</strong> per pack</p>
            <p className="muted">20 extra credits</p>
            <button type="button" className="btn btn--secondary" onClick={() => buy('credits')} disabled={buyingKind === 'credits'}>
              Buy 20 credits
            </button>
          </article>
          <article className="addon">
            <h3 className="addon__name">Public Views Pack</h3>
            <p className="addon__price"><strong>{formatInr(price.viewsPack)}</strong> per pack</p>
            <p className="muted">10,000 extra views</p>
            <button type="button" className="btn btn--secondary" onClick={() => buy('views')} disabled={buyingKind === 'views'}>
              Buy 10,000 views
            </button>
          </article>
        </div>
      </section>
      {confirming === 'pro' && (
        <ConfirmDialog title="Upgrade to Pro?" confirmLabel="Upgrade to Pro" busyLabel="Upgrading..." busy={changing} onConfirm={onConfirmPlan} onCancel={() => setConfirming(null)}>
          <p>
            Your plan changes to Pro now, at {formatInr(price.proMonthly)} per month: 50 product listings, 10 galleries, 50 AI credits and 25,000
            public product views.
          </p>
        </ConfirmDialog>
      )}
      {confirming === 'free' && (
        <ConfirmDialog title="Switch to the Free plan?" confirmLabel="Switch to Free" busyLabel="Switching..." busy={changing} onConfirm={onConfirmPlan} onCancel={() => setConfirming(null)}>
          {sub.trialActive && <p>This ends your Pro trial now. A trial can be used only once.</p>}
          <p>Your plan changes to Free now: 2 product listings and 5 AI credits, with no galleries and no public sharing.</p>
        </ConfirmDialog>
      )}
      <Toast message={toast?.message ?? null} tone={toast?.tone} onDone={clearToast} />
    </div>
  );
}

function UsageMeter({
  title,
  used,
  limit,
  left,
  buyLabel,
  onBuy,
  busy,
}: {
  title: string;
  used: number;
  limit: number | null;
  left: number | null;
  buyLabel: string;
  onBuy: () => void;
  busy: boolean;
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
      <button type="button" className="btn btn--ghost btn--sm" onClick={onBuy} disabled={busy}>
        {buyLabel}
      </button>
    </div>
  );
}
