import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { stubFetch } from '../../test/render';
import { formatSize, parseChannels } from './channels-api';
import { ChannelsPanel } from './channels-panel';

afterEach(() => vi.unstubAllGlobals());

const MB = 1 << 20;

describe('ChannelsPanel', () => {
  it('shows each channel file against its budget with its colour and why it was reduced', async () => {
    stubFetch({
      'GET /api/products/p1/channels': () => ({
        productId: 'p1',
        assets: [
          { channel: 'web', label: 'Web viewer', format: 'glb', bytes: 1.5 * MB, warnBytes: 2 * MB, maxBytes: 2 * MB, status: 'green', notes: [], source: 'Photo3D web viewer: at most 2 MB' },
          {
            channel: 'commerce', label: 'Google Shopping & Shopify 3D model · Black', variantId: 'v2', format: 'glb', bytes: 12 * MB, warnBytes: 10 * MB, maxBytes: 15 * MB,
            status: 'amber', notes: ['textures resized 8192 → 4096 px to fit 15 MB'], source: 'Google virtual_model_link',
          },
          { channel: 'quick-look', label: 'iPhone AR Quick Look · Black', variantId: 'v2', format: 'usdz', bytes: 16 * MB, warnBytes: 10 * MB, maxBytes: 15 * MB, status: 'red', notes: [], source: 'held to the commerce budget' },
        ],
      }),
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsPanel productId="p1" ready />
      </Provider>,
    );
    const panel = await screen.findByTestId('channels-panel');
    await within(panel).findByText('Web viewer');
    expect(panel.querySelectorAll('.channels__item')).toHaveLength(3);
    expect(screen.getByRole('meter', { name: /Web viewer: 1\.5 MB of 2 MB\. Within the recommended size/ })).toBeInTheDocument();
    const amber = panel.querySelector('[data-channel="commerce"]') as HTMLElement;
    expect(amber.dataset.status).toBe('amber');
    expect(within(amber).getByText('12 MB of 15 MB')).toBeInTheDocument();
    expect(within(amber).getByText('textures resized 8192 → 4096 px to fit 15 MB')).toBeInTheDocument();
    const red = panel.querySelector('[data-channel="quick-look"]') as HTMLElement;
    expect(within(red).getByText(/Over the limit/)).toBeInTheDocument();
    expect(red.querySelector('.channels__bar--red')).toHaveStyle({ width: '100%' });
  });

  it('says which files are being prepared and why a file was refused', async () => {
    stubFetch({
      'GET /api/products/p1/channels': () => ({
        productId: 'p1',
        assets: [
          { channel: 'web', label: 'Web viewer', format: 'glb', state: 'ready', bytes: 1.5 * MB, warnBytes: 2 * MB, maxBytes: 2 * MB, status: 'green', notes: [], source: 'Photo3D' },
          { channel: 'commerce', label: 'Google Shopping & Shopify 3D model · Black', variantId: 'v2', format: 'glb', state: 'pending', status: 'pending', bytes: 0, warnBytes: 10 * MB, maxBytes: 15 * MB, notes: [], source: 'Google' },
          {
            channel: 'quick-look', label: 'iPhone AR Quick Look · Black', variantId: 'v2', format: 'usdz', state: 'refused', status: 'refused', bytes: 0, warnBytes: 10 * MB, maxBytes: 15 * MB,
            reason: 'The iPhone AR Quick Look file cannot be made within its size limit. Upload a lighter model.', notes: [], source: 'held to the commerce budget',
          },
        ],
      }),
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsPanel productId="p1" ready />
      </Provider>,
    );
    const panel = await screen.findByTestId('channels-panel');
    const pending = await within(panel).findByText('Being prepared…');
    expect(pending.closest('li')?.dataset.status).toBe('pending');
    expect(within(panel).getByText('The iPhone AR Quick Look file cannot be made within its size limit. Upload a lighter model.')).toBeInTheDocument();
    expect(panel.querySelectorAll('[role="meter"]')).toHaveLength(1);
  });

  it('asks nothing while the model is not ready', () => {
    const { calls } = stubFetch({});
    render(
      <Provider store={makeStore()}>
        <ChannelsPanel productId="p1" ready={false} />
      </Provider>,
    );
    expect(screen.queryByTestId('channels-panel')).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('reads hostile answers safely and formats sizes', () => {
    expect(parseChannels({ assets: [{ status: 'purple', bytes: 'lots', notes: [1, 'ok'] }] })).toEqual([
      { channel: 'web', label: '', variantId: '', format: 'glb', bytes: 0, warnBytes: 0, maxBytes: 0, status: 'red', state: 'ready', reason: '', notes: ['ok'], source: '' },
    ]);
    expect(parseChannels(null)).toEqual([]);
    expect(formatSize(15 * MB)).toBe('15 MB');
    expect(formatSize(1.25 * MB)).toBe('1.3 MB');
    expect(formatSize(300 * 1024)).toBe('300 KB');
  });

  it('sends the model to the Shopify product the merchant finds by title', async () => {
    const { calls } = stubFetch({
      'GET /api/products/p1/channels': () => ({ productId: 'p1', assets: [] }),
      'GET /api/channels/shopify': () => ({ shop: 'my-store.myshopify.com', connected: true }),
      'GET /api/channels/shopify/products': ({ url }) => (url.searchParams.get('query') === 'lounge' ? { items: [{ id: 'gid://shopify/Product/42', title: 'Lounge Chair' }] } : { items: [] }),
      'POST /api/products/p1/channels/shopify': () => ({ shopifyProductId: 'gid://shopify/Product/42', media: [{ id: 'm1', mediaContentType: 'MODEL_3D' }, { id: 'm2', mediaContentType: 'IMAGE' }], replaced: 2 }),
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsPanel productId="p1" ready />
      </Provider>,
    );
    await userEvent.type(await screen.findByLabelText('Shopify product title'), 'lounge');
    await userEvent.click(screen.getByRole('button', { name: 'Find' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Send model' }));
    expect(await screen.findByText('Sent to “Lounge Chair”: 2 file(s) attached, the 2 sent before replaced.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ shopifyProductId: 'gid://shopify/Product/42' });
  });
});
