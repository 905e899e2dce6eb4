import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freeSubscription, productDetail, trialSubscription } from '../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../test/render';
import ProductDetailPage from '../features/products/product-detail-page';
import AddProductPage from '../features/add-product/add-product-page';
import { LIVE_TITLE, TOAST_BUILDING, TOAST_REMOVING } from '../entities/product/add-product-rules';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const detail = productDetail;

function render(path: string) {
  signIn();
  return renderRoutes(
    [
      { path: '/workspace/add-product', element: <AddProductPage /> },
      { path: '/workspace/products', element: <h1>My Products</h1> },
      { path: '/workspace/product/:productId', element: <ProductDetailPage /> },
      { path: '/workspace/subscription', element: <h1>My Subscription</h1> },
    ],
    [path],
  );
}

const photo = () => new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'chair.jpg', { type: 'image/jpeg' });

function uploadHandlers() {
  return {
    'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/put/up1', publicURL: '/blobs?obj=uploads/up1.jpg' }),
    'PUT /blobs/put/up1': () => new Response(null, { status: 200, headers: { Location: '/blobs?obj=uploads/up1.jpg' } }),
  };
}

describe('Add Product wizard', () => {
  it('init: actions stay disabled until a name and an uploaded photo exist; wrong files get the spec messages', async () => {
    stubFetch({ ...uploadHandlers(), 'GET /api/subscription': () => freeSubscription() });
    render('/workspace/add-product');
    const user = userEvent.setup({ applyAccept: false });
    const buttons = ['Remove background', 'Generate 3D now', 'Save as draft'].map((n) => screen.getByRole('button', { name: n }));
    for (const b of buttons) expect(b).toBeDisabled();

    const input = screen.getByTestId('wizard-photo-input');
    await user.upload(input, new File(['x'], 'a.gif', { type: 'image/gif' }));
    expect(await screen.findByText('Invalid file type. Please select a JPEG, PNG, or WebP image.')).toBeInTheDocument();
    await user.upload(input, new File([new Uint8Array(10_485_761)], 'big.png', { type: 'image/png' }));
    expect(await screen.findByText('File is too large. Please select an image under 10MB.')).toBeInTheDocument();

    await user.upload(input, photo());
    expect(await screen.findByAltText('Photo chair.jpg')).toHaveAttribute('src', '/blobs?obj=uploads/up1.jpg');
    for (const b of buttons) expect(b).toBeDisabled();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    for (const b of buttons) expect(b).toBeEnabled();
    await user.clear(screen.getByLabelText('Product name'));
    for (const b of buttons) expect(b).toBeDisabled();
  });

  it('verify: shows the server cutout and asks again when a toggle changes; Generate 3D sends the chosen options', async () => {
    const cutouts: unknown[] = [];
    const { calls } = stubFetch({
      ...uploadHandlers(),
      'GET /api/subscription': () => trialSubscription(),
      'POST /api/uploads/up1/cutout': ({ body }) => {
        cutouts.push(body);
        const b = body as { cleanEdges: boolean; keepShadow: boolean };
        return { status: 'ready', url: `/blobs?obj=cutouts/up1-${b.cleanEdges}-${b.keepShadow}.png`, ...b, width: 10, height: 10 };
      },
      'POST /api/products': () => jsonResponse({ success: true, data: detail({ status: 'processing', modelUrl: '', builds: [{ jobId: 'j1', status: 'processing', progress: 0, stage: 'queued' }] }) }, 201),
      'GET /api/products/p1': () => detail({ status: 'processing', modelUrl: '', builds: [{ jobId: 'j1', status: 'processing', progress: 0, stage: 'queued' }] }),
      'GET /api/jobs/j1': () => ({ id: 'j1', status: 'queued', progress: 0 }),
    });
    const { router } = render('/workspace/add-product');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    await user.upload(screen.getByTestId('wizard-photo-input'), photo());
    await screen.findByAltText('Photo chair.jpg');
    await user.click(screen.getByRole('button', { name: 'Remove background' }));
    expect(await screen.findByText(TOAST_REMOVING)).toBeInTheDocument();
    expect(router.state.location.search).toBe('?step=verify');

    const cut = await screen.findByTestId('cutout');
    expect(cut).toHaveAttribute('src', '/blobs?obj=cutouts/up1-true-false.png');
    expect(screen.getByAltText('Original photo')).toHaveAttribute('src', '/blobs?obj=uploads/up1.jpg');
    await user.click(screen.getByRole('checkbox', { name: 'Restore ground shadow' }));
    await waitFor(() => expect(screen.getByTestId('cutout')).toHaveAttribute('src', '/blobs?obj=cutouts/up1-true-true.png'));
    await user.click(screen.getByRole('checkbox', { name: 'Clean edges' }));
    await waitFor(() => expect(screen.getByTestId('cutout')).toHaveAttribute('src', '/blobs?obj=cutouts/up1-false-true.png'));
    expect(cutouts).toEqual([
      { cleanEdges: true, keepShadow: false },
      { cleanEdges: true, keepShadow: true },
      { cleanEdges: false, keepShadow: true },
    ]);

    await user.click(screen.getByRole('button', { name: 'Generate 3D' }));
    const create = calls.find((c) => c.method === 'POST' && c.url === '/api/products');
    expect(create?.body).toEqual({ name: 'Oak chair', uploadId: 'up1', generate: true, cleanEdges: false, keepShadow: true });
    await waitFor(() => expect(router.state.location.search).toBe('?step=configurator&product=p1'));
    expect(await screen.findByText(TOAST_BUILDING)).toBeInTheDocument();
    const modal = await screen.findByRole('dialog', { name: 'Building your 3D' });
    expect(within(modal).getByTestId('build-steps')).toHaveAttribute('data-state', 'queued');
    expect(within(modal).getByText('Waiting for a worker')).toBeInTheDocument();
    for (const n of ['Keep editing', 'Hide status']) expect(within(modal).getByRole('button', { name: n })).toBeInTheDocument();
  });

  it('Save as draft creates a product without a build and returns to the list', async () => {
    const { calls } = stubFetch({
      ...uploadHandlers(),
      'POST /api/uploads/up1/cutout': ({ body }) => ({ status: 'ready', url: '/blobs?obj=cutouts/up1.png', ...(body as object) }),
      'POST /api/products': () => detail({ status: 'draft', modelUrl: '' }),
    });
    render('/workspace/add-product');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    await user.upload(screen.getByTestId('wizard-photo-input'), photo());
    await screen.findByAltText('Photo chair.jpg');
    await user.click(screen.getByRole('button', { name: 'Save as draft' }));
    expect(await screen.findByRole('heading', { name: 'My Products' })).toBeInTheDocument();
    expect(calls.find((c) => c.url === '/api/products')?.body).toMatchObject({ generate: false, uploadId: 'up1' });
    // The cutout for the default options is made first, so the draft's Generate 3D can build (issue 29 item 4).
    const cutIndex = calls.findIndex((c) => c.url === '/api/uploads/up1/cutout');
    expect(cutIndex).toBeGreaterThanOrEqual(0);
    expect(cutIndex).toBeLessThan(calls.findIndex((c) => c.url === '/api/products'));
  });

  it('Generate 3D now at the plan limit says which limit and keeps the name and photo on screen (issue 50 item 9)', async () => {
    stubFetch({
      ...uploadHandlers(),
      'GET /api/subscription': () => freeSubscription({ productsUsed: 3 } as never),
      'POST /api/uploads/up1/cutout': ({ body }) => ({ status: 'ready', url: '/blobs?obj=cutouts/up1.png', ...(body as object) }),
      'POST /api/products': () =>
        jsonResponse({ success: false, error: { code: 'product_limit', message: 'Free plan limited to 2 products. Upgrade to Pro for 50 listings.' } }, 403),
    });
    const { router } = render('/workspace/add-product');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    await user.upload(screen.getByTestId('wizard-photo-input'), photo());
    await screen.findByAltText('Photo chair.jpg');
    await user.click(screen.getByRole('button', { name: 'Generate 3D now' }));
    // It used to open My Subscription at once, with no reason and the draft out of view.
    const dialog = await screen.findByRole('alertdialog', { name: 'Product limit reached' });
    expect(within(dialog).getByTestId('product-limit-message')).toHaveTextContent('Free plan limited to 2 products. Upgrade to Pro for 50 listings.');
    expect(await within(dialog).findByTestId('product-limit-count')).toHaveTextContent('You have 3 of 2 products.');
    expect(within(dialog).getByText('Your product name and photo stay here.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/workspace/add-product');
    await user.click(within(dialog).getByRole('button', { name: 'Not now' }));
    expect(screen.getByLabelText('Product name')).toHaveValue('Oak chair');
    expect(screen.getByAltText('Photo chair.jpg')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Generate 3D now' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('link', { name: 'See plans' }));
    expect(await screen.findByRole('heading', { name: 'My Subscription' })).toBeInTheDocument();
  });

  it('the modal follows the real progress, shows the spec failure text and Retry build starts a new build', async () => {
    let state = { status: 'processing', failureReason: '', builds: [{ jobId: 'j1', status: 'processing', progress: 37, stage: 'mesh' }] } as Record<string, unknown>;
    const { calls } = stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/products/p1': () => detail({ ...state, modelUrl: '' }),
      'GET /api/jobs/j1': () => ({ id: 'j1', status: 'processing', progress: 37 }),
      'POST /api/products/p1/rebuild': () => {
        state = { status: 'processing', builds: [{ jobId: 'j2', status: 'processing', progress: 0, stage: 'queued' }] };
        return jsonResponse({ success: true, data: detail({ ...state, modelUrl: '' }) }, 202);
      },
    });
    render('/workspace/add-product?step=configurator&product=p1');
    const modal = await screen.findByRole('dialog', { name: 'Building your 3D' });
    expect(within(modal).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '37');
    expect(within(modal).getByText('37% done')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(modal).getByRole('button', { name: 'Keep editing' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByTestId('configurator-no-model')).toHaveTextContent('Your 3D is building');

    state = { status: 'error', failureReason: '', builds: [{ jobId: 'j1', status: 'error', progress: 50, stage: 'mesh' }] };
    await user.click(screen.getByRole('button', { name: 'Show status' }));
    // The next poll reports the failure.
    const failed = await screen.findByText('The build stopped. Try a different angle or hit retry to run it again.', {}, { timeout: 6000 });
    expect(failed).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry build' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url === '/api/products/p1/rebuild')).toBe(true));
    await user.click(screen.getByRole('button', { name: 'Hide status' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('configurator: free plan sees the part-type upgrade text, the rule text, the empty links text; a server 400 is shown', async () => {
    stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/products/p1': () => detail(),
      'PATCH /api/products/p1/variants/v1': () =>
        jsonResponse({ success: false, error: { code: 'leather_excludes_fabric', message: 'Leather excludes Fabric: a variant cannot combine leather-tan and fabric-grey.' } }, 400),
      'PUT /api/products/p1/presets': ({ body }) => body,
    });
    render('/workspace/add-product?step=configurator&product=p1');
    expect(await screen.findByTestId('part-types-pro')).toHaveTextContent(
      'Part type options are available on Pro. Upgrade your plan to enable part-specific configuration.',
    );
    // The rule is shown only where it applies (issue 50 P7): no variant uses leather or fabric yet.
    expect(screen.queryByTestId('leather-rule')).toBeNull();
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Leather tan' }));
    expect(await screen.findByText('Leather excludes Fabric: a variant cannot combine leather-tan and fabric-grey.')).toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: 'Links' }));
    expect(screen.getByTestId('no-links')).toHaveTextContent('No links added yet. Add your first purchase link below.');
    await user.type(screen.getByLabelText('Purchase link'), 'amazon.in/dp/B0X');
    expect(screen.getByText('Amazon')).toHaveAttribute('data-platform', 'amazon');

    vi.useFakeTimers({ shouldAdvanceTime: true });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('button', { name: 'Saved.' })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(screen.getByRole('button', { name: 'Saved.' })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();
    vi.useRealTimers();
  });

  it('own model: a slow model shows "Preparing model…" until the worker is done; a refusal shows its message', async () => {
    let polls = 0;
    let product = detail({ source: 'photo' });
    const { calls } = stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/products/p1': () => product,
      'POST /api/products/p1/model': () => jsonResponse({ success: true, data: { id: 's1', productId: 'p1', status: 'preparing' } }, 202),
      'GET /api/products/p1/model/s1': () => {
        polls++;
        if (polls < 2) return { id: 's1', productId: 'p1', status: 'preparing' };
        product = detail({ source: 'upload', modelUrl: '/blobs?obj=models/own.glb' });
        return { id: 's1', productId: 'p1', status: 'ready' };
      },
      'GET /api/products/p1/model/s2': () => ({ id: 's2', productId: 'p1', status: 'failed', error: { code: 'model_too_complex', message: 'The model draws too much.' } }),
    });
    render('/workspace/add-product?step=configurator&product=p1');
    const input = await screen.findByTestId('own-model-input');
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(input, new File([new Uint8Array([0x67, 0x6c, 0x54, 0x46])], 'chair.glb'));
    expect(await screen.findByText('Preparing model…')).toBeInTheDocument();
    expect(await screen.findByText('Use my own 3D file', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(polls).toBe(2);
    await waitFor(() => expect(calls.filter((c) => c.method === 'GET' && c.url === '/api/products/p1').length).toBeGreaterThan(1));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    stubFetch({
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/products/p1': () => product,
      'POST /api/products/p1/model': () => jsonResponse({ success: true, data: { id: 's2', productId: 'p1', status: 'preparing' } }, 202),
      'GET /api/products/p1/model/s2': () => ({ id: 's2', productId: 'p1', status: 'failed', error: { code: 'model_too_complex', message: 'The model draws too much.' } }),
    });
    await user.upload(screen.getByTestId('own-model-input'), new File([new Uint8Array([0x67, 0x6c, 0x54, 0x46])], 'points.glb'));
    expect(await screen.findByText('The model draws too much.', {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it('preview shows the server checklist; publish shows the live texts, toggles republish, Copied for 1.2 s, Done → list', async () => {
    let pub: Record<string, unknown> | null = null;
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ publication: pub }),
      'GET /api/products/p1/checks': () => ({
        items: [
          { key: 'variants', ok: true, detail: '2 variants build' },
          { key: 'hotspots', ok: false, detail: 'h1 is off the model' },
          { key: 'links', ok: true, detail: '' },
          { key: 'camera', ok: false, detail: 'not saved yet' },
        ],
      }),
      'POST /api/products/p1/publish': ({ body }) => {
        pub = { publicationId: 'pub1', slug: 'abc', shareURL: 'http://localhost/v/abc', embedCode: '', qrURL: '/api/publications/pub1/qr.png', version: 1, locked: false, ...(body as object) };
        return pub;
      },
    });
    const { router } = render('/workspace/add-product?step=preview&product=p1');
    const list = await screen.findByTestId('checklist');
    await waitFor(() => expect(within(list).getAllByText('✓')).toHaveLength(2));
    expect(list.querySelector('[data-check="hotspots"]')).toHaveAttribute('data-ok', 'false');
    expect(within(list).getByText('Variants switch')).toBeInTheDocument();
    expect(within(list).getByText('Default camera angle')).toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Publish' }));
    // Issue 29 item 6: the options come first; nothing is public until "Publish now".
    await user.click(await screen.findByRole('checkbox', { name: 'Require email capture' }));
    expect(screen.getByRole('checkbox', { name: 'Require email capture' })).toBeChecked();
    expect(calls.filter((c) => c.url === '/api/products/p1/publish')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Publish now' }));
    expect(await screen.findByRole('heading', { name: LIVE_TITLE })).toBeInTheDocument();
    expect(screen.getByTestId('share-url')).toHaveValue('http://localhost/v/abc');
    expect(screen.getByRole('checkbox', { name: 'Require email capture' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Allow deep links to variants' }));
    expect(screen.getByRole('checkbox', { name: 'Allow deep links to variants' })).toBeChecked();
    expect(await screen.findByText('Saved')).toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/api/products/p1/publish').map((c) => c.body)).toEqual([
      { requireEmail: true, allowDeepLinks: false },
      { requireEmail: true, allowDeepLinks: true },
    ]);

    await user.click(screen.getByRole('button', { name: 'Show embed code' }));
    expect(screen.getByLabelText('Embed code')).toHaveValue(
      '<iframe src="http://localhost/embed/abc" width="800" height="600" style="display:block;width:100%;max-width:800px;height:auto;aspect-ratio:800/600;border:0" allow="xr-spatial-tracking; fullscreen" allowfullscreen></iframe>',
    );
    // userEvent puts its own clipboard in place at setup; this one records what was copied.
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await user.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(writeText).toHaveBeenCalledWith('http://localhost/v/abc');
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1250));
    expect(screen.getByRole('button', { name: 'Copy link' })).toBeInTheDocument();
    vi.useRealTimers();
    expect(screen.getByTestId('versioning-note')).toHaveTextContent('Edits update your live page right away, unless a version is locked.');
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(router.state.location.pathname).toBe('/workspace/products');
  });

  it('preview shows the build quality where the merchant decides to publish (merchant walk 4, H3)', async () => {
    const checks = { items: [{ key: 'variants', ok: true, detail: '' }] };
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ readyMetric: 65, views: 1 }),
      'GET /api/products/p1/checks': () => checks,
    });
    const { unmount } = render('/workspace/add-product?step=preview&product=p1');
    expect(await screen.findByTestId('fidelity')).toHaveTextContent('Mesh fidelity 65% (low)');
    expect(screen.getByText('Add three more photos from the sides and back for an accurate shape.')).toBeInTheDocument();
    expect(screen.queryByTestId('build-warnings')).toBeNull();
    unmount();

    const cut = 'Photo 2: the product runs off the top edge of the photo, so the model may miss the part outside it.';
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ readyMetric: null, views: 3, buildWarnings: [cut] }),
      'GET /api/products/p1/checks': () => checks,
    });
    render('/workspace/add-product?step=preview&product=p1');
    expect(await screen.findByTestId('fidelity')).toHaveTextContent('Mesh fidelity not measured');
    expect(screen.getByTestId('preview-views')).toHaveTextContent('Built from 3 photos');
    expect(screen.getByText('Check this model from every side before you publish.')).toBeInTheDocument();
    // A photo that cut the product off is named where the merchant decides to publish.
    expect(screen.getByTestId('build-warnings')).toHaveTextContent(cut);
  });

  it('publish step: an editor under approvals gets a request, not a live page with an empty link (issue 51)', async () => {
    const approval = {
      id: 'ap1', productId: 'p1', productName: 'Chair', pageVersion: 1, requireEmail: false, allowDeepLinks: false, status: 'pending',
      requestedBy: { id: 'user-u1', kind: 'user', name: 'Ada Editor' }, requestedAt: new Date().toISOString(), comment: '',
    };
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ publication: null }),
      'GET /api/workspaces': () => ({ items: [{ id: 'w1', name: "Olga's workspace", role: 'editor', own: false, requireApproval: true, members: 3 }], current: 'w1' }),
      'POST /api/products/p1/publish': () => jsonResponse({ success: true, data: { status: 'awaiting_approval', approvalId: 'ap1', approval } }, 202),
    });
    render('/workspace/add-product?step=publish&product=p1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Publish now' }));
    expect(await screen.findByRole('heading', { name: /is waiting for approval/ })).toBeInTheDocument();
    expect(screen.getByTestId('approval-notice')).toHaveTextContent('Ada Editor asked');
    expect(screen.queryByTestId('share-url')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/api/products/p1/publish')).toHaveLength(1);
  });

  it('publish step: a refused change rolls the option back and says why (issue 29 item 6)', async () => {
    const live = { publicationId: 'pub1', slug: 'abc', shareURL: 'http://localhost/v/abc', embedCode: '', qrURL: '', version: 1, locked: false, requireEmail: false, allowDeepLinks: false };
    let release: () => void = () => undefined;
    const answered = new Promise<void>((r) => (release = r));
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ publication: live }),
      'POST /api/products/p1/publish': async () => {
        await answered;
        return jsonResponse({ success: false, error: { code: 'upgrade_required', message: 'Public sharing is a Pro feature.' } }, 403);
      },
    });
    render('/workspace/add-product?step=publish&product=p1');
    const user = userEvent.setup();
    const gate = await screen.findByRole('checkbox', { name: 'Require email capture' });
    await user.click(gate);
    // Optimistic: ticked at once, "Saving…" until the server answers.
    expect(gate).toBeChecked();
    expect(screen.getByTestId('publish-save-state')).toHaveTextContent('Saving…');
    release();
    expect(await screen.findByText('Public sharing is a Pro feature.')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Require email capture' })).not.toBeChecked();
    expect(screen.getByTestId('publish-save-state')).toHaveTextContent('Not saved');
  });

  it('publish step: locking sends live: true (never the old version number) and says what shoppers see (issue 50 item 1)', async () => {
    const base = { publicationId: 'pub1', slug: 'abc', shareURL: 'http://localhost/v/abc', embedCode: '', qrURL: '', requireEmail: false, allowDeepLinks: false };
    const versions = [
      { version: 1, name: 'Chair', createdAt: '2027-05-01T09:00:00Z' },
      { version: 2, name: 'Chair', createdAt: '2027-05-05T11:00:00Z' },
    ];
    let pub: Record<string, unknown> = { ...base, version: 1, locked: false, lockedVersion: 0, pendingEdits: false, versions: versions.slice(0, 1) };
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ publication: pub }),
      'POST /api/publications/pub1/lock': ({ body }) => {
        const b = body as { live?: boolean; version?: number };
        pub = b.live
          ? { ...base, version: 2, locked: true, lockedVersion: 2, pendingEdits: false, versions }
          : { ...base, version: 2, locked: false, lockedVersion: 0, pendingEdits: false, versions };
        return pub;
      },
    });
    render('/workspace/add-product?step=publish&product=p1');
    const user = userEvent.setup();
    await waitFor(() => expect(screen.getByTestId('lock-status')).toHaveTextContent('Shoppers see your latest edits.'));
    expect(screen.getByTestId('lock-hint')).toHaveTextContent('Locking freezes the page exactly as shoppers see it now (price, buy links, variants, hotspots).');
    await user.click(screen.getByRole('button', { name: 'Lock the page as it is now' }));
    // The line is on screen already: wait for its text to change with the server's answer.
    await waitFor(() => expect(screen.getByTestId('lock-status')).toHaveTextContent(/^Locked: shoppers see version 2, published on 5 May 2027, /));
    expect(screen.getByTestId('lock-hint')).toHaveTextContent('Edits you make now do not show on the page until you publish them or unlock it.');
    expect(screen.queryByRole('button', { name: 'Publish my edits' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Unlock the page' }));
    expect(await screen.findByRole('button', { name: 'Lock the page as it is now' })).toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/api/publications/pub1/lock').map((c) => c.body)).toEqual([{ live: true }, { version: 0 }]);
  });

  it('publish step: edits made while locked are named, and Publish my edits locks them in (issue 50 item 1)', async () => {
    const pub = {
      publicationId: 'pub1', slug: 'abc', shareURL: 'http://localhost/v/abc', embedCode: '', qrURL: '', requireEmail: false, allowDeepLinks: false,
      version: 2, locked: true, lockedVersion: 2, pendingEdits: true, versions: [{ version: 2, name: 'Chair', createdAt: '2027-05-05T11:00:00Z' }],
    };
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products/p1': () => detail({ publication: pub }),
      'POST /api/publications/pub1/lock': () => pub,
    });
    render('/workspace/add-product?step=publish&product=p1');
    const user = userEvent.setup();
    await waitFor(() => expect(screen.getByTestId('lock-hint')).toHaveTextContent('You have edits that shoppers do not see yet. Publish them to update the locked page, or unlock it.'));
    await user.click(screen.getByRole('button', { name: 'Publish my edits' }));
    await waitFor(() => expect(calls.filter((c) => c.url === '/api/publications/pub1/lock').map((c) => c.body)).toEqual([{ live: true }]));
  });

  it("product page: the builder's warning about the current model stays under it", async () => {
    const cut =
      'The product runs off the top edge of the photo, so the model stops there: the part outside the photo is missing. ' +
      'For a faithful model, use a photo with the whole product in view and some space around it.';
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [], totalCatalogs: 0, totalProducts: 0 }),
      'GET /api/products/p1': () => detail({ buildWarnings: [cut] }),
      'GET /api/products/p1/leads': () => ({ items: [], nextCursor: '' }),
    });
    render('/workspace/product/p1');
    expect(await screen.findByTestId('build-warnings')).toHaveTextContent(cut);
  });

  it('product page: Configurator tab (variants: add, Default not deletable), leads with CSV download', async () => {
    let variants = detail().variants as Record<string, unknown>[];
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [], totalCatalogs: 0, totalProducts: 0 }),
      'GET /api/products/p1': () => detail({ variants }),
      // Two pages: the server pages leads (keyset cursor), the panel asks for the next on demand.
      'GET /api/products/p1/leads': ({ url }) =>
        url.searchParams.get('cursor') === 'c2'
          ? { items: [{ id: 'ld2', email: 'older@example.com', createdAt: '2026-03-01T10:00:00Z', variantId: '' }], nextCursor: '' }
          : { items: [{ id: 'ld1', email: 'shopper@example.com', createdAt: '2026-03-02T10:00:00Z', variantId: 'v1' }], nextCursor: 'c2' },
      'GET /api/products/p1/leads.csv': () => new Response('email\nshopper@example.com\n', { status: 200, headers: { 'Content-Type': 'text/csv' } }),
      'POST /api/products/p1/variants': () => {
        const v = { id: 'v2', name: 'Variant 2', material: 'original', parts: {}, sku: '', price: null, currency: '' };
        variants = [...variants, v];
        return v;
      },
    });
    const createObjectURL = vi.fn(() => 'blob:leads');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    render('/workspace/product/p1');
    const leads = await screen.findByTestId('leads');
    expect(leads).toHaveTextContent('shopper@example.com');
    expect(leads).toHaveTextContent('Default');
    expect(leads).not.toHaveTextContent('older@example.com');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Show more leads' }));
    await waitFor(() => expect(screen.getByTestId('leads')).toHaveTextContent('older@example.com'));
    expect(screen.queryByRole('button', { name: 'Show more leads' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/products/p1/leads.csv' && c.headers.get('Authorization') === 'Bearer tok-1')).toBe(true));

    await user.click(screen.getByRole('tab', { name: 'Configurator' }));
    await user.click(await screen.findByRole('tab', { name: 'Variants' }));
    const v1 = screen.getByLabelText('Name of v1').closest('li')!;
    expect(within(v1 as HTMLElement).queryByRole('button', { name: 'Delete' })).toBeNull();
    await user.click(screen.getByRole('button', { name: '+ Add variant' }));
    const v2 = (await screen.findByLabelText('Name of v2')).closest('li')!;
    expect(within(v2 as HTMLElement).getByRole('button', { name: 'Delete' })).toBeInTheDocument();
    expect(screen.getByLabelText('Variant', { selector: 'select' })).toHaveValue('v2');
  });

  it('product page: a hotspot row saves its trimmed title (Saved.) and shows why a delete was refused', async () => {
    const hotspot = { id: 'h1', position: [0, 0.5, 0], normal: [0, 0, 1], x: 0.5, y: 0.4, title: 'Seat', text: '' };
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [], totalCatalogs: 0, totalProducts: 0 }),
      'GET /api/products/p1': () => detail({ hotspots: [hotspot] }),
      'GET /api/products/p1/leads': () => ({ items: [], nextCursor: '' }),
      'PATCH /api/products/p1/hotspots/h1': ({ body }) => ({ ...hotspot, ...(body as object) }),
      'DELETE /api/products/p1/hotspots/h1': () => jsonResponse({ success: false, error: { code: 'conflict', message: 'The product is being rebuilt; try again in a moment.' } }, 409),
    });
    render('/workspace/product/p1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'Configurator' }));
    await user.click(await screen.findByRole('tab', { name: 'Hotspots' }));
    const row = (await screen.findByLabelText('Title of h1')).closest('li') as HTMLElement;
    await user.clear(within(row).getByLabelText('Title of h1'));
    await user.type(within(row).getByLabelText('Title of h1'), '  Oak seat  ');
    await user.click(within(row).getByRole('button', { name: 'Save hotspot' }));
    expect(await within(row).findByRole('button', { name: 'Saved.' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ title: 'Oak seat', text: '' });
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    expect(await within(row).findByText('The product is being rebuilt; try again in a moment.')).toBeInTheDocument();
    expect(screen.getByLabelText('Title of h1')).toBeInTheDocument();
  });
});
