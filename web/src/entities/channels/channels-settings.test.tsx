import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { stubFetch } from '../../test/render';
import { ChannelsSettings } from './channels-settings';

afterEach(() => vi.unstubAllGlobals());

describe('ChannelsSettings', () => {
  it('shows the feed URL and rotates it', async () => {
    let token = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const { calls } = stubFetch({
      'GET /api/channels/google-feed': () => ({ url: `https://p3d.example/feeds/${token}/google.xml` }),
      'POST /api/channels/google-feed/rotate': () => {
        token = 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
        return { url: `https://p3d.example/feeds/${token}/google.xml` };
      },
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsSettings />
      </Provider>,
    );
    expect(await screen.findByDisplayValue('https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New URL' }));
    expect(await screen.findByText(/the old one no longer works/)).toBeInTheDocument();
    expect(await screen.findByDisplayValue('https://p3d.example/feeds/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/google.xml')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('connects a Shopify store with its token, never shows the token again, and disconnects', async () => {
    let connected = false;
    const { calls } = stubFetch({
      'GET /api/channels/google-feed': () => ({ url: 'https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml' }),
      'GET /api/channels/shopify': () => ({ shop: connected ? 'my-store.myshopify.com' : '', connected }),
      'PUT /api/channels/shopify': ({ body }) => {
        if ((body as { token: string }).token !== 'shpat_good') {
          return new Response(JSON.stringify({ success: false, error: { code: 'shopify_token_refused', message: 'Shopify refused the access token.' } }), { status: 400 });
        }
        connected = true;
        return { shop: 'my-store.myshopify.com', connected: true };
      },
      'DELETE /api/channels/shopify': () => {
        connected = false;
        return new Response(null, { status: 204 });
      },
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsSettings />
      </Provider>,
    );
    await userEvent.type(await screen.findByLabelText('Store domain'), 'my-store.myshopify.com');
    await userEvent.type(screen.getByLabelText('Admin API access token'), 'shpat_bad');
    await userEvent.click(screen.getByRole('button', { name: 'Connect Shopify' }));
    expect(await screen.findByText('Shopify refused the access token.')).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('Admin API access token'));
    await userEvent.type(screen.getByLabelText('Admin API access token'), 'shpat_good');
    await userEvent.click(screen.getByRole('button', { name: 'Connect Shopify' }));
    expect(await screen.findByText('my-store.myshopify.com')).toBeInTheDocument();
    expect(screen.queryByDisplayValue('shpat_good')).toBeNull();
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { shop: 'my-store.myshopify.com', token: 'shpat_bad' },
      { shop: 'my-store.myshopify.com', token: 'shpat_good' },
    ]);
    await userEvent.click(screen.getByRole('button', { name: 'Disconnect Shopify' }));
    expect(await screen.findByRole('button', { name: 'Connect Shopify' })).toBeInTheDocument();
  });
});
