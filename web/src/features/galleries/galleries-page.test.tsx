import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freeSubscription, trialSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import GalleriesPage from './galleries-page';
import GalleryCreatePage from './gallery-create-page';
import GalleryDetailPage from './gallery-detail-page';

afterEach(() => vi.unstubAllGlobals());

const routes = [
  { path: '/workspace/gallery', element: <GalleriesPage /> },
  { path: '/workspace/gallery/create', element: <GalleryCreatePage /> },
  { path: '/workspace/gallery/:galleryId', element: <GalleryDetailPage /> },
];

function product(id: string, name: string) {
  return { id, name, status: 'ready', tags: ['oak'], thumbnailUrl: `/t/${id}.png`, createdAt: '2026-03-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z' };
}

describe('My Gallery', () => {
  it('free plan: the Pro gate with Upgrade to Pro and Start free trial, and no list call', async () => {
    signIn();
    let trial = false;
    const { calls } = stubFetch({
      'GET /api/subscription': () => (trial ? trialSubscription() : freeSubscription()),
      'POST /api/subscription/trial': ({ body }) => {
        expect(body).toEqual({ days: 7 });
        trial = true;
        return trialSubscription();
      },
      'GET /api/galleries': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
    });
    renderRoutes(routes, ['/workspace/gallery']);
    expect(await screen.findByText('Galleries are a Pro feature')).toBeInTheDocument();
    expect(screen.getByText('Pro allows up to 10 galleries and public sharing of collections')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' })).toHaveAttribute('href', '/workspace/subscription');
    expect(calls.some((c) => c.url.startsWith('/api/galleries'))).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Start free trial (7 days)' }));
    // No gallery and no filter: what a gallery is for, not "match your filters" (issue 29 item 14).
    expect(await screen.findByText('No galleries yet')).toBeInTheDocument();
    expect(screen.queryByText('No galleries match your filters')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create your first gallery' })).toBeEnabled();
    expect(screen.getByTestId('range-text')).toHaveTextContent('0 items');
    expect(screen.getByTestId('page-text')).toHaveTextContent('Page 1 of 1');
  });

  it('cards show the cover image, the uppercase name and the first tag; Manage opens the gallery', async () => {
    signIn();
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/galleries': () => ({
        items: [{ id: 'g1', name: 'Living room', status: 'ready', coverUrl: '/t/p2.png', tags: ['oak'], productCount: 2, productIds: ['p1', 'p2'] }],
        total: 1,
        page: 1,
        pageSize: 10,
      }),
      'GET /api/galleries/g1': () => ({ id: 'g1', name: 'Living room', coverProductId: 'p2', coverUrl: '/t/p2.png', products: [product('p1', 'Vase'), product('p2', 'Lamp')] }),
      'GET /api/products': () => ({ items: [product('p1', 'Vase'), product('p2', 'Lamp')], total: 2, page: 1, pageSize: 50 }),
    });
    const { router } = renderRoutes(routes, ['/workspace/gallery']);
    const card = await screen.findByTestId('gallery-card');
    expect(card.querySelector('img')).toHaveAttribute('src', '/t/p2.png');
    expect(within(card).getByText('Living room')).toHaveClass('item-card__name--upper');
    expect(within(card).getByText('oak')).toBeInTheDocument();
    expect(screen.getByTestId('range-text')).toHaveTextContent('1–1 of 1');
    await userEvent.click(within(card).getByRole('button', { name: 'Manage Living room' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/gallery/g1'));
    expect(await screen.findByTestId('gallery-cover')).toBeInTheDocument();
  });

  it('create: picks products, reorders, chooses the cover, tags it and opens the new gallery', async () => {
    signIn();
    const created: unknown[] = [];
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products': () => ({ items: [product('p1', 'Vase'), product('p2', 'Lamp')], total: 2, page: 1, pageSize: 50 }),
      'POST /api/galleries': ({ body }) => {
        created.push(body);
        return { id: 'g9', name: 'Summer' };
      },
      'GET /api/galleries/g9': () => ({ id: 'g9', name: 'Summer', coverProductId: 'p1', products: [product('p2', 'Lamp'), product('p1', 'Vase')] }),
    });
    const { router } = renderRoutes(routes, ['/workspace/gallery/create']);
    await userEvent.type(await screen.findByLabelText('Gallery name'), 'Summer');
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Vase' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Lamp' }));
    await userEvent.click(screen.getByRole('button', { name: 'Move Lamp up' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Use Vase as cover' }));
    await userEvent.type(screen.getByLabelText('Tags'), 'Patio{Enter}');
    await userEvent.type(screen.getByLabelText('Tags'), 'patio');
    await userEvent.click(screen.getByRole('button', { name: '+ Add Tag' }));
    expect(await screen.findByText('That tag is already there.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create gallery' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/gallery/g9'));
    expect(created).toEqual([{ name: 'Summer', description: '', productIds: ['p2', 'p1'], tags: ['Patio'], coverProductId: 'p1' }]);
  }, 20_000);

  it('share: Publish gallery page shows its link, embed code and QR (issue 29 item 14)', async () => {
    signIn();
    let pub: Record<string, unknown> | null = null;
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/galleries/g1': () => ({ id: 'g1', name: 'Living room', products: [{ ...product('p1', 'Vase'), live: true }, product('p2', 'Lamp')], publication: pub }),
      'POST /api/galleries/g1/publish': () => {
        pub = { id: 'pg', publicationId: 'pg', galleryId: 'g1', slug: 'gslug', shareURL: 'http://localhost/g/gslug', embedCode: '<iframe src="http://localhost/g/gslug/embed"></iframe>', qrURL: 'http://localhost/g/gslug/qr.png' };
        return pub;
      },
      'GET /api/galleries': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
    });
    renderRoutes(routes, ['/workspace/gallery/g1']);
    expect(await screen.findByTestId('gallery-live-note')).toHaveTextContent('1 of 2 products are live and shown.');
    await userEvent.click(screen.getByRole('button', { name: 'Publish gallery page' }));
    expect(await screen.findByTestId('gallery-share-url')).toHaveValue('http://localhost/g/gslug');
    expect(screen.getByLabelText('Embed code')).toHaveValue('<iframe src="http://localhost/g/gslug/embed"></iframe>');
    expect(screen.getByRole('img', { name: 'QR code that opens this gallery on your phone' })).toHaveAttribute('src', 'http://localhost/g/gslug/qr.png');
    expect(calls.filter((c) => c.url === '/api/galleries/g1/publish')).toHaveLength(1);
  });

  it('an unpublished product can be picked but is labelled "Not shown until published", as the server decides (live)', async () => {
    signIn();
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products': () => ({ items: [{ ...product('p1', 'Vase'), live: true }, { ...product('p2', 'Draft jug'), status: 'draft' }], total: 2, page: 1, pageSize: 50 }),
      'GET /api/galleries/g1': () => ({ id: 'g1', name: 'Kitchen', products: [{ ...product('p1', 'Vase'), live: true }, { ...product('p2', 'Draft jug'), status: 'draft' }] }),
    });
    renderRoutes(routes, ['/workspace/gallery/create']);
    const jug = (await screen.findByRole('checkbox', { name: 'Draft jug' })).closest('label') as HTMLElement;
    expect(within(jug).getByText('Not shown until published')).toBeInTheDocument();
    const vase = screen.getByRole('checkbox', { name: 'Vase' }).closest('label') as HTMLElement;
    expect(within(vase).queryByText('Not shown until published')).toBeNull();
    expect(screen.getByText(/appear on its public page only once you publish them/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Draft jug' }));
    const order = screen.getByRole('list', { name: 'Gallery order' });
    expect(within(order).getByText('Not shown until published')).toBeInTheDocument();
  });

  it('the gallery screen marks the products its public page does not show', async () => {
    signIn();
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 50 }),
      'GET /api/galleries/g1': () => ({ id: 'g1', name: 'Kitchen', products: [{ ...product('p1', 'Vase'), live: true }, { ...product('p2', 'Draft jug'), status: 'draft' }] }),
    });
    renderRoutes(routes, ['/workspace/gallery/g1']);
    const list = await screen.findByRole('list', { name: 'Products in this gallery' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]).not.toHaveTextContent('Not shown until published');
    expect(rows[1]).toHaveTextContent('Draft jugNot shown until published');
  });

  it('a search that finds nothing says so and offers Reset filters', async () => {
    signIn();
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/galleries': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
    });
    renderRoutes(routes, ['/workspace/gallery?q=zzz']);
    expect(await screen.findByText('No galleries match your filters')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reset filters' })).toBeInTheDocument();
  });
});
