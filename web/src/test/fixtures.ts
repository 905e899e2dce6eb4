import type { Subscription } from '../entities/subscription/subscription-api';

/** Subscription answer shaped like the server's, for the free plan. */
export function freeSubscription(over: Partial<Subscription> = {}): Subscription {
  return {
    plan: 'free',
    trialStartedAt: null,
    trialDays: 7,
    trialEverStarted: false,
    trialEndsAt: null,
    productLimit: 2,
    galleryLimit: 0,
    aiCreditsIncluded: 5,
    aiCreditsPurchased: 0,
    aiCreditsUsed: 1,
    aiCreditsReserved: 0,
    publicViewsIncluded: 0,
    publicViewsPurchased: 0,
    publicViewsUsed: 0,
    trialActive: false,
    effectivePlan: 'free',
    canUseGalleries: false,
    canSharePublic: false,
    hasPartTypeOption: false,
    aiCreditBalance: 4,
    publicViewsBalance: 0,
    prices: { currency: 'INR', proMonthly: 1999, creditsPack: 500, viewsPack: 500 },
    ...over,
  };
}

/** The same account during an active Pro trial. */
export function trialSubscription(over: Partial<Subscription> = {}): Subscription {
  return freeSubscription({
    trialStartedAt: new Date().toISOString(),
    trialEverStarted: true,
    trialEndsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    trialActive: true,
    effectivePlan: 'pro',
    canUseGalleries: true,
    canSharePublic: true,
    hasPartTypeOption: true,
    productLimit: 50,
    galleryLimit: 10,
    aiCreditsIncluded: 50,
    publicViewsIncluded: 25000,
    aiCreditBalance: 49,
    publicViewsBalance: 25000,
    ...over,
  });
}

/** A ready product as GET /api/products/{id} answers it (one photo build, a Default variant). */
export function productDetail(over: Record<string, unknown> = {}) {
  return {
    id: 'p1',
    name: 'Oak chair',
    status: 'ready',
    jobId: 'j1',
    modelUrl: '/blobs?obj=models/p1.glb',
    photoUrl: '/blobs?obj=uploads/up1.jpg',
    source: 'photo',
    builds: [{ jobId: 'j1', status: 'ready', failureReason: '', progress: 100, stage: 'done' }],
    timeline: [],
    tags: [],
    variants: [{ id: 'v1', name: 'Default', material: 'original', parts: {}, sku: '', price: null, currency: '' }],
    hotspots: [],
    links: [],
    presets: { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 105%', autospin: true },
    publication: null,
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-01T10:00:00Z',
    ...over,
  };
}
