import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription, trialSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';

// The real viewer needs WebGL; the element stays a plain unknown element here.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const common = {
  'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
  'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
  'GET /api/webhooks': () => ({ items: [], eventTypes: [] }),
  'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
};

function product(variants: unknown[]) {
  return {
    id: 'p1', name: 'Brass lamp', status: 'ready', jobId: 'j1', modelUrl: '/blobs?obj=models/p1.glb', photoUrl: '/blobs?obj=uploads/up1.jpg',
    source: 'photo', builds: [{ jobId: 'j1', status: 'ready', failureReason: '', progress: 100, stage: 'done' }], timeline: [], tags: [],
    variants, hotspots: [], links: [],
    presets: { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 105%', autospin: true },
    publication: null, createdAt: '2026-03-01T10:00:00Z', updatedAt: '2026-03-01T10:00:00Z',
  };
}

describe('Store settings: default currency (issue 29 item 20)', () => {
  it('saves the default currency, and shows the server message for a refused one', async () => {
    let stored: string | null = null;
    const { calls } = stubFetch({
      ...common,
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/settings/store': () => ({ defaultCurrency: stored }),
      'PUT /api/settings/store': ({ body }) => {
        const code = (body as { defaultCurrency: string }).defaultCurrency;
        if (code === 'NPR') return jsonResponse({ success: false, error: { code: 'invalid_currency', message: 'NPR is not a currency Photo3D supports.' } }, 400);
        stored = code;
        return { defaultCurrency: stored };
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const select = await screen.findByLabelText('Default currency');
    // A new account's default is the one in effect (the browser's currency), not "Not saved yet" (issue 50, P4).
    await waitFor(() => expect(select).toHaveValue('USD'));
    expect(screen.getByText(/New prices start in this currency/)).toHaveTextContent('shoppers see $899)');
    expect(screen.queryByText(/Not saved yet/)).toBeNull();
    const user = userEvent.setup();
    await user.selectOptions(select, 'NPR');
    await user.click(screen.getByRole('button', { name: 'Save store settings' }));
    expect(await screen.findByText('NPR is not a currency Photo3D supports.')).toBeInTheDocument();

    await user.selectOptions(select, 'INR');
    expect(screen.getByText(/shoppers see ₹899/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save store settings' }));
    expect(await screen.findByText('Store settings saved')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT' && c.url === '/api/settings/store').at(-1)?.body).toEqual({ defaultCurrency: 'INR' });
    await waitFor(() => expect(screen.queryByText(/Not saved yet\./)).toBeNull());
    expect(select).toHaveValue('INR');
  });

  it('a new price starts in the merchant default; a price already set keeps its own currency', async () => {
    let variants: Record<string, unknown>[] = [{ id: 'v1', name: 'Default', material: 'original', parts: {}, sku: '', price: 49, currency: 'USD' }];
    const { calls } = stubFetch({
      ...common,
      'GET /api/subscription': () => trialSubscription(),
      'GET /api/catalogs': () => ({ items: [], totalCatalogs: 0, totalProducts: 0 }),
      'GET /api/settings/store': () => ({ defaultCurrency: 'INR' }),
      'GET /api/products/p1': () => product(variants),
      'GET /api/products/p1/leads': () => ({ items: [], nextCursor: '' }),
      'POST /api/products/p1/variants': () => {
        const v = { id: 'v2', name: 'Variant 2', material: 'original', parts: {}, sku: '', price: null, currency: '' };
        variants = [...variants, v];
        return v;
      },
      'PATCH /api/products/p1/variants/v2': ({ body }) => {
        const v = { ...variants[1], ...(body as object) };
        variants = [variants[0], v];
        return v;
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/product/p1']);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'Configurator' }));
    await user.click(await screen.findByRole('tab', { name: 'Variants' }));
    const v1 = screen.getByLabelText('Name of v1').closest('li') as HTMLElement;
    expect(within(v1).getByRole('combobox', { name: 'Currency' })).toHaveValue('USD');
    expect(within(v1).getByTestId('price-preview')).toHaveTextContent('$49');

    await user.click(screen.getByRole('button', { name: '+ Add variant' }));
    const v2 = (await screen.findByLabelText('Name of v2')).closest('li') as HTMLElement;
    await waitFor(() => expect(within(v2).getByRole('combobox', { name: 'Currency' })).toHaveValue('INR'));
    await user.type(within(v2).getByLabelText('Price'), '899');
    expect(within(v2).getByTestId('price-preview')).toHaveTextContent('₹899');
    await user.click(within(v2).getByRole('button', { name: 'Save variant' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ price: 899, currency: 'INR' });
  });
});
