import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { productDetail, trialSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import AddProductPage from './add-product-page';

vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

/*
 * The Add Product wizard by role (issue 51): it only makes and publishes things, so a reviewer
 * reads the view-only note instead; and under approvals an editor's live page changes only
 * through a request, so the publish step offers no lock and no option toggles the server refuses.
 */

const live = {
  publicationId: 'pub1',
  slug: 'abc',
  shareURL: 'http://localhost/v/abc',
  embedCode: '',
  qrURL: '',
  requireEmail: true,
  allowDeepLinks: false,
  version: 1,
  locked: true,
  lockedVersion: 1,
  pendingEdits: false,
  versions: [{ version: 1, name: 'Oak chair', createdAt: '2027-05-01T09:00:00Z' }],
};

function render(role: 'editor' | 'reviewer', requireApproval: boolean, path: string) {
  const server = stubFetch({
    'GET /api/workspaces': () => ({
      items: [{ id: 'w9', name: 'Oak & Co', role, own: false, requireApproval, members: 3 }],
      current: 'w9',
    }),
    'GET /api/subscription': () => trialSubscription(),
    'GET /api/products/p1': () => productDetail({ publication: live }),
  });
  signIn();
  renderRoutes(
    [
      { path: '/workspace/add-product', element: <AddProductPage /> },
      { path: '/workspace/products', element: <h1>My Products</h1> },
    ],
    [path],
  );
  return server;
}

describe('Add product by role', () => {
  it('a reviewer reads the view-only note and the way back, not the wizard', async () => {
    render('reviewer', false, '/workspace/add-product');
    expect(await screen.findByTestId('view-only-note')).toBeInTheDocument();
    expect(screen.getByTestId('editors-only')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '← Back to products' })).toHaveAttribute('href', '/workspace/products');
    expect(screen.queryByRole('button', { name: /Generate 3D/ })).not.toBeInTheDocument();
  });

  it('under approvals an editor on a live page is sent to Request approval: no lock, no toggles', async () => {
    const { calls } = render('editor', true, '/workspace/add-product?step=publish&product=p1');
    const note = await screen.findByTestId('publish-needs-approval');
    expect(note).toHaveTextContent('Email capture is on; deep links to variants are off.');
    expect(screen.getByRole('link', { name: 'Request approval on the product page' })).toHaveAttribute('href', '/workspace/product/p1');
    expect(screen.queryByRole('button', { name: 'Unlock the page' })).not.toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: 'Require email capture' })).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('without approvals an editor keeps the lock and the options', async () => {
    render('editor', false, '/workspace/add-product?step=publish&product=p1');
    expect(await screen.findByRole('button', { name: 'Unlock the page' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Require email capture' })).toBeChecked();
    expect(screen.queryByTestId('publish-needs-approval')).not.toBeInTheDocument();
  });
});
