import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freeSubscription, trialSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import ProductDetailPage from './product-detail-page';
import ProductsPage from './products-page';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

function product(i: number, over: Record<string, unknown> = {}) {
  return {
    id: `p${i}`,
    name: `Product ${i}`,
    description: '',
    productUrl: '',
    tags: i % 2 ? [`tag${i}`] : [],
    catalogId: 'c1',
    status: 'ready',
    jobId: `j${i}`,
    modelUrl: `/blobs?obj=models/${i}.glb`,
    thumbnailUrl: `/blobs?obj=thumbs/${i}.png`,
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-01T10:00:00Z',
    ...over,
  };
}

/** A tiny in-memory server that pages like the real one, so the UI is checked against what it asked for. */
function server(total: number, sub = trialSubscription({ productsUsed: total } as never)) {
  const all = Array.from({ length: total }, (_, i) => product(i + 1));
  return stubFetch({
    'GET /api/subscription': () => sub,
    'GET /api/products': ({ url }) => {
      const page = Number(url.searchParams.get('page') ?? 1);
      const size = Number(url.searchParams.get('pageSize') ?? 10);
      const status = url.searchParams.get('status');
      const items = status ? all.filter((p) => status.split(',').includes(p.status)) : all;
      return { items: items.slice((page - 1) * size, page * size), total: items.length, page, pageSize: size };
    },
  });
}

function render(path = '/workspace/products') {
  signIn();
  return renderRoutes(
    [
      { path: '/workspace/products', element: <ProductsPage /> },
      { path: '/workspace/product/:productId', element: <ProductDetailPage /> },
      { path: '/workspace/subscription', element: <h1>My Subscription</h1> },
    ],
    [path],
  );
}

