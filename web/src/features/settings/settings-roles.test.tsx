import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import SettingsPage from './settings-page';

afterEach(() => vi.unstubAllGlobals());

/*
 * Settings by role (issue 51), as internal/httpapi/access.go decides: branding, the store and the
 * channel connections are the owner's; API keys and webhooks the owner's and editors'; a reviewer
 * reads the webhooks and the feed; an analyst reads branding and the store (GET is open to every
 * member) and nothing else.
 */

type Role = 'owner' | 'editor' | 'reviewer' | 'analyst';

function render(role: Role) {
  const server = stubFetch({
    'GET /api/workspaces': () => ({
      items: [{ id: 'w9', name: 'Oak & Co', role, own: role === 'owner', requireApproval: false, members: 3 }],
      current: 'w9',
    }),
    'GET /api/branding': () => ({ brandName: 'Oak & Co', brandColor: '#225588', logoUrl: null }),
    'GET /api/settings/store': () => ({ defaultCurrency: 'EUR' }),
    'GET /api/api-keys': () => ({ items: [] }),
    'GET /api/webhooks': () => ({
      items: [{ id: 'wh1', url: 'https://oak.example/hooks', events: ['product.published'], active: true, createdAt: '2026-03-01T10:00:00Z' }],
    }),
    'GET /api/webhooks/wh1/deliveries': () => ({ items: [] }),
    'GET /api/channels/google-feed': () => ({ url: 'https://p3d.example/feeds/AAAA/google.xml' }),
    'GET /api/channels/shopify': () => ({ shop: 'oak.myshopify.com', connected: true }),
  });
  signIn();
  renderRoutes([{ path: '/workspace/settings', element: <SettingsPage /> }], ['/workspace/settings']);
  return server;
}

const roleRead = (calls: { url: string }[]) => vi.waitFor(() => expect(calls.some((c) => c.url === '/api/workspaces')).toBe(true));

describe('Settings by role', () => {
  it('the owner changes everything', async () => {
    const { calls } = render('owner');
    await roleRead(calls);
    expect(await screen.findByLabelText('Brand name')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save branding' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save store settings' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'API access' })).toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Add webhook endpoint' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New URL' })).toBeInTheDocument();
    expect(screen.queryByTestId('owner-only-note')).not.toBeInTheDocument();
    expect(screen.queryByTestId('view-only-note')).not.toBeInTheDocument();
  });

  it('an editor reads branding, the store and the channels, and manages API keys and webhooks', async () => {
    render('editor');
    const branding = await screen.findByTestId('branding-read');
    expect(branding).toHaveTextContent('Oak & Co');
    expect(branding).toHaveTextContent('#225588');
    expect(within(branding).getByTestId('owner-only-note')).toHaveTextContent('Only the workspace owner changes the branding.');
    expect(screen.queryByLabelText('Brand name')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save branding' })).not.toBeInTheDocument();
    expect(await screen.findByTestId('store-settings-read')).toHaveTextContent('EUR');
    expect(screen.queryByRole('button', { name: 'Save store settings' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'API access' })).toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Add webhook endpoint' })).toBeInTheDocument();
    const channels = screen.getByTestId('channels-settings-read');
    expect(await within(channels).findByTestId('shopify-read')).toHaveTextContent('Connected to oak.myshopify.com.');
    expect(screen.queryByRole('button', { name: 'New URL' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Disconnect Shopify' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('view-only-note')).not.toBeInTheDocument();
  });

  it('a reviewer reads the webhooks and their deliveries, without API keys or changes', async () => {
    const { calls } = render('reviewer');
    expect(await screen.findByTestId('view-only-note')).toBeInTheDocument();
    const hook = await screen.findByRole('listitem', { name: 'Webhook https://oak.example/hooks' });
    expect(within(hook).queryByRole('button', { name: 'Send test event' })).not.toBeInTheDocument();
    expect(within(hook).queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
    await userEvent.setup().click(within(hook).getByRole('button', { name: 'Show deliveries' }));
    expect(await within(hook).findByText('No deliveries yet.')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Add webhook endpoint' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'API access' })).not.toBeInTheDocument();
    expect(screen.getByTestId('channels-settings-read')).toBeInTheDocument();
    // GET /api/api-keys is the owner's and editors': never asked for.
    expect(calls.some((c) => c.url.startsWith('/api/api-keys'))).toBe(false);
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('an analyst reads branding and the store only', async () => {
    const { calls } = render('analyst');
    const note = await screen.findByTestId('view-only-note');
    expect(note).toHaveTextContent('View only: as an Analyst');
    expect(await screen.findByTestId('branding-read')).toHaveTextContent('Oak & Co');
    expect(screen.getByTestId('store-settings-read')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Webhooks' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Channels' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'API access' })).not.toBeInTheDocument();
    expect(calls.some((c) => /\/api\/(webhooks|api-keys|channels)/.test(c.url))).toBe(false);
  });
});
