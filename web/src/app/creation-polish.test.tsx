import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { freeSubscription, productDetail } from '../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../test/render';
import ProductDetailPage from '../features/products/product-detail-page';
import ProductsPage from '../features/products/products-page';
import AddProductPage from '../features/add-product/add-product-page';
import { MSG_NAME_FIRST } from '../features/add-product/own-model-start';
import { hasModelFile, MSG_SHARING_NEEDS_PRO, noteWizardBuild, publishingURL, takeReadyToast, TOAST_READY } from '../entities/product/add-product-rules';
import { leatherRuleApplies } from '../entities/product/configurator-rules';
import { FREE_PLAN_NOTICE, hiddenByPlanText } from '../entities/product/product-rules';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

beforeEach(() => sessionStorage.clear());
afterEach(() => vi.unstubAllGlobals());

const detail = productDetail;

function render(path: string) {
  signIn();
  return renderRoutes(
    [
      { path: '/workspace/add-product', element: <AddProductPage /> },
      { path: '/workspace/products', element: <ProductsPage /> },
      { path: '/workspace/product/:productId', element: <ProductDetailPage /> },
    ],
    [path],
  );
}

const glb = () => new File([new Uint8Array([0x67, 0x6c, 0x54, 0x46])], 'chair.glb');

describe('creation rules (issue 50)', () => {
  it('"3D ready" is due once for a build started in this wizard session, whatever its speed', () => {
    expect(takeReadyToast('p1', 'ready')).toBe(false); // not built here
    noteWizardBuild('p1');
    expect(takeReadyToast('p1', 'processing')).toBe(false);
    expect(takeReadyToast('p1', 'ready')).toBe(true);
    expect(takeReadyToast('p1', 'ready')).toBe(false); // said once
    noteWizardBuild('p2');
    expect(takeReadyToast('p2', 'failed')).toBe(false);
    expect(takeReadyToast('p2', 'ready')).toBe(false); // a failed build is not "ready" later
  });

  it('a drop is a model when a .glb or .gltf is among its files; the leather rule only where leather or fabric is used', () => {
    expect(hasModelFile([{ name: 'Chair.GLB' }])).toBe(true);
    expect(hasModelFile([{ name: 'scene.gltf' }, { name: 'scene.bin' }])).toBe(true);
    expect(hasModelFile([{ name: 'photo.jpg' }])).toBe(false);
    expect(leatherRuleApplies([{ material: 'matte-black', parts: {} }])).toBe(false);
    expect(leatherRuleApplies([{ material: 'original', parts: { Seat: 'fabric-grey' } }])).toBe(true);
    expect(hiddenByPlanText(0)).toBe('');
    expect(hiddenByPlanText(3)).toBe('3 more products are kept but not listed; they show here again when you upgrade.');
  });
});

describe('wizard', () => {
  it('arriving at the configurator with a build of this session that is already ready says "3D ready"', async () => {
    noteWizardBuild('p1');
    stubFetch({ 'GET /api/subscription': () => freeSubscription(), 'GET /api/products/p1': () => detail() });
    render('/workspace/add-product?step=configurator&product=p1');
    expect(await screen.findByText(TOAST_READY)).toBeInTheDocument();
  });

  it('a refused publish (Free, no trial) says why and offers Back and Done', async () => {
    stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/products/p1': () => detail(),
      'POST /api/products/p1/publish': () =>
        jsonResponse({ success: false, error: { code: 'forbidden', message: 'Public sharing is a Pro feature. Upgrade to Pro or start a free trial to share links and embeds.' } }, 403),
    });
    render('/workspace/add-product?step=publish&product=p1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Publish now' }));
    expect(await screen.findByTestId('publish-refused')).toHaveTextContent(MSG_SHARING_NEEDS_PRO);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('button', { name: 'Publish' })).toBeInTheDocument(); // the Preview step
    await user.click(screen.getByRole('button', { name: 'Publish' }));
    await user.click(await screen.findByRole('button', { name: 'Done' }));
    expect(await screen.findByRole('heading', { name: 'My Products' })).toBeInTheDocument();
  });

  it('Publish opened from a product page is its "Publishing" screen: no wizard steps; Done returns to the product (P10)', async () => {
    stubFetch({ 'GET /api/subscription': () => freeSubscription(), 'GET /api/products/p1': () => detail() });
    render(publishingURL('p1'));
    expect(await screen.findByRole('heading', { name: 'Publishing' })).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Steps' })).toBeNull();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Done' }));
    expect(await screen.findByRole('heading', { name: 'Oak chair' })).toBeInTheDocument();
  });

  it('"I have a .glb/.gltf": asks for the name first, then makes the product and sends the file', async () => {
    const { calls } = stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'POST /api/products': () => jsonResponse({ success: true, data: detail({ id: 'p9', status: 'draft', modelUrl: '', photoUrl: '', source: 'upload' }) }, 201),
      'POST /api/products/p9/model': () => detail({ id: 'p9', source: 'upload' }),
      'GET /api/products/p9': () => detail({ id: 'p9', source: 'upload' }),
    });
    render('/workspace/add-product');
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(screen.getByTestId('wizard-model-input'), glb());
    expect(await screen.findByText(MSG_NAME_FIRST)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Product name'), 'My chair');
    await user.upload(screen.getByTestId('wizard-model-input'), glb());
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url === '/api/products/p9/model')).toBe(true));
    const made = calls.find((c) => c.method === 'POST' && c.url === '/api/products');
    expect(made?.body).toEqual({ name: 'My chair', ownModel: true });
    expect(await screen.findByTestId('own-model-input')).toBeInTheDocument(); // the configurator
  });
});

describe('product page and list', () => {
  it('Overview and one "Product Details"; Back to Configurator; "Use my own 3D file" beside Replace photo, which a draft may use', async () => {
    stubFetch({ 'GET /api/subscription': () => freeSubscription(), 'GET /api/products/p1': () => detail({ status: 'draft', modelUrl: '', jobId: '', builds: [] }) });
    render('/workspace/product/p1');
    expect(await screen.findByRole('tab', { name: 'Overview' })).toBeInTheDocument();
    expect(screen.getAllByText('Product Details')).toHaveLength(1);
    expect(screen.getByText('Use my own 3D file')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Replace photo' })).toBeEnabled();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Back to Configurator' }));
    expect(screen.getByRole('tab', { name: 'Configurator' })).toHaveAttribute('aria-selected', 'true');
  });

  it('cards show a status word and the price; after a downgrade the notice says the rest are kept', async () => {
    stubFetch({
      'GET /api/subscription': () => freeSubscription({ productsUsed: 3 } as never),
      'GET /api/products': () => ({
        items: [
          { ...detail(), price: 129, currency: 'USD' },
          { ...detail({ id: 'p2', name: 'Lamp', status: 'draft' }), price: null, currency: '' },
        ],
        total: 2,
        page: 1,
        pageSize: 10,
        hiddenByPlan: 1,
      }),
    });
    render('/workspace/products');
    const cards = await screen.findAllByTestId('product-card');
    expect(within(cards[0]).getByTestId('product-status-word')).toHaveTextContent('Ready');
    expect(within(cards[0]).getByTestId('product-price')).toHaveTextContent('$129');
    expect(within(cards[1]).getByTestId('product-status-word')).toHaveTextContent('Draft');
    expect(within(cards[1]).queryByTestId('product-price')).toBeNull();
    expect(screen.getByTestId('free-plan-notice')).toHaveTextContent(`${FREE_PLAN_NOTICE} 1 more product is kept but not listed`);
  });
});