describe('My Products', () => {
  it('pages 12 products at 10 per page with range text, Page X of Y and Prev/Next disabled at the ends', async () => {
    const { calls } = server(12);
    const { router } = render();
    const grid = await screen.findByRole('list', { name: 'Products' });
    expect(within(grid).getAllByTestId('product-card')).toHaveLength(10);
    expect(screen.getByTestId('range-text')).toHaveTextContent('1–10 of 12');
    expect(screen.getByTestId('page-text')).toHaveTextContent('Page 1 of 2');
    expect(screen.getByRole('button', { name: 'Prev' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByTestId('range-text')).toHaveTextContent('11–12 of 12'));
    await waitFor(() => expect(screen.getAllByTestId('product-card')).toHaveLength(2));
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(router.state.location.search).toBe('?page=2');
    // The card: real thumbnail, name, first tag or a dash, Manage.
    const card = screen.getAllByTestId('product-card')[0];
    expect(card.querySelector('img')).toHaveAttribute('src', '/blobs?obj=thumbs/11.png');
    expect(within(card).getByText('Product 11')).toBeInTheDocument();
    expect(within(card).getByText('tag11')).toBeInTheDocument();
    expect(within(screen.getAllByTestId('product-card')[1]).getByText('—')).toBeInTheDocument();
    // Rows per page goes back to page 1.
    await userEvent.selectOptions(screen.getByLabelText('Rows per page'), '20');
    await waitFor(() => expect(screen.getByTestId('range-text')).toHaveTextContent('1–12 of 12'));
    expect(router.state.location.search).toBe('?pageSize=20');
    expect(calls.at(-1)?.url).toContain('page=1&pageSize=20');
  }, 20_000);

  it('keeps filters in the URL, sends them to the server, and Reset filters clears them', async () => {
    const { calls } = server(3);
    const { router } = render('/workspace/products?status=error&from=2026-03-01&sort=name&page=1');
    expect(await screen.findByText('No products match your filters')).toBeInTheDocument();
    expect(screen.getByText('Try adjusting your search terms or clear the status filter to see the full product catalog.')).toBeInTheDocument();
    const url = new URL(calls.find((c) => c.url.startsWith('/api/products'))!.url, 'http://x');
    expect(url.searchParams.get('status')).toBe('error');
    expect(url.searchParams.get('from')).toBe('2026-03-01');
    expect(url.searchParams.get('sort')).toBe('name');
    expect(screen.getByTestId('range-text')).toHaveTextContent('0 items');
    await userEvent.click(screen.getByRole('button', { name: 'Reset filters' }));
    await waitFor(() => expect(screen.getAllByTestId('product-card')).toHaveLength(3));
    expect(router.state.location.search).toBe('?sort=name');
  });

  it('filter popover: ticking a status and changing sort return to page 1', async () => {
    server(12);
    const { router } = render('/workspace/products?page=2');
    await screen.findByText('11–12 of 12');
    await userEvent.click(screen.getByRole('button', { name: 'Filters' }));
    const panel = screen.getByRole('dialog', { name: 'Filters' });
    await userEvent.click(within(panel).getByLabelText('Needs attention'));
    await waitFor(() => expect(router.state.location.search).toBe('?status=error'));
    expect(within(panel).getByRole('button', { name: 'Clear all filters' })).toBeEnabled();
    await userEvent.click(within(panel).getByRole('button', { name: 'Clear all filters' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await userEvent.keyboard('{Escape}');
    await userEvent.selectOptions(screen.getByLabelText('Sort'), 'name');
    await waitFor(() => expect(router.state.location.search).toBe('?sort=name'));
  }, 20_000);

  it('search box: the terms go to the server as q and into the URL; emptying the box shows everything', async () => {
    const { calls } = stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/products': ({ url }) => {
        const q = (url.searchParams.get('q') ?? '').toLowerCase();
        const items = [product(1, { name: 'Oak chair' }), product(2, { name: 'Pine table' })].filter((p) => p.name.toLowerCase().includes(q));
        return { items, total: items.length, page: 1, pageSize: 10 };
      },
    });
    const { router } = render('/workspace/products?page=2');
    await screen.findByText('Pine table');
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search products' }), '  oak {Enter}');
    await waitFor(() => expect(router.state.location.search).toBe('?q=oak'));
    await waitFor(() => expect(screen.queryByText('Pine table')).not.toBeInTheDocument());
    expect(screen.getByText('Oak chair')).toBeInTheDocument();
    expect(new URL(calls.at(-1)!.url, 'http://x').searchParams.get('q')).toBe('oak');
    // No match: the spec's empty state; Reset filters also empties the box.
    await userEvent.clear(screen.getByRole('searchbox', { name: 'Search products' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search products' }), 'walnut{Enter}');
    expect(await screen.findByText('No products match your filters')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Reset filters' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(screen.getByRole('searchbox', { name: 'Search products' })).toHaveValue('');
    await screen.findByText('Pine table');
  }, 20_000);

  it('free plan: shows the notice; Add product at the limit says which limit first, then See plans opens the subscription page', async () => {
    server(2, freeSubscription({ productsUsed: 2 } as never));
    const { router } = render();
    expect(await screen.findByText(/Free plan limited to 2 products\. Upgrade to Pro for 50 listings\./)).toBeInTheDocument();
    await screen.findAllByTestId('product-card');
    // Issue 50 item 9: it used to land on My Subscription with no reason given.
    await userEvent.click(screen.getByRole('button', { name: 'Add product' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Product limit reached' });
    expect(within(dialog).getByTestId('product-limit-message')).toHaveTextContent('Free plan limited to 2 products. Upgrade to Pro for 50 listings.');
    expect(within(dialog).getByTestId('product-limit-count')).toHaveTextContent('You have 2 of 2 products.');
    expect(router.state.location.pathname).toBe('/workspace/products');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Not now' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add product' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('link', { name: 'See plans' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/subscription'));
  });

  it('Manage opens the product; an unknown product shows the not-found state', async () => {
    server(1);
    const { router } = render();
    await userEvent.click(await screen.findByRole('button', { name: 'Manage Product 1' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/product/p1'));
    expect(await screen.findByTestId('product-not-found')).toBeInTheDocument();
  });
});

describe('Product detail', () => {
  /** Product p1 with the given timeline, in a workspace of one catalog. */
  const stubProductWithTimeline = (timeline: object[]) =>
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [{ id: 'c1', name: 'Default', isDefault: true, productCount: 1 }] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': () => ({ ...product(1), timeline }),
    });

  it('marks a low mesh fidelity in the timeline with a tip, as the blueprint card does', async () => {
    stubProductWithTimeline([
      { kind: 'mesh_reconstruction', label: 'Mesh reconstruction complete', detail: 'Mesh fidelity 52%', fidelity: 52, at: '2026-03-01T10:00:05Z' },
      { kind: 'mesh_reconstruction', label: 'Mesh reconstruction complete', detail: 'Mesh fidelity 91%', fidelity: 91, at: '2026-03-02T10:00:05Z' },
      { kind: 'materials_mapped', label: 'Materials mapped', detail: '3 parts', at: '2026-03-02T10:00:06Z' },
    ]);
    render('/workspace/product/p1');
    const timeline = await screen.findByTestId('timeline');
    const [low, good] = within(timeline).getAllByTestId('fidelity');
    expect(low).toHaveTextContent('Mesh fidelity 52% (low)');
    expect(low).toHaveAttribute('data-low', 'true');
    expect(good).toHaveTextContent('Mesh fidelity 91%');
    expect(good).not.toHaveTextContent('(low)');
    const tips = within(timeline).getAllByTestId('timeline-fidelity-tip');
    expect(tips).toHaveLength(1);
    expect(tips[0].closest('li')).toContainElement(low);
    expect(tips[0]).toHaveTextContent('Add three more photos from the sides and back for an accurate shape.');
    expect(within(timeline).getByText('· 3 parts')).toBeInTheDocument();
  });

  it("a spin set's low score in the timeline asks for the spin set again", async () => {
    stubProductWithTimeline([
      { kind: 'mesh_reconstruction', label: 'Mesh reconstruction complete', detail: 'Mesh fidelity 40%', fidelity: 40, views: 24, at: '2026-03-01T10:00:05Z' },
    ]);
    render('/workspace/product/p1');
    const timeline = await screen.findByTestId('timeline');
    expect(within(timeline).getByTestId('fidelity')).toHaveAttribute('title', expect.stringContaining('two halves of your spin set'));
    const tip = within(timeline).getByTestId('timeline-fidelity-tip');
    expect(tip).toHaveTextContent('Its photos disagree about its shape: shoot the spin set again');
    expect(tip).not.toHaveTextContent('Add three more photos');
  });

  it('edits details and tags and sends them to the server', async () => {
    const saved: unknown[] = [];
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [{ id: 'c1', name: 'Default', isDefault: true, productCount: 1 }] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': () => ({
        ...product(1, { tags: ['oak'] }),
        timeline: [
          { kind: 'product_created', label: 'Product created', at: '2026-03-01T10:00:00Z' },
          { kind: 'mesh_reconstruction', label: 'Mesh reconstruction complete', at: '2026-03-01T10:00:05Z' },
        ],
      }),
      'PATCH /api/products/p1': ({ body }) => {
        saved.push(body);
        return product(1, body as Record<string, unknown>);
      },
    });
    render('/workspace/product/p1');
    expect(await screen.findByRole('heading', { name: 'Product 1', level: 1 })).toBeInTheDocument();
    expect(screen.getByTestId('product-status')).toHaveTextContent('Ready');
    expect(within(screen.getByTestId('timeline')).getByText('Mesh reconstruction complete')).toBeInTheDocument();
    for (const name of ['3D View', 'AR Preview']) expect(screen.getByRole('tab', { name })).toBeInTheDocument();
    for (const name of ['Reset', 'Screenshot', 'Embed', 'Front', 'Side', 'Top-Down']) expect(screen.getByRole('button', { name })).toBeInTheDocument();

    await userEvent.clear(screen.getByLabelText('Name'));
    await userEvent.type(screen.getByLabelText('Name'), 'Oak Vase');
    await userEvent.type(screen.getByLabelText('Product URL'), 'shop.example.com/vase');
    await userEvent.type(screen.getByLabelText('Description'), 'Hand turned.');
    await userEvent.type(screen.getByLabelText('New tag'), 'walnut');
    await userEvent.click(screen.getByRole('button', { name: '+ Add Tag' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove tag oak' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save Details' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toEqual({ name: 'Oak Vase', productUrl: 'https://shop.example.com/vase', description: 'Hand turned.', tags: ['walnut'] });
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
  }, 20_000);
});

describe('Generate with AI (issue 29 item 17)', () => {
  function aiServer(aiDescriptions: boolean, answer: () => unknown) {
    const posts: string[] = [];
    stubFetch({
      'GET /api/config': () => ({ signupMode: 'open', aiDescriptions }),
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': () => ({ ...product(1), timeline: [] }),
      'POST /api/products/p1/describe': ({ url }) => {
        posts.push(url.pathname);
        return answer();
      },
    });
    return posts;
  }

  it('fills the description for the merchant to check and save', async () => {
    signIn();
    aiServer(true, () => ({ description: 'A hand-turned oak vase.' }));
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Generate with AI' }));
    await waitFor(() => expect(screen.getByLabelText('Description')).toHaveValue('A hand-turned oak vase.'));
    expect(screen.getByTestId('ai-note')).toHaveTextContent('Check it, then Save Details.');
  });

  it('says why when the model server is busy', async () => {
    signIn();
    aiServer(true, () => jsonResponse({ success: false, error: { code: 'ai_busy', message: 'The AI writer is busy right now. Please try again in a minute.' } }, 429));
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Generate with AI' }));
    expect(await screen.findByText('The AI writer is busy right now. Please try again in a minute.')).toBeInTheDocument();
    expect(screen.getByLabelText('Description')).toHaveValue('');
  });

  it('is hidden when the server has no LLM_URL', async () => {
    signIn();
    const posts = aiServer(false, () => ({ description: 'x' }));
    render('/workspace/product/p1');
    expect(await screen.findByRole('heading', { name: 'Product 1', level: 1 })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Description')).toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'Generate with AI' })).not.toBeInTheDocument();
    expect(posts).toHaveLength(0);
  });
});

describe('Product rebuild', () => {
  function rebuildServer(answer: () => unknown, status = 'ready') {
    let current = product(1, { status });
    const posts: string[] = [];
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': () => ({ ...current, timeline: [] }),
      'POST /api/products/p1/rebuild': ({ url }) => {
        posts.push(url.pathname);
        const out = answer();
        if (!(out instanceof Response)) current = out as typeof current;
        return out instanceof Response ? out : { ...current, timeline: [] };
      },
    });
    return posts;
  }

  it('asks first, then starts a new build: the product shows Processing 3D…', async () => {
    const posts = rebuildServer(() => product(1, { status: 'processing', jobId: 'j-new', modelUrl: '', thumbnailUrl: '' }));
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Rebuild 3D' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Rebuild 3D?' });
    expect(within(dialog).getByText(/uses one AI credit/)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(posts).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Rebuild 3D' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Rebuild 3D' }));
    await waitFor(() => expect(screen.getByTestId('product-status')).toHaveTextContent('Processing 3D…'));
    expect(posts).toEqual(['/api/products/p1/rebuild']);
    expect(screen.getByRole('button', { name: 'Rebuild 3D' })).toBeDisabled();
  }, 20_000);

  it('a build that has finished before the page reads the product again still shows on the page that it ran', async () => {
    // The worker was faster than the page: the POST answers Processing, every later read Ready.
    let built = false;
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': async () => {
        if (built) await new Promise((r) => setTimeout(r, 50)); // a network round trip
        return { ...product(1, { status: 'ready', jobId: built ? 'j-new' : 'j1' }), timeline: [] };
      },
      'POST /api/products/p1/rebuild': () => {
        built = true;
        return { ...product(1, { status: 'processing', jobId: 'j-new', modelUrl: '', thumbnailUrl: '' }), timeline: [] };
      },
    });
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Rebuild 3D' }));
    const shown: string[] = [];
    const record = new MutationObserver(() => shown.push(screen.queryByTestId('product-status')?.textContent ?? ''));
    record.observe(document.body, { subtree: true, childList: true, characterData: true });
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Rebuild 3D' }));
    await waitFor(() => expect(shown).toContain('Processing 3D…'));
    await waitFor(() => expect(screen.getByTestId('product-status')).toHaveTextContent('Ready'));
    record.disconnect();
  }, 20_000);

  it('a product built from 4 photos says the rebuild uses 4 AI credits, and the 402 says what it needs', async () => {
    const msg = 'Not enough AI credits: a build from 4 photos uses 4 credits, one per photo. Buy more credits or upgrade your plan on the Subscription page, or build from fewer photos.';
    const current = product(1, { status: 'ready', views: 4 });
    stubFetch({
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [] }),
      'GET /api/publications': () => ({ items: [] }),
      'GET /api/products/p1': () => ({ ...current, timeline: [] }),
      'POST /api/products/p1/rebuild': () => jsonResponse({ success: false, error: { code: 'insufficient_credits', message: msg } }, 402),
    });
    render('/workspace/product/p1');
    const button = await screen.findByRole('button', { name: 'Rebuild 3D' });
    expect(button).toHaveAttribute('title', 'Builds the 3D model again from its 4 photos (4 AI credits, one per photo).');
    await userEvent.click(button);
    const dialog = screen.getByRole('alertdialog', { name: 'Rebuild 3D?' });
    expect(dialog).toHaveTextContent('is built again from its 4 photos. This uses 4 AI credits, one per photo,');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Rebuild 3D' }));
    expect(await screen.findByText(msg)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upgrade your plan' })).toHaveAttribute('href', '/workspace/subscription');
  }, 20_000);

  it('402: says there is no AI credit left and links to the subscription page', async () => {
    const msg = 'Not enough AI credits. Buy more credits or upgrade your plan on the Subscription page.';
    rebuildServer(() => jsonResponse({ success: false, error: { code: 'insufficient_credits', message: msg } }, 402), 'error');
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Retry build' }));
    await userEvent.click(within(screen.getByRole('alertdialog', { name: 'Retry build?' })).getByRole('button', { name: 'Retry build' }));
    expect(await screen.findByText(msg)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upgrade your plan' })).toHaveAttribute('href', '/workspace/subscription');
    expect(screen.getByTestId('product-status')).toHaveTextContent('Failed');
  }, 20_000);

  it('409: says a build is still running (no upgrade link)', async () => {
    rebuildServer(() => jsonResponse({ success: false, error: { code: 'still_building', message: '' } }, 409));
    render('/workspace/product/p1');
    await userEvent.click(await screen.findByRole('button', { name: 'Rebuild 3D' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Rebuild 3D' }));
    expect(await screen.findByText('This product is still being built. Wait for the build to finish before starting another.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Upgrade your plan' })).not.toBeInTheDocument();
  }, 20_000);
});
