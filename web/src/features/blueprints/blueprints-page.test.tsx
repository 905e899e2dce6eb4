import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import BlueprintsPage from './blueprints-page';

const routes = [
  { path: '/workspace/blueprints', element: <BlueprintsPage /> },
  { path: '/workspace/upload', element: <p>upload page</p> },
  { path: '/preview/:jobId', element: <p>preview page</p> },
  { path: '/workspace/subscription', element: <p>subscription page</p> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];

const items = [
  { id: 'b1', name: 'Blue Vase', jobId: 'b1', thumbnailURL: '/t1.png', createdAt: new Date().toISOString(), status: 'ready' },
  { id: 'b2', name: 'Lamp', jobId: 'b2', thumbnailURL: null, createdAt: new Date().toISOString(), status: 'processing' },
  { id: 'b3', name: 'Chair', jobId: 'b3', thumbnailURL: null, createdAt: new Date().toISOString(), status: 'failed' },
];

beforeEach(() => signIn());

/** Names of the files the page saved through a blob link. */
function recordSavedFiles(): string[] {
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:glb') });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
  const saved: string[] = [];
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
  return saved;
}
afterEach(() => vi.unstubAllGlobals());

describe('My Blueprints', () => {
  it('shows the empty state', async () => {
    stubFetch({ 'GET /api/blueprints': () => ({ items: [], total: 0 }) });
    const { router } = renderRoutes(routes, ['/workspace/blueprints']);
    expect(await screen.findByText('No blueprints found')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Upload Your First Photo' }));
    expect(router.state.location.pathname).toBe('/workspace/upload');
  });

  it('lists real statuses and opens the preview', async () => {
    stubFetch({ 'GET /api/blueprints': () => ({ items, total: 3 }) });
    const { router } = renderRoutes(routes, ['/workspace/blueprints']);
    expect(screen.getByRole('heading', { name: 'My Blueprints' })).toBeInTheDocument();
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(cards.map((c) => within(c).getByTestId('blueprint-status').textContent?.trim())).toEqual(['Ready', 'Processing…', 'Failed']);
    expect(within(cards[1]).getByRole('button', { name: 'Download' })).toBeDisabled();
    await userEvent.click(within(cards[0]).getByRole('link', { name: 'Blue Vase' }));
    expect(router.state.location.pathname).toBe('/preview/b1');
  });

  it("shows each ready card's mesh fidelity from the server, marked when low", async () => {
    const scored = [
      { ...items[0], fidelity: 91 },
      { ...items[0], id: 'b4', jobId: 'b4', name: 'Mug', fidelity: 52 },
      { ...items[0], id: 'b5', jobId: 'b5', name: 'Old Build', fidelity: null },
    ];
    stubFetch({ 'GET /api/blueprints': () => ({ items: scored, total: 3 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(within(cards[0]).getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 91%');
    expect(within(cards[0]).getByTestId('fidelity')).not.toHaveTextContent('low');
    expect(within(cards[1]).getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 52% (low)');
    expect(within(cards[1]).getByTestId('fidelity-advice')).toHaveTextContent('Add three more photos from the sides and back for an accurate shape.');
    expect(within(cards[0]).queryByTestId('fidelity-advice')).toBeNull();
    expect(within(cards[2]).queryByTestId('fidelity')).toBeNull();
  });

  it("a spin set's low score asks for the spin set again, not for more photos", async () => {
    const spin = [{ ...items[0], id: 'b10', jobId: 'b10', name: 'oak-chair', fidelity: 40, views: 24, spin: { rings: [{ photos: 24, elevation: 0 }] } }];
    stubFetch({ 'GET /api/blueprints': () => ({ items: spin, total: 1 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const [card] = await screen.findAllByTestId('blueprint-card');
    expect(within(card).getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 40% (low)');
    const advice = within(card).getByTestId('fidelity-advice');
    expect(advice).toHaveTextContent('Its photos disagree about its shape: shoot the spin set again');
    expect(advice).not.toHaveTextContent('Add three more photos');
  });

  it('two builds of one name tell how many photos each used; the multi-photo one says it is not scored (walk 4, H1)', async () => {
    const twins = [
      { ...items[0], id: 'b6', jobId: 'b6', name: 'chair--40', fidelity: null, views: 4 },
      { ...items[0], id: 'b7', jobId: 'b7', name: 'chair--40', fidelity: 58, views: 1 },
    ];
    stubFetch({ 'GET /api/blueprints': () => ({ items: twins, total: 2 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(within(cards[0]).getByTestId('blueprint-views')).toHaveTextContent('Built from 4 photos');
    expect(within(cards[0]).getByTestId('fidelity')).toHaveTextContent('Mesh fidelity not measured');
    expect(within(cards[1]).getByTestId('blueprint-views')).toHaveTextContent('Built from 1 photo');
    expect(within(cards[1]).getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 58% (low)');
  });

  it('a spin set says its rings, and one cut from videos says its videos (issue 48)', async () => {
    const spins = [
      { ...items[0], id: 'b8', jobId: 'b8', name: 'oak-chair', fidelity: null, views: 24, spin: { rings: [{ photos: 12, elevation: 0 }, { photos: 12, elevation: 30 }] } },
      { ...items[0], id: 'b9', jobId: 'b9', name: 'teapot', fidelity: null, views: 12, spin: { rings: [{ photos: 12, elevation: 0 }], videos: 1 } },
    ];
    stubFetch({ 'GET /api/blueprints': () => ({ items: spins, total: 2 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(within(cards[0]).getByTestId('blueprint-views')).toHaveTextContent('Built from 24 photos in 2 rings');
    expect(within(cards[1]).getByTestId('blueprint-views')).toHaveTextContent('Built from 1 video (12 frames)');
  });

  it('a failed card says what was sent, not what it was built from: it built nothing', async () => {
    const failed = [
      { ...items[0], id: 'c1', jobId: 'c1', name: 'cabinet', status: 'failed', fidelity: null, views: 8, spin: { rings: [{ photos: 4, elevation: 0 }, { photos: 4, elevation: 30 }] } },
      { ...items[0], id: 'c2', jobId: 'c2', name: 'vase', status: 'failed', fidelity: null, views: 24, spin: { rings: [{ photos: 12, elevation: 0 }, { photos: 12, elevation: 30 }], videos: 2 } },
      { ...items[0], id: 'c3', jobId: 'c3', name: 'mug', status: 'failed', fidelity: null, views: 1 },
    ];
    stubFetch({ 'GET /api/blueprints': () => ({ items: failed, total: 3 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(cards.map((c) => within(c).getByTestId('blueprint-views').textContent)).toEqual(['8 photos in 2 rings', '2 videos (24 frames)', '1 photo']);
  });

  it('only a failed card offers Retry, which starts a new attempt and follows it', async () => {
    const { calls } = stubFetch({
      'GET /api/blueprints': () => ({ items, total: 3 }),
      'POST /api/jobs/b3/retry': () => ({ id: 'b4', status: 'queued', progress: 0 }),
    });
    const { router } = renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(cards.map((c) => !!within(c).queryByRole('button', { name: 'Retry' }))).toEqual([false, false, true]);
    await userEvent.click(within(cards[2]).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/b4'));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/api/jobs/b3/retry']);
  });

  it('a failed card whose photos were refused offers no Retry: it would be refused again', async () => {
    const refused = { ...items[2], id: 'b5', jobId: 'b5', retryable: false, error: 'We could not separate the product from its background.' };
    stubFetch({ 'GET /api/blueprints': () => ({ items: [items[2], refused], total: 2 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(cards.map((c) => !!within(c).queryByRole('button', { name: 'Retry' }))).toEqual([true, false]);
    expect(within(cards[1]).getByText('Failed')).toBeInTheDocument();
    // Its reason, and the way to other photos in Retry's place.
    expect(within(cards[1]).getByTestId('blueprint-failure')).toHaveTextContent('We could not separate the product from its background.');
    expect(within(cards[1]).getByRole('link', { name: 'Upload a different photo' })).toHaveAttribute('href', '/workspace/upload');
    expect(within(cards[0]).queryByRole('link', { name: 'Upload a different photo' })).toBeNull();
  });

  it('a refused spin set leads back to the spin page, one cut from videos to its video mode', async () => {
    const spin = { rings: [{ photos: 12, elevation: 0 }, { photos: 12, elevation: 30 }] };
    const sets = [
      { ...items[2], id: 'b6', jobId: 'b6', retryable: false, views: 24, spin, error: 'Photo 8: the product runs off the edge of the frame.' },
      { ...items[2], id: 'b7', jobId: 'b7', retryable: false, views: 24, spin: { ...spin, videos: 2 }, error: 'Video 1: less than a full turn.' },
    ];
    stubFetch({ 'GET /api/blueprints': () => ({ items: sets, total: 2 }) });
    renderRoutes(routes, ['/workspace/blueprints']);
    const cards = await screen.findAllByTestId('blueprint-card');
    expect(within(cards[0]).getByRole('link', { name: 'Upload another spin set' })).toHaveAttribute('href', '/workspace/upload/spin');
    expect(within(cards[1]).getByRole('link', { name: 'Film it again' })).toHaveAttribute('href', '/workspace/upload/spin?mode=videos');
    expect(within(cards[0]).getByTestId('blueprint-failure')).toHaveTextContent('Photo 8: the product runs off the edge of the frame.');
  });

  it('shows the first 20 of 25 and Load more fetches the rest through nextCursor', async () => {
    const all = Array.from({ length: 25 }, (_, i) => ({
      id: `b${i + 1}`,
      name: `Blueprint ${i + 1}`,
      jobId: `b${i + 1}`,
      thumbnailURL: null,
      createdAt: new Date().toISOString(),
      status: 'ready',
    }));
    const { calls } = stubFetch({
      'GET /api/blueprints': ({ url }) =>
        url.searchParams.get('cursor') === 'after-20'
          ? { items: all.slice(20), nextCursor: '', total: 25, limit: 20 }
          : { items: all.slice(0, 20), nextCursor: 'after-20', total: 25, limit: 20 },
    });
    renderRoutes(routes, ['/workspace/blueprints']);
    await waitFor(() => expect(screen.getAllByTestId('blueprint-card')).toHaveLength(20));
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('blueprint-card')).toHaveLength(25));
    expect(screen.getAllByTestId('blueprint-card').map((c) => within(c).getByRole('link', { name: /^Blueprint/ }).textContent)).toEqual(
      all.map((b) => b.name),
    );
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(calls.filter((c) => c.url.startsWith('/api/blueprints')).map((c) => c.url)).toEqual(['/api/blueprints', '/api/blueprints?cursor=after-20']);
  });

  it('renames with PATCH and deletes after confirming', async () => {
    let list = [...items];
    const { calls } = stubFetch({
      'GET /api/blueprints': () => ({ items: list, total: list.length }),
      'PATCH /api/blueprints/b1': ({ body }) => {
        list = list.map((b) => (b.id === 'b1' ? { ...b, name: (body as { name: string }).name } : b));
        return list[0];
      },
      'DELETE /api/blueprints/b3': () => {
        list = list.filter((b) => b.id !== 'b3');
        return new Response(null, { status: 204 });
      },
    });
    renderRoutes(routes, ['/workspace/blueprints']);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Rename Blue Vase' }));
    const input = screen.getByLabelText('Blueprint name');
    await user.clear(input);
    await user.type(input, 'Tall Blue Vase{Enter}');
    expect(await screen.findByRole('link', { name: 'Tall Blue Vase' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ name: 'Tall Blue Vase' });

    await user.click(screen.getByRole('button', { name: 'Delete Chair' }));
    const dialog = screen.getByRole('alertdialog', { name: /Delete “Chair”\?/ });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Delete Chair' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Chair' })).not.toBeInTheDocument());
    expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/blueprints/b3')).toBe(true);
  });

  it('Share publishes the job and copies the link; a plan limit links to the subscription', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    let allowed = true;
    const { calls } = stubFetch({
      'GET /api/blueprints': () => ({ items, total: 3 }),
      'POST /api/publications': () =>
        allowed
          ? { shareURL: 'http://localhost/v/blue-vase', embedCode: '<iframe></iframe>', qrURL: '/qr.png' }
          : jsonResponse({ success: false, error: { code: 'plan_required', message: 'Public sharing needs Pro. Upgrade to share.' } }, 403),
    });
    const { router } = renderRoutes(routes, ['/workspace/blueprints']);
    const [card] = await screen.findAllByTestId('blueprint-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Share' }));
    expect(await within(card).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith('http://localhost/v/blue-vase');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ blueprintId: 'b1' });
    await waitFor(() => expect(within(card).getByRole('button', { name: 'Share' })).toBeInTheDocument(), { timeout: 2000 });

    allowed = false;
    await userEvent.click(within(card).getByRole('button', { name: 'Share' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('Public sharing needs Pro. Upgrade to share.');
    await userEvent.click(within(card).getByRole('link', { name: 'Upgrade your plan' }));
    expect(router.state.location.pathname).toBe('/workspace/subscription');
  });

  it('Download fetches the model from the job and saves it under the slugified name', async () => {
    Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:glb') });
    Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
    const clicks: { href: string; download: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ href: this.href, download: this.download });
    });
    stubFetch({
      'GET /api/blueprints': () => ({ items, total: 3 }),
      'GET /api/jobs/b1': () => ({ id: 'b1', status: 'completed', modelURL: '/blobs/models/b1.glb?sig=1' }),
      'GET /blobs/models/b1.glb': () => new Response(new Uint8Array([0x67, 0x6c, 0x54, 0x46]), { headers: { 'Content-Type': 'model/gltf-binary' } }),
    });
    renderRoutes(routes, ['/workspace/blueprints']);
    const [card] = await screen.findAllByTestId('blueprint-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(clicks).toEqual([{ href: 'blob:glb', download: 'blue-vase.glb' }]));
  });

  it('Download after the signed model URL expired asks the server for a fresh one', async () => {
    const clicks = recordSavedFiles();
    const past = Math.floor(Date.now() / 1000) - 60;
    const future = Math.floor(Date.now() / 1000) + 3600;
    const stale = { ...items[0], modelURL: `/blobs?obj=models%2Fb1.glb&expiry=${past}&method=GET&signature=old` };
    const { calls } = stubFetch({
      'GET /api/blueprints': () => ({ items: [stale], total: 1 }),
      'GET /api/jobs/b1': () => ({ id: 'b1', status: 'completed', modelURL: `/blobs?obj=models%2Fb1.glb&expiry=${future}&method=GET&signature=new` }),
      'GET /blobs': ({ url }) =>
        url.searchParams.get('signature') === 'new'
          ? new Response(new Uint8Array([0x67, 0x6c, 0x54, 0x46]), { headers: { 'Content-Type': 'model/gltf-binary' } })
          : new Response(null, { status: 403 }),
    });
    renderRoutes(routes, ['/workspace/blueprints']);
    const [card] = await screen.findAllByTestId('blueprint-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(clicks).toEqual(['blue-vase.glb']));
    const blobGets = calls.filter((c) => c.url.startsWith('/blobs'));
    expect(blobGets.map((c) => new URLSearchParams(c.url.split('?')[1]).get('signature'))).toEqual(['new']);
    expect(within(card).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('Download retries with a fresh URL when the store refuses the one it had', async () => {
    const clicks = recordSavedFiles();
    const withURL = { ...items[0], modelURL: '/blobs?obj=m&signature=revoked' };
    stubFetch({
      'GET /api/blueprints': () => ({ items: [withURL], total: 1 }),
      'GET /api/jobs/b1': () => ({ id: 'b1', status: 'completed', modelURL: '/blobs?obj=m&signature=new' }),
      'GET /blobs': ({ url }) =>
        url.searchParams.get('signature') === 'new' ? new Response(new Uint8Array([1, 2, 3, 4])) : new Response(null, { status: 403 }),
    });
    renderRoutes(routes, ['/workspace/blueprints']);
    const [card] = await screen.findAllByTestId('blueprint-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(clicks).toEqual(['blue-vase.glb']));
  });
});
