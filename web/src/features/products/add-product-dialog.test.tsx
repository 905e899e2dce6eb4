import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { AddProductDialog } from './add-product-dialog';

afterEach(() => vi.unstubAllGlobals());

// A refusal by the plan (a limit) is said in the dialog, with the way to the plans, instead of
// leaving the dialog for the subscription page.
describe('AddProductDialog', () => {
  it('a plan refusal stays in the dialog with its message and a link to the plans', async () => {
    const message = 'Free plan limited to 2 products. Upgrade to Pro for 50 listings.';
    stubFetch({
      'GET /api/blueprints': () => ({ items: [{ id: 'j1', name: 'Vase', status: 'ready', createdAt: '2026-03-01T10:00:00Z' }], nextCursor: '', total: 1, limit: 20 }),
      'POST /api/products': () => jsonResponse({ success: false, error: { code: 'product_limit', message } }, 403),
    });
    signIn();
    const { router } = renderRoutes([{ path: '/', element: <AddProductDialog onClose={() => {}} /> }], ['/']);
    const user = userEvent.setup();
    await user.click(within(await screen.findByRole('group', { name: 'Blueprint' })).getByLabelText(/^Vase/));
    await user.click(screen.getByRole('button', { name: 'Create product' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(message);
    expect(within(alert).getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/workspace/subscription');
    expect(router.state.location.pathname).toBe('/');
  });
});
