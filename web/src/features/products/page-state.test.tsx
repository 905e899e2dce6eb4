import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageState } from '../../entities/product/page-state';
import { freeSubscription, trialSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import type { Subscription } from '../../entities/subscription/subscription-api';
import ProductDetailPage from './product-detail-page';
import ProductsPage from './products-page';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const mug = {
  id: 'p1',
  name: 'Red Mug',
  description: '',
  productUrl: '',
  tags: [],
  catalogId: 'c1',
  status: 'ready',
  jobId: 'j1',
  modelUrl: '/blobs?obj=models/1.glb',
  thumbnailUrl: '/blobs?obj=thumbs/1.png',
  createdAt: '2026-03-01T10:00:00Z',
  updatedAt: '2026-03-01T10:00:00Z',
  live: true,
};

function render(sub: Subscription, path: string) {
  stubFetch({
    'GET /api/subscription': () => sub,
    'GET /api/products': () => ({ items: [mug, { ...mug, id: 'p2', name: 'Plate', live: false }], total: 2, page: 1, pageSize: 10 }),
    'GET /api/products/p1': () => ({
      ...mug,
      timeline: [],
      publication: { publicationId: 'pub1', slug: 'abc', shareURL: 'http://localhost/v/abc', embedCode: '', qrURL: '', version: 1 },
    }),
  });
  signIn();
  return renderRoutes(
    [
      { path: '/workspace/products', element: <ProductsPage /> },
      { path: '/workspace/product/:productId', element: <ProductDetailPage /> },
    ],
    [path],
  );
}

// Issue 50 item 6 (merchant walk 4, H5): after a switch to Free the pages stay published, but
// shoppers see "temporarily unavailable"; the workspace must not keep saying "Live".
describe('a published page after a downgrade', () => {
  it('the products list says "Offline — needs Pro" on Free, and why', async () => {
    render(freeSubscription({ trialEverStarted: true }), '/workspace/products');
    const cards = await screen.findAllByTestId('product-card');
    const badge = await within(cards[0]).findByTestId('product-page-state');
    expect(badge).toHaveTextContent('Offline — needs Pro');
    expect(badge).toHaveAttribute('title', expect.stringContaining('the Free plan includes no public views'));
    expect(within(cards[0]).queryByText('Live')).not.toBeInTheDocument();
    expect(within(cards[1]).queryByTestId('product-page-state')).not.toBeInTheDocument();
  });

  it('the products list says "Live" while the plan serves the page', async () => {
    render(trialSubscription(), '/workspace/products');
    const cards = await screen.findAllByTestId('product-card');
    expect(await within(cards[0]).findByTestId('product-page-state')).toHaveTextContent('Live');
  });

  it('the product page shows the offline state and what brings the page back', async () => {
    render(freeSubscription({ trialEverStarted: true }), '/workspace/product/p1');
    expect(await screen.findByTestId('product-live')).toHaveTextContent('Offline — needs Pro');
    expect(screen.getByTestId('page-offline')).toHaveTextContent(
      'Shoppers see “temporarily unavailable”: the Free plan includes no public views. The page is still published; upgrade to Pro to bring it back.',
    );
    expect(screen.getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/workspace/subscription');
  });

  it('the rule: Free without views is offline by plan, Pro used up by views, bought views keep it live', () => {
    expect(pageState(false, freeSubscription())).toBeNull();
    expect(pageState(true, undefined)).toBeNull();
    expect(pageState(true, freeSubscription())).toMatchObject({ kind: 'offline', reason: 'plan', label: 'Offline — needs Pro' });
    expect(pageState(true, freeSubscription({ publicViewsPurchased: 10_000, publicViewsBalance: 9_000 }))).toMatchObject({ kind: 'live' });
    expect(pageState(true, trialSubscription({ publicViewsBalance: 0 }))).toMatchObject({ kind: 'offline', reason: 'views', label: 'Offline — views used up' });
    expect(pageState(true, trialSubscription({ publicViewsBalance: null }))).toMatchObject({ kind: 'live' });
  });
});
