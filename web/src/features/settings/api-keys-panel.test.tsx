import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import type { ApiKey } from './api-keys-api';

afterEach(() => vi.unstubAllGlobals());

const SECRET = 'p3d_0123456789abcdefghijABCDEFGHIJklmnopqrstu12';

function base(keys: () => ApiKey[]) {
  return {
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
    'GET /api/api-keys': () => ({ items: keys(), maxActive: 20 }),
  };
}

const existing: ApiKey = {
  id: 'k1',
  name: 'Shopify sync',
  prefix: 'p3d_AbCdEfGh',
  scopes: ['read', 'write'],
  createdAt: '2026-11-20T10:00:00Z',
  lastUsedAt: null,
  revokedAt: null,
};

describe('ApiKeysPanel', () => {
  it('creates a key, shows it once with Copy and a warning, and lists only its prefix', async () => {
    let keys: ApiKey[] = [existing];
    const { calls } = stubFetch({
      ...base(() => keys),
      'POST /api/api-keys': ({ body }) => {
        const b = body as { name: string; scopes: ApiKey['scopes'] };
        const k: ApiKey = { id: 'k2', name: b.name, prefix: SECRET.slice(0, 12), scopes: b.scopes, createdAt: new Date().toISOString(), lastUsedAt: null, revokedAt: null };
        keys = [k, ...keys];
        return jsonResponse({ success: true, data: { ...k, key: SECRET } }, 201);
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const panel = await screen.findByRole('region', { name: 'API access' });
    const table = await within(panel).findByRole('table');
    expect(within(table).getByText('Shopify sync')).toBeInTheDocument();
    expect(within(table).getByText('p3d_AbCdEfGh…')).toBeInTheDocument();
    expect(within(table).getByText('read, write')).toBeInTheDocument();
    expect(within(table).getByText('Never')).toBeInTheDocument();

    const user = userEvent.setup();
    const create = within(panel).getByRole('button', { name: 'Create key' });
    expect(create).toBeDisabled(); // no name yet
    await user.type(within(panel).getByLabelText('Key name'), '  Woo store  ');
    expect(create).toBeEnabled();
    await user.click(within(panel).getByRole('checkbox', { name: /Read/ }));
    expect(create).toBeDisabled(); // no scope
    expect(within(panel).getByText('Choose at least one scope.')).toBeInTheDocument();
    await user.click(within(panel).getByRole('checkbox', { name: /Write/ }));
    await user.click(within(panel).getByRole('checkbox', { name: /Publish/ }));
    await user.click(create);

    const shown = await within(panel).findByRole('textbox', { name: 'New API key' });
    expect(shown).toHaveValue(SECRET);
    expect(within(panel).getByText(/it will not be shown again/)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Woo store', scopes: ['write', 'publish'] });
    await user.click(within(panel).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(within(panel).getByRole('button', { name: 'Copied' })).toBeInTheDocument();

    // The list is fetched again and never holds the secret.
    await waitFor(() => expect(within(table).getByText('Woo store')).toBeInTheDocument());
    expect(within(table).getByText(`${SECRET.slice(0, 12)}…`)).toBeInTheDocument();
    expect(table).not.toHaveTextContent(SECRET);

    await user.click(within(panel).getByRole('button', { name: 'I have stored it' }));
    expect(within(panel).queryByRole('textbox', { name: 'New API key' })).not.toBeInTheDocument();
    expect(panel).not.toHaveTextContent(SECRET);
  });

  it('shows the server message when a key cannot be created', async () => {
    stubFetch({
      ...base(() => []),
      'POST /api/api-keys': () =>
        jsonResponse({ success: false, error: { code: 'too_many_api_keys', message: 'You have the maximum of 20 active API keys. Revoke one you no longer use first.' } }, 409),
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const panel = await screen.findByRole('region', { name: 'API access' });
    expect(await within(panel).findByText('No API keys yet.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(within(panel).getByLabelText('Key name'), 'One more');
    await user.click(within(panel).getByRole('button', { name: 'Create key' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent('You have the maximum of 20 active API keys. Revoke one you no longer use first.');
    expect(within(panel).queryByRole('textbox', { name: 'New API key' })).not.toBeInTheDocument();
  });

  it('revokes a key only after confirmation and then shows it as revoked', async () => {
    let keys: ApiKey[] = [{ ...existing, lastUsedAt: new Date(Date.now() - 5 * 60_000).toISOString() }];
    const { calls } = stubFetch({
      ...base(() => keys),
      'DELETE /api/api-keys/k1': () => {
        keys = keys.map((k) => ({ ...k, revokedAt: new Date().toISOString() }));
        return { id: 'k1', revoked: true };
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const panel = await screen.findByRole('region', { name: 'API access' });
    expect(await within(panel).findByText('5 min ago')).toBeInTheDocument();
    const user = userEvent.setup();

    await user.click(within(panel).getByRole('button', { name: 'Revoke Shopify sync' }));
    let dialog = screen.getByRole('alertdialog', { name: 'Revoke this API key?' });
    expect(dialog).toHaveTextContent('"Shopify sync" (p3d_AbCdEfGh…) stops working at once.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    await user.click(within(panel).getByRole('button', { name: 'Revoke Shopify sync' }));
    dialog = screen.getByRole('alertdialog', { name: 'Revoke this API key?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    expect(await within(panel).findByText('Key "Shopify sync" revoked')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/api-keys/k1']);
    expect(await within(panel).findByText('Revoked')).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Revoke Shopify sync' })).not.toBeInTheDocument();
  });
});
