import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freeSubscription, productDetail } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import AddProductPage from './add-product-page';
import { MSG_DRAFT_ANGLES } from '../../entities/product/add-product-rules';

vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const jpg = (name: string) => new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], name, { type: 'image/jpeg' });

function handlers(over: Record<string, Parameters<typeof stubFetch>[0][string]> = {}) {
  let n = 0;
  return {
    'GET /api/subscription': () => freeSubscription(),
    'POST /api/uploads': () => {
      n += 1;
      return { uploadId: `up${n}`, uploadURL: `/blobs/put/up${n}`, publicURL: `/blobs?obj=uploads/up${n}.jpg` };
    },
    'PUT /blobs/put/up1': () => ({}),
    'PUT /blobs/put/up2': () => ({}),
    'PUT /blobs/put/up3': () => ({}),
    'POST /api/uploads/up1/cutout': ({ body }: { body: unknown }) => ({ status: 'ready', url: '/blobs?obj=cutouts/up1.png', ...(body as object) }),
    ...over,
  };
}

/** A product whose three-photo build is queued (the shared fixture, building). */
function product(over: Record<string, unknown> = {}) {
  return productDetail({
    status: 'processing',
    modelUrl: '',
    builds: [{ jobId: 'j1', status: 'processing', failureReason: '', progress: 0, stage: 'Queued' }],
    views: 3,
    ...over,
  });
}

function render() {
  signIn();
  return renderRoutes(
    [
      { path: '/workspace/add-product', element: <AddProductPage /> },
      { path: '/workspace/products', element: <h1>My Products</h1> },
    ],
    ['/workspace/add-product'],
  );
}

describe('Add Product wizard: more angles', () => {
  it('after the photo, two more angles are uploaded and sent as moreImages in order; the build says "Built from 3 photos"', async () => {
    const { calls } = stubFetch(
      handlers({
        'POST /api/products': () => product(),
        'GET /api/products/p1': () => product(),
        'GET /api/jobs/j1': () => ({ id: 'j1', status: 'queued', progress: 0, views: 3 }),
      }),
    );
    render();
    const user = userEvent.setup();
    expect(screen.queryByText('Add more angles (optional)')).toBeNull();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    await user.upload(screen.getByTestId('wizard-photo-input'), jpg('front.jpg'));
    await screen.findByAltText('Photo front.jpg');
    expect(screen.getByText('Add more angles (optional)')).toBeInTheDocument();
    expect(screen.getByTestId('build-price')).toHaveTextContent('Uses 1 AI credit');
    await user.upload(screen.getByTestId('more-angles-input'), [jpg('left.jpg'), jpg('back.jpg')]);
    // The price before Generate 3D now: one AI credit per photo (security review M6).
    expect(screen.getByTestId('build-price')).toHaveTextContent('Uses 3 AI credits, one per photo');
    await user.click(screen.getByRole('button', { name: 'Generate 3D now' }));

    const modal = await screen.findByRole('dialog', { name: 'Building your 3D' });
    expect(within(modal).getByTestId('build-views')).toHaveTextContent('Built from 3 photos');
    const post = calls.find((c) => c.method === 'POST' && c.url === '/api/products');
    expect(post?.body).toEqual(
      expect.objectContaining({
        uploadId: 'up1',
        generate: true,
        moreImages: [{ imageURL: '/blobs?obj=uploads/up2.jpg' }, { imageURL: '/blobs?obj=uploads/up3.jpg' }],
      }),
    );
  });

  it('Save as draft with extra angles says why and creates nothing', async () => {
    const { calls } = stubFetch(handlers({ 'POST /api/products': () => product({ status: 'draft' }) }));
    render();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Product name'), 'Oak chair');
    await user.upload(screen.getByTestId('wizard-photo-input'), jpg('front.jpg'));
    await screen.findByAltText('Photo front.jpg');
    await user.upload(screen.getByTestId('more-angles-input'), [jpg('left.jpg')]);
    await user.click(screen.getByRole('button', { name: 'Save as draft' }));
    expect(await screen.findByText(MSG_DRAFT_ANGLES)).toBeInTheDocument();
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url === '/api/products')).toBe(false));
    // Removing the extra photo lets the draft through.
    await user.click(screen.getByRole('button', { name: 'Remove left.jpg' }));
    await user.click(screen.getByRole('button', { name: 'Save as draft' }));
    expect(await screen.findByRole('heading', { name: 'My Products' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST' && c.url === '/api/products')?.body).not.toHaveProperty('moreImages');
  });
});
