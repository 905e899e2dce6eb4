import { api } from '../../lib/api';

export type Plan = 'free' | 'pro' | 'enterprise';

/** Subscription as the server reports it; null included/limit/balance means unlimited. */
export interface Subscription {
  plan: Plan;
  trialStartedAt: string | null;
  trialDays: number;
  trialEverStarted: boolean;
  trialEndsAt: string | null;
  productLimit: number | null;
  galleryLimit: number | null;
  /** Products and galleries that count against the limits (the catalogue API reports them). */
  productsUsed?: number;
  galleriesUsed?: number;
  /** Public pages published now (issue 50 item 6); they need public views to stay up (absent from older servers). */
  livePages?: LivePages;
  aiCreditsIncluded: number | null;
  aiCreditsPurchased: number;
  aiCreditsUsed: number;
  aiCreditsReserved: number;
  publicViewsIncluded: number | null;
  publicViewsPurchased: number;
  publicViewsUsed: number;
  /** Views held by share-page servers for fast serving: not spent, they are counted or given back. */
  publicViewsLeased?: number;
  trialActive: boolean;
  effectivePlan: Plan;
  canUseGalleries: boolean;
  canSharePublic: boolean;
  hasPartTypeOption: boolean;
  aiCreditBalance: number | null;
  publicViewsBalance: number | null;
  prices: { currency: 'INR'; proMonthly: number; creditsPack: number; viewsPack: number };
  /** How purchases work on this server and the paid subscription's state (absent from older servers). */
  billing?: Billing;
}

/** Public pages published now, by what they show. */
export interface LivePages {
  products: number;
  galleries: number;
  blueprints: number;
}

/** The billing part of the subscription (issue 30). */
export interface Billing {
  provider: 'none' | 'test-mode' | 'stripe';
  /** checkout: paid on Stripe's page; instant: test mode grants without payment; disabled: notice says why. */
  purchases: 'checkout' | 'instant' | 'disabled';
  notice?: string;
  status?: string;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  graceUntil: string | null;
  /** A renewal failed: Pro stays until graceUntil. */
  paymentFailed: boolean;
  /** Manage billing (the Stripe Customer Portal) is available. */
  canManage: boolean;
}

export type CheckoutKind = 'pro' | 'credits' | 'views';

export type AddonKind = 'credits' | 'views';

/** Plan, trial and add-on calls; every change refreshes the meters via the tag. */
export const subscriptionApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** A Stripe Checkout page for Pro or add-on packs; the browser goes there. Nothing is granted until Stripe confirms. */
    startCheckout: build.mutation<{ url: string }, { kind: CheckoutKind; packs?: number }>({
      query: (body) => ({ url: '/billing/checkout', method: 'POST', body }),
    }),
    /** The Stripe Customer Portal: payment method, invoices, cancellation. */
    openBillingPortal: build.mutation<{ url: string }, void>({
      query: () => ({ url: '/billing/portal', method: 'POST', body: {} }),
    }),
    getSubscription: build.query<Subscription, void>({
      query: () => ({ url: '/subscription' }),
      providesTags: ['Subscription'],
    }),
    startTrial: build.mutation<Subscription, { days: number }>({
      query: (body) => ({ url: '/subscription/trial', method: 'POST', body }),
      invalidatesTags: ['Subscription', 'Dashboard'],
    }),
    purchaseAddon: build.mutation<Subscription, { kind: AddonKind; amount: number }>({
      query: (body) => ({ url: '/subscription/addons', method: 'POST', body }),
      invalidatesTags: ['Subscription'],
    }),
    changePlan: build.mutation<Subscription, { plan: Plan }>({
      query: (body) => ({ url: '/subscription/plan', method: 'POST', body }),
      invalidatesTags: ['Subscription', 'Dashboard'],
    }),
  }),
});

export const {
  useGetSubscriptionQuery,
  useStartTrialMutation,
  usePurchaseAddonMutation,
  useChangePlanMutation,
  useStartCheckoutMutation,
  useOpenBillingPortalMutation,
} = subscriptionApi;
