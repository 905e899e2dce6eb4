import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAuth } from '../../lib/auth-storage';
import { authLoaded } from '../../lib/session';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import ApprovalsPage from './approvals-page';

afterEach(() => vi.unstubAllGlobals());

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const pending = {
  id: 'a1',
  productId: 'p1',
  productName: 'Oak chair',
  pageVersion: 2,
  requireEmail: true,
  allowDeepLinks: false,
  status: 'pending',
  requestedBy: { id: 'user-u2', kind: 'user', name: 'Ada Editor' },
  requestedAt: ago(300_000),
  comment: '',
};
const comparison = {
  next: { version: 2, name: 'Oak chair', variants: [{ name: 'Oak', sku: 'OC-1', price: 4999, currency: 'INR' }], links: [{ url: 'https://shop.example.com/oak', variant: 'Oak' }], hotspots: ['Seat'], requireEmail: true, allowDeepLinks: false },
  live: { version: 1, name: 'Oak chair', variants: [{ name: 'Oak', sku: 'OC-1', price: 3999, currency: 'INR' }], links: [], hotspots: [], requireEmail: false, allowDeepLinks: false },
};
const decided = {
  ...pending,
  id: 'a0',
  pageVersion: 1,
  status: 'rejected',
  decidedBy: { id: 'user-u3', kind: 'user', name: 'Ravi Reviewer' },
  decidedAt: ago(3_600_000),
  requestedAt: ago(7_200_000),
  comment: 'The price is wrong.',
};

function render(role: string, handlers: Parameters<typeof stubFetch>[0]) {
  const server = stubFetch({
    'GET /api/workspaces': () => ({ items: [{ id: 'w1', name: 'Asha Home', role, own: false, requireApproval: true, members: 3 }], current: 'w1' }),
    ...handlers,
  });
  signIn();
  const out = renderRoutes([{ path: '/', element: <ApprovalsPage /> }]);
  out.store.dispatch(authLoaded(loadAuth()));
  return { ...server, ...out };
}

describe('Approvals page (issue 51)', () => {
  it('puts pending requests first with what would go live beside what is live; a reviewer approves with a comment', async () => {
    let items: unknown[] = [pending, decided];
    const { calls } = render('reviewer', {
      'GET /api/approvals': () => ({ items }),
      'GET /api/approvals/a1': () => ({ ...pending, comparison }),
      'POST /api/approvals/a1/approve': ({ body }) => {
        const done = { ...pending, status: 'approved', decidedBy: { id: 'user-u9', kind: 'user', name: 'Asha Rao' }, decidedAt: ago(0), comment: (body as { comment: string }).comment };
        items = [done, decided];
        return done;
      },
    });
    const card = await screen.findByRole('article', { name: 'Oak chair · version 2' });
    expect(card).toHaveTextContent('Ada Editor asked 5 min ago');
    const table = await within(card).findByRole('table', { name: 'What would go live for Oak chair' });
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Field', 'Live now (v1)', 'After approval (v2)']);
    const prices = within(table).getByRole('row', { name: /Variants and prices/ });
    expect(prices).toHaveTextContent('₹3,999');
    expect(prices).toHaveTextContent('₹4,999');
    expect(prices).toHaveAttribute('data-changed', 'true');
    expect(within(table).getByRole('row', { name: /Buy links/ })).toHaveTextContent('https://shop.example.com/oak (Oak)');
    expect(within(table).getByRole('row', { name: /Email gate/ })).toHaveTextContent('Shoppers leave their email first');

    const history = screen.getByRole('list', { name: 'Decided requests' });
    expect(history).toHaveTextContent('Rejected by Ravi Reviewer');
    expect(history).toHaveTextContent('The price is wrong.');

    const user = userEvent.setup();
    await user.type(within(card).getByLabelText('Comment'), 'Looks right.');
    await user.click(within(card).getByRole('button', { name: 'Approve' }));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'POST')).toMatchObject({ url: '/api/approvals/a1/approve', body: { comment: 'Looks right.' } }));
    await vi.waitFor(() => expect(screen.queryByRole('article')).not.toBeInTheDocument());
    expect(screen.getByTestId('approvals-empty')).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Decided requests' })).toHaveTextContent('Approved by Asha Rao');
    expect(screen.getByRole('list', { name: 'Decided requests' })).toHaveTextContent('Looks right.');
  });

  it('shows a refusal (the request was withdrawn meanwhile) with the server message', async () => {
    render('owner', {
      'GET /api/approvals': () => ({ items: [{ ...pending, comparison }] }),
      'POST /api/approvals/a1/reject': () => jsonResponse({ success: false, error: { code: 'approval_withdrawn', message: 'This request was withdrawn.' } }, 409),
    });
    const card = await screen.findByRole('article', { name: 'Oak chair · version 2' });
    await userEvent.setup().click(within(card).getByRole('button', { name: 'Reject' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('This request was withdrawn.');
  });

  it('an editor sees their requests without Approve or Reject, and may withdraw their own', async () => {
    render('editor', {
      'GET /api/approvals': () => ({ items: [{ ...pending, comparison, requestedBy: { id: 'user-u1', kind: 'user', name: 'Asha Rao' } }] }),
    });
    const card = await screen.findByRole('article', { name: 'Oak chair · version 2' });
    expect(within(card).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Withdraw request' })).toBeInTheDocument();
  });
});
