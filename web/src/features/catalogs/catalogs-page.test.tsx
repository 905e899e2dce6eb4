import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { trialSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import CatalogPage from './catalog-page';
import CatalogsPage from './catalogs-page';

afterEach(() => vi.unstubAllGlobals());

const routes = [
  { path: '/workspace/catalogs', element: <CatalogsPage /> },
  { path: '/workspace/catalog/:catalogId', element: <CatalogPage /> },
];

describe('All Catalogs', () => {
  it('shows No Catalogs Yet, creates one, shows totals and the default badge, and deletes only non-default ones', async () => {
    signIn();
    let list: Record<string, unknown>[] = [];
    const deleted: string[] = [];
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: list, totalCatalogs: list.length, totalProducts: list.reduce((n, c) => n + (c.productCount as number), 0) }),
      'POST /api/catalogs': ({ body }) => {
        const c = { id: 'c2', productCount: 0, isDefault: false, ...(body as object) };
        list = [{ id: 'c0', name: 'Default catalog', productCount: 3, isDefault: true }, c];
        return c;
      },
      'DELETE /api/catalogs/c2': () => {
        deleted.push('c2');
        list = list.filter((c) => c.id !== 'c2');
        return {};
      },
    });
    renderRoutes(routes, ['/workspace/catalogs']);
    expect(await screen.findByText('No Catalogs Yet')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New catalog' }));
    await userEvent.type(screen.getByLabelText('Catalog name'), 'Summer');
    await userEvent.click(screen.getByRole('button', { name: 'Create catalog' }));
    expect(await screen.findByTestId('catalog-totals')).toHaveTextContent('2 catalogs · 3 products');
    const cards = screen.getAllByTestId('catalog-card');
    expect(within(cards[0]).getByText('Default')).toBeInTheDocument();
    expect(within(cards[0]).queryByRole('button', { name: /Delete/ })).toBeNull();
    await userEvent.click(within(cards[1]).getByRole('button', { name: 'Delete Summer' }));
    expect(screen.getByText('Its products are not deleted: they move to your default catalog.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getAllByTestId('catalog-card')).toHaveLength(1));
    expect(deleted).toEqual(['c2']);
    await userEvent.click(screen.getByRole('button', { name: 'List' }));
    expect(screen.getByRole('list', { name: 'Catalogs' })).toHaveClass('list-rows');
  }, 15_000);

  it('a catalog page: Back to Catalogs and No Products Yet', async () => {
    signIn();
    stubFetch({
      'GET /api/catalogs/c2': () => ({ id: 'c2', name: 'Summer', productCount: 0, isDefault: false }),
      'GET /api/catalogs/c2/products': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
    });
    renderRoutes(routes, ['/workspace/catalog/c2']);
    expect(await screen.findByText('No Products Yet')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Summer');
    expect(screen.getByRole('link', { name: '← Back to Catalogs' })).toHaveAttribute('href', '/workspace/catalogs');
  });

  it('the list view shows each product’s thumbnail (issue 29 item 18)', async () => {
    signIn();
    stubFetch({
      'GET /api/catalogs/c2': () => ({ id: 'c2', name: 'Summer', productCount: 2, isDefault: false }),
      'GET /api/catalogs/c2/products': () => ({
        items: [
          { id: 'p1', name: 'Vase', status: 'ready', tags: [], live: true, thumbnailURL: '/blobs/thumb-p1.png', updatedAt: '2026-11-25T00:00:00Z' },
          { id: 'p2', name: 'Jug', status: 'draft', tags: [], live: false, thumbnailURL: null, updatedAt: '2026-11-25T00:00:00Z' },
        ],
        total: 2,
        page: 1,
        pageSize: 10,
      }),
    });
    renderRoutes(routes, ['/workspace/catalog/c2?view=list']);
    expect(await screen.findByText('Vase')).toBeInTheDocument();
    const thumbs = screen.getAllByTestId('list-thumb');
    expect(thumbs).toHaveLength(1);
    expect(thumbs[0]).toHaveAttribute('src', '/blobs/thumb-p1.png');
    expect(screen.getByRole('link', { name: '← Back to Catalogs' })).toHaveClass('back-link');
  });

  it('Add products: picks several products, moves them here in one go and says where they came from (P13)', async () => {
    signIn();
    const moves: unknown[] = [];
    let here: Record<string, unknown>[] = [];
    const p = (id: string, name: string, catalogId: string) => ({ id, name, catalogId, status: 'ready', tags: [], live: false, thumbnailURL: null });
    stubFetch({
      'GET /api/catalogs': () => ({
        items: [
          { id: 'c0', name: 'Default catalog', productCount: 2, isDefault: true },
          { id: 'c1', name: 'Autumn', productCount: 1, isDefault: false },
          { id: 'c2', name: 'Summer', productCount: here.length, isDefault: false },
        ],
        totalCatalogs: 3,
        totalProducts: 3,
      }),
      'GET /api/catalogs/c2': () => ({ id: 'c2', name: 'Summer', productCount: here.length, isDefault: false }),
      'GET /api/catalogs/c2/products': () => ({ items: here, total: here.length, page: 1, pageSize: 10 }),
      'GET /api/products': () => ({ items: [p('p1', 'Vase', 'c0'), p('p2', 'Cup', 'c1'), p('p3', 'Jug', 'c0')], total: 3, page: 1, pageSize: 50 }),
      'POST /api/catalogs/c2/products': ({ body }) => {
        moves.push(body);
        here = [p('p1', 'Vase', 'c2'), p('p2', 'Cup', 'c2')];
        return {
          catalog: { id: 'c2', name: 'Summer', productCount: 2 },
          moved: [
            { id: 'p1', name: 'Vase', fromCatalogId: 'c0', fromCatalogName: 'Default catalog' },
            { id: 'p2', name: 'Cup', fromCatalogId: 'c1', fromCatalogName: 'Autumn' },
          ],
        };
      },
    });
    renderRoutes(routes, ['/workspace/catalog/c2']);
    expect(await screen.findByText('No Products Yet')).toBeInTheDocument();
    await userEvent.click(screen.getAllByRole('button', { name: 'Add products' })[0]);
    const dialog = await screen.findByRole('dialog', { name: 'Add products to Summer' });
    expect(within(dialog).getByText('A product belongs to one catalog: adding it here moves it out of the catalog it is in now.')).toBeInTheDocument();
    // The dialog opens before its product list has loaded: wait for the list.
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: /Vase/ }));
    expect(within(dialog).getByRole('checkbox', { name: /Cup/ })).toHaveAccessibleDescription('Now in Autumn');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Cup/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add 2 products' }));
    expect(await screen.findByTestId('catalog-added')).toHaveTextContent('Added 2 products to Summer. Vase moved out of Default catalog; Cup moved out of Autumn.');
    expect(moves).toEqual([{ productIds: ['p1', 'p2'] }]);
    expect(await screen.findByText('Cup')).toBeInTheDocument();
  }, 20_000);
});
