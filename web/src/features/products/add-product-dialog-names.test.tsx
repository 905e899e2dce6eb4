import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { AddProductDialog } from './add-product-dialog';

afterEach(() => vi.unstubAllGlobals());

// Issue 50 item 14 (merchant walk 4, H14): the models are listed under the names the server
// gives them now (a product's builds follow its renames), and none is chosen for the merchant.
describe('AddProductDialog', () => {
  it('lists ready models by their current names, picks none, and creates from the one chosen', async () => {
    const { calls } = stubFetch({
      'GET /api/blueprints': () => ({
        items: [
          { id: 'j2', name: 'Red Mug', status: 'ready', thumbnailURL: '/blobs?obj=j2.png', createdAt: '2026-03-02T10:00:00Z', views: 4 },
          { id: 'j1', name: 'Lamp photo 1', status: 'ready', thumbnailURL: '/blobs?obj=j1.png', createdAt: '2026-03-01T10:00:00Z' },
          { id: 'j3', name: 'Still building', status: 'processing', createdAt: '2026-03-03T10:00:00Z' },
        ],
        nextCursor: '',
        total: 3,
        limit: 20,
      }),
      'POST /api/products': () => ({ id: 'p9', name: 'Lounge Side Chair', status: 'ready', tags: [] }),
    });
    signIn();
    const { router } = renderRoutes(
      [
        { path: '/', element: <AddProductDialog onClose={() => {}} /> },
        { path: '/workspace/product/:id', element: <h1>Product</h1> },
      ],
      ['/'],
    );
    const group = await screen.findByRole('group', { name: 'Blueprint' });
    const radios = within(group).getAllByRole('radio');
    expect(radios.map((r) => r.closest('.checkbox')?.textContent)).toEqual(['Red Mug', 'Lamp photo 1']);
    // Two builds of one name are told apart by their photos and age (merchant walk 4, H1).
    expect(radios[0]).toHaveAccessibleDescription(/^Built from 4 photos · /);
    expect(radios[1]).toHaveAccessibleDescription(/^Built from 1 photo · /);
    for (const r of radios) expect(r).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Create product' })).toBeDisabled();

    const user = userEvent.setup();
    await user.click(within(group).getByLabelText(/^Lamp photo 1/));
    expect(screen.getByLabelText('Product name')).toHaveAttribute('placeholder', 'Lamp photo 1');
    await user.type(screen.getByLabelText('Product name'), 'Lounge Side Chair');
    await user.click(screen.getByRole('button', { name: 'Create product' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/product/p9'));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Lounge Side Chair', blueprintId: 'j1' });
  });
});
