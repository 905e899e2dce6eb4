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
}

export type AddonKind = 'credits' | 'views';

/** Plan, trial and add-on calls; every change refreshes the meters via the tag. */
export const subscriptionApi = api.injectEndpoints({
  endpoints: (build) => ({
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

export const { useGetSubscriptionQuery, useStartTrialMutation, usePurchaseAddonMutation, useChangePlanMutation } = subscriptionApi;
