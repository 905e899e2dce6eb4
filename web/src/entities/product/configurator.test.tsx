import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freeSubscription, productDetail } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { Configurator } from './configurator';
import { parseProductDetail } from './product-rules';

afterEach(() => vi.unstubAllGlobals());

/**
 * A stand-in <model-viewer> with the real element's typed properties: React 19 assigns a prop as a
 * property when the element has one, so the test sees what model-viewer itself would receive (a
 * string exposure would be a string here, not a number).
 */
class FakeModelViewer extends HTMLElement {
  exposure: unknown = 1;
  ar: unknown = true;
  src: unknown = null;
  poster: unknown = null;
  loaded = false;
}

beforeAll(() => {
  if (!customElements.get('model-viewer')) customElements.define('model-viewer', FakeModelViewer);
});

const variants = [
  { id: 'v1', name: 'Default', material: 'original', parts: {}, sku: '', price: null, currency: '' },
  { id: 'v2', name: 'Walnut', material: 'leather-tan', parts: {}, sku: '', price: null, currency: '' },
];
const presets = { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 118%', autospin: true, exposure: 1, poster: 'model', defaultVariantId: '' };

function render(over: Record<string, unknown> = {}, put?: (body: unknown) => unknown) {
  signIn();
  const { calls } = stubFetch({
    'GET /api/subscription': () => freeSubscription(),
    'PUT /api/products/p1/presets': ({ body }) => (put ? put(body) : body),
  });
  const product = parseProductDetail(productDetail({ variants, presets, thumbnailUrl: '/blobs?obj=thumbs/p1.png', ...over }));
  const utils = renderRoutes([{ path: '/', element: <Configurator product={product} /> }]);
  return { ...utils, calls };
}

async function viewer() {
  return waitFor(() => {
    const el = document.querySelector('model-viewer');
    if (!(el instanceof FakeModelViewer)) throw new Error('no model-viewer yet');
    return el;
  });
}

describe('Configurator viewer settings (issue 52)', () => {
  it('offers exposure, what shows while loading and the opening variant, shows exposure live as a number, and saves them', async () => {
    const { calls } = render();
    const settings = screen.getByTestId('viewer-settings');
    const slider = within(settings).getByLabelText('Exposure');
    expect(slider).toHaveAttribute('type', 'range');
    expect(slider).toHaveAttribute('min', '0.25');
    expect(slider).toHaveAttribute('max', '2');
    expect(slider).toHaveAttribute('step', '0.05');
    expect(within(settings).getByTestId('exposure-value')).toHaveTextContent('1.00');
    const el = await viewer();
    expect(el.exposure).toBe(1);
    expect(el.poster).toBe('/blobs?obj=thumbs/p1.png');

    fireEvent.change(slider, { target: { value: '1.4' } });
    expect(within(settings).getByTestId('exposure-value')).toHaveTextContent('1.40');
    // The preview's exposure property is the number, not the text "1.4".
    expect(el.exposure).toBe(1.4);

    const user = userEvent.setup();
    const poster = within(settings).getByLabelText('While the model loads');
    expect(within(poster).getAllByRole('option').map((o) => o.textContent)).toEqual(['Picture of the model', 'Loading bar only']);
    await user.selectOptions(poster, 'Loading bar only');
    // The preview follows: no picture while it loads.
    expect(el.poster).toBeFalsy();

    const opening = within(settings).getByLabelText('Opens on variant');
    expect(within(opening).getAllByRole('option').map((o) => o.textContent)).toEqual(['Default (the first)', 'Walnut']);
    await user.selectOptions(opening, 'Walnut');
    // The preview shows the variant the page will open on.
    expect(screen.getByLabelText('Variant')).toHaveValue('v2');

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ ...presets, exposure: 1.4, poster: 'none', defaultVariantId: 'v2' });
    expect(await screen.findByRole('button', { name: 'Saved.' })).toBeInTheDocument();
  });

  it('opens on the saved variant with the saved exposure, and the first variant is sent as ""', async () => {
    const { calls } = render({ presets: { ...presets, exposure: 0.6, poster: 'none', defaultVariantId: 'v2' } });
    const settings = screen.getByTestId('viewer-settings');
    expect(within(settings).getByLabelText('Exposure')).toHaveValue('0.6');
    expect(within(settings).getByTestId('exposure-value')).toHaveTextContent('0.60');
    expect(within(settings).getByLabelText('While the model loads')).toHaveValue('none');
    expect(within(settings).getByLabelText('Opens on variant')).toHaveValue('v2');
    expect(screen.getByLabelText('Variant')).toHaveValue('v2');
    const el = await viewer();
    expect(el.exposure).toBe(0.6);
    expect(el.poster).toBeFalsy();
    // Once the model is in, the preview shows that variant.
    act(() => {
      el.dispatchEvent(new Event('load'));
    });
    await waitFor(() => expect(el.getAttribute('variant-name')).toBe('v2'));

    const user = userEvent.setup();
    await user.selectOptions(within(settings).getByLabelText('Opens on variant'), 'Default (the first)');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ exposure: 0.6, poster: 'none', defaultVariantId: '' });
  });

  it("shows the server's refusal", async () => {
    render({}, () => jsonResponse({ success: false, error: { code: 'invalid_exposure', message: 'Choose an exposure from 0.25 to 2 (1 is neutral).' } }, 400));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Choose an exposure from 0.25 to 2 (1 is neutral).')).toBeInTheDocument();
  });

  it('reads presets saved before issue 52 as neutral exposure, the picture and the first variant', async () => {
    render({ presets: { lighting: 'Outdoor', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 118%', autospin: false } });
    const settings = screen.getByTestId('viewer-settings');
    expect(within(settings).getByTestId('exposure-value')).toHaveTextContent('1.00');
    expect(within(settings).getByLabelText('While the model loads')).toHaveValue('model');
    expect(within(settings).getByLabelText('Opens on variant')).toHaveValue('');
    expect((await viewer()).exposure).toBe(1);
  });
});
