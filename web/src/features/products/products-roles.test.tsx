import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { productDetail, trialSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import ProductDetailPage from './product-detail-page';
import ProductsPage from './products-page';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

/*
 * Teams (issue 51): the products list and the product page follow the role in the workspace the
 * person acts in. The server refuses what a role may not do; the app does not offer it.
 */

type Role = 'owner' | 'editor' | 'reviewer' | 'analyst';

const workspaces = (role: Role, requireApproval = false) => ({
  items: [
    { id: 'u1', name: "Asha's workspace", role: 'owner', own: true, requireApproval: false, members: 1 },
    { id: 'w9', name: 'Oak & Co', role, own: false, requireApproval, members: 3 },
  ],
  current: role === 'owner' ? 'u1' : 'w9',
});

const listed = {
  id: 'p1',
  name: 'Oak chair',
  description: '',
  productUrl: '',
  tags: [],
  catalogId: 'c1',
  status: 'ready',
  jobId: 'j1',
  modelUrl: '/blobs?obj=models/p1.glb',
  thumbnailUrl: '/blobs?obj=thumbs/p1.png',
  createdAt: '2026-03-01T10:00:00Z',
  updatedAt: '2026-03-01T10:00:00Z',
};

const refused = () => jsonResponse({ success: false, error: { code: 'forbidden_role', message: 'Your role in this workspace (Analyst) does not allow this. Ask the workspace owner.' } }, 403);

function render(role: Role, path: string, extra: Parameters<typeof stubFetch>[0] = {}, requireApproval = false) {
  const server = stubFetch({
    'GET /api/workspaces': () => workspaces(role, requireApproval),
    'GET /api/subscription': () => trialSubscription(),
    'GET /api/products': () => (role === 'analyst' ? refused() : { items: [listed], total: 1, page: 1, pageSize: 10 }),
    'GET /api/products/p1': () => (role === 'analyst' ? refused() : productDetail({ catalogId: 'c1', variants: [{ id: 'v1', name: 'Natural oak', material: 'original', parts: {}, sku: 'OAK-1', price: 4999, currency: 'INR' }] })),
    'GET /api/products/p1/leads': () => ({ items: [{ id: 'l1', email: 'shopper@example.com', createdAt: '2026-03-02T10:00:00Z', variantId: '' }], nextCursor: '' }),
    'GET /api/products/p1/experiments': () => ({ items: [] }),
    'GET /api/catalogs': () => ({ items: [{ id: 'c1', name: 'Living room', isDefault: true, productCount: 1 }] }),
    'GET /api/approvals': () => ({ items: [] }),
    'GET /api/config': () => ({ signupMode: 'open', mailDelivery: 'none' }),
    ...extra,
  });
  signIn();
  renderRoutes(
    [
      { path: '/workspace/products', element: <ProductsPage /> },
      { path: '/workspace/product/:productId', element: <ProductDetailPage /> },
      { path: '/workspace/analytics', element: <h1>Analytics</h1> },
    ],
    [path],
  );
  return server;
}

/** Waits until the page has the role (the list of workspaces was read). */
async function roleRead(calls: { url: string }[]) {
  await vi.waitFor(() => expect(calls.some((c) => c.url === '/api/workspaces')).toBe(true));
}

describe('My Products by role', () => {
  it('the owner adds products and reads no view-only note', async () => {
    const { calls } = render('owner', '/workspace/products');
    await roleRead(calls);
    expect(await screen.findByTestId('product-card')).toHaveTextContent('Oak chair');
    expect(screen.getByRole('button', { name: 'Add product' })).toBeInTheDocument();
    expect(screen.queryByTestId('view-only-note')).not.toBeInTheDocument();
  });

  it('an editor adds products too', async () => {
    render('editor', '/workspace/products', {}, true);
    expect(await screen.findByTestId('product-card')).toHaveTextContent('Oak chair');
    expect(screen.getByRole('button', { name: 'Add product' })).toBeInTheDocument();
  });

  it('a reviewer sees the list, no Add product, and the view-only note', async () => {
    render('reviewer', '/workspace/products');
    const note = await screen.findByTestId('view-only-note');
    expect(note).toHaveTextContent('View only: as a Reviewer you can see everything and decide approvals; changes are made by editors and the owner.');
    expect(await screen.findByTestId('product-card')).toHaveTextContent('Oak chair');
    expect(screen.queryByRole('button', { name: 'Add product' })).not.toBeInTheDocument();
  });

  it('a reviewer with no products reads an empty list without the way to add one', async () => {
    render('reviewer', '/workspace/products', { 'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 10 }) });
    await screen.findByTestId('view-only-note');
    expect(await screen.findByTestId('products-empty')).toHaveTextContent('Products the owner and editors add appear here.');
    expect(screen.queryByRole('button', { name: 'Add product' })).not.toBeInTheDocument();
  });

  it('an analyst gets a clear message instead of a broken list', async () => {
    render('analyst', '/workspace/products');
    const box = await screen.findByTestId('analyst-blocked');
    expect(box).toHaveTextContent('Not open to analysts');
    expect(within(box).getByRole('link', { name: 'Open Analytics' })).toHaveAttribute('href', '/workspace/analytics');
    expect(screen.getByRole('heading', { name: 'My Products', level: 1 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add product' })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('the product page by role', () => {
  it('the owner edits: rebuild, details, leads and the configurator save', async () => {
    const { calls } = render('owner', '/workspace/product/p1');
    await roleRead(calls);
    expect(await screen.findByRole('heading', { name: 'Oak chair', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Rebuild 3D' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save Details' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Delete shopper@example.com' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Publish' })).toBeInTheDocument();
    expect(screen.queryByTestId('view-only-note')).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('tab', { name: 'Configurator' }));
    expect(await screen.findByRole('button', { name: 'Save' })).toBeInTheDocument();
  });

  it('a reviewer reads the product without a control the server would refuse', async () => {
    const { calls } = render('reviewer', '/workspace/product/p1');
    expect(await screen.findByTestId('view-only-note')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Oak chair', level: 1 })).toBeInTheDocument();
    // The details read, not a form.
    const details = screen.getByTestId('product-details-read');
    expect(details).toHaveTextContent('Oak chair');
    expect(await within(details).findByText('Living room')).toBeInTheDocument();
    for (const name of ['Rebuild 3D', 'Replace photo', 'Save Details', 'Publish', '+ Add Tag']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    expect(screen.queryByRole('link', { name: 'Publish' })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Name' })).not.toBeInTheDocument();
    // Leads are read (and exported), not deleted.
    expect(await screen.findByText('shopper@example.com')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete shopper@example.com' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(screen.getByRole('tab', { name: 'Configurator' }));
    const config = await screen.findByTestId('configuration-read');
    expect(within(config).getByRole('list', { name: 'Variants' })).toHaveTextContent('Natural oak');
    expect(within(config).getByRole('list', { name: 'Variants' })).toHaveTextContent('OAK-1');
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Add variant/ })).not.toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: 'Experiments' }));
    expect(await screen.findByTestId('experiments-read')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Start experiment' })).not.toBeInTheDocument();

    // Nothing but reads was sent.
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it("under approvals an editor's experiments tab does not offer a start the server refuses", async () => {
    render('editor', '/workspace/product/p1', { 'GET /api/products/p1': () => productDetail({ publication: { publicationId: 'pub1', shareUrl: 'http://localhost/v/abc', embedCode: '<iframe></iframe>', qrUrl: '/qr.png' } }) }, true);
    await userEvent.setup().click(await screen.findByRole('tab', { name: 'Experiments' }));
    expect(await screen.findByTestId('experiments-approval-note')).toHaveTextContent('requires approval');
    expect(screen.queryByRole('button', { name: 'Start experiment' })).not.toBeInTheDocument();
  });

  it('an analyst opening a product gets the message, not the refusal', async () => {
    const { calls } = render('analyst', '/workspace/product/p1');
    expect(await screen.findByTestId('analyst-blocked')).toHaveTextContent('Not open to analysts');
    expect(screen.queryByTestId('product-not-found')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });
});
