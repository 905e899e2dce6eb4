// The product page's side of issue 51 (features/products/product-detail-page.tsx): kept here with
// the team entity it uses, so that feature's folder holds only the page itself.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { productDetail, trialSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch, testUser } from '../../test/render';
import { loadAuth } from '../../lib/auth-storage';
import { authLoaded } from '../../lib/session';
import ProductDetailPage from '../../features/products/product-detail-page';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const workspaces = (role: string, requireApproval: boolean) => ({
  items: [
    { id: 'u1', name: "Asha's workspace", role: 'owner', own: true, requireApproval: false, members: 1 },
    { id: 'w9', name: 'Oak & Co', role, own: false, requireApproval, members: 3 },
  ],
  current: 'w9',
});

const requested = (over: Record<string, unknown> = {}) => ({
  id: 'a1',
  productId: 'p1',
  productName: 'Oak chair',
  pageVersion: 1,
  requireEmail: true,
  allowDeepLinks: false,
  status: 'pending',
  requestedBy: { id: `user-${testUser.id}`, kind: 'user', name: 'Asha Rao' },
  requestedAt: new Date(Date.now() - 120_000).toISOString(),
  comment: '',
  ...over,
});

function render(role: string, requireApproval: boolean, extra: Parameters<typeof stubFetch>[0] = {}) {
  const server = stubFetch({
    'GET /api/subscription': () => trialSubscription(),
    'GET /api/workspaces': () => workspaces(role, requireApproval),
    'GET /api/products/p1': () => productDetail(),
    'GET /api/catalogs': () => ({ items: [] }),
    'GET /api/config': () => ({ signupMode: 'open', mailDelivery: 'none' }),
    ...extra,
  });
  signIn();
  const { store } = renderRoutes([{ path: '/workspace/product/:productId', element: <ProductDetailPage /> }], ['/workspace/product/p1']);
  store.dispatch(authLoaded(loadAuth()));
  return server;
}

describe('publishing under approvals (issue 51)', () => {
  it("an editor's Publish asks for approval; the page then says Awaiting approval, who asked and when, with Withdraw", async () => {
    let pending: unknown[] = [];
    const { calls } = render('editor', true, {
      'GET /api/approvals': () => ({ items: pending }),
      'POST /api/products/p1/publish': () => {
        pending = [requested()];
        return jsonResponse({ success: true, data: { status: 'awaiting_approval', approvalId: 'a1', approval: requested() } }, 202);
      },
      'POST /api/approvals/a1/withdraw': () => {
        pending = [];
        return requested({ status: 'withdrawn', withdrawReason: 'cancelled' });
      },
    });
    const user = userEvent.setup();
    // Not a link to the wizard: the request is made here.
    await user.click(await screen.findByRole('button', { name: 'Publish' }));
    const dialog = screen.getByRole('dialog', { name: 'Request approval to publish' });
    await user.click(within(dialog).getByLabelText('Require email capture'));
    await user.click(within(dialog).getByRole('button', { name: 'Request approval' }));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'POST' && c.url === '/api/products/p1/publish')?.body).toEqual({ requireEmail: true, allowDeepLinks: false }));
    const notice = await screen.findByRole('status', { name: 'Awaiting approval' });
    expect(notice).toHaveTextContent('Asha Rao asked 2 min ago to publish version 1');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByTestId('product-awaiting')).toHaveTextContent('Awaiting approval');
    // Never "Live" while it waits.
    expect(screen.queryByTestId('product-live')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(calls.some((c) => c.url === '/api/approvals?productId=p1&state=pending' || c.url === '/api/approvals?state=pending&productId=p1')).toBe(true));

    await user.click(within(notice).getByRole('button', { name: 'Withdraw' }));
    await vi.waitFor(() => expect(screen.queryByRole('status', { name: 'Awaiting approval' })).not.toBeInTheDocument());
  });

  it("an owner keeps the wizard's Publish step", async () => {
    render('owner', true, { 'GET /api/approvals': () => ({ items: [] }) });
    expect(await screen.findByRole('link', { name: 'Publish' })).toHaveAttribute('href', expect.stringContaining('step=publish'));
  });

  it('a reviewer sees who asked, a Review link and no Withdraw', async () => {
    render('reviewer', true, { 'GET /api/approvals': () => ({ items: [requested({ requestedBy: { id: 'user-u2', kind: 'user', name: 'Ada Editor' } })] }) });
    const notice = await screen.findByRole('status', { name: 'Awaiting approval' });
    expect(notice).toHaveTextContent('Ada Editor asked');
    expect(within(notice).getByRole('link', { name: 'Review' })).toHaveAttribute('href', '/workspace/approvals');
    expect(within(notice).queryByRole('button', { name: 'Withdraw' })).not.toBeInTheDocument();
  });

  it('shows the server refusal in the dialog', async () => {
    render('editor', true, {
      'GET /api/approvals': () => ({ items: [] }),
      'POST /api/products/p1/publish': () => jsonResponse({ success: false, error: { code: 'upgrade_required', message: 'Sharing product pages needs the Pro plan.' } }, 403),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Publish' }));
    const dialog = screen.getByRole('dialog', { name: 'Request approval to publish' });
    await user.click(within(dialog).getByRole('button', { name: 'Request approval' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Sharing product pages needs the Pro plan.');
  });

  it('the Activity tab lists who did what', async () => {
    render('owner', false, {
      'GET /api/approvals': () => ({ items: [] }),
      'GET /api/products/p1/activity': () => ({
        items: [{ at: new Date().toISOString(), actor: { id: 'user-u2', kind: 'user', name: 'Ada Editor' }, action: 'requested approval for v1', kind: 'ApprovalRequested' }],
      }),
    });
    await userEvent.setup().click(await screen.findByRole('tab', { name: 'Activity' }));
    const list = await screen.findByRole('list', { name: 'Activity' });
    expect(list).toHaveTextContent('Ada Editor requested approval for v1');
    expect(screen.getByRole('tab', { name: 'Activity' })).toHaveAttribute('aria-selected', 'true');
  });
});
