import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

function base(verified: boolean) {
  return {
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha', emailVerified: verified }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
    'GET /api/api-keys': () => ({ items: [], maxActive: 20 }),
    'GET /api/webhooks': () => ({ items: [], eventTypes: ['lead.captured'] }),
  };
}

describe('API access and webhooks on an unverified account', () => {
  it('say why they are unavailable and send a new verification link', async () => {
    const { calls } = stubFetch({
      ...base(false),
      'POST /api/users/me/verify-email': () => ({ message: 'We have sent a new verification link to your email address.' }),
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const keys = await screen.findByRole('region', { name: 'API access' });
    const notice = await within(keys).findByTestId('verify-first');
    expect(notice).toHaveTextContent('Verify your email address first. API keys are only available once you have opened the link');
    const user = userEvent.setup();
    await user.type(within(keys).getByLabelText('Key name'), 'Woo store');
    expect(within(keys).getByRole('button', { name: 'Create key' })).toBeDisabled();
    await user.click(within(notice).getByRole('button', { name: 'Send a new verification link' }));
    expect(await within(notice).findByText('We have sent a new verification link to your email address.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/api/users/me/verify-email']);

    const hooks = screen.getByRole('region', { name: 'Webhooks' });
    expect(within(hooks).getByTestId('verify-first')).toHaveTextContent('Webhooks are only available once');
    expect(within(hooks).getByRole('button', { name: 'Add endpoint' })).toBeDisabled();
  });

  it('shows the notice when the server refuses a key because the address is unverified', async () => {
    stubFetch({
      ...base(true),
      'POST /api/api-keys': () =>
        jsonResponse(
          { success: false, error: { code: 'email_unverified', message: 'Verify your email address before creating API keys: open the link we emailed you when you signed up, or send a new one from the notice at the top of the page.' } },
          403,
        ),
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const keys = await screen.findByRole('region', { name: 'API access' });
    expect(within(keys).queryByTestId('verify-first')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(within(keys).getByLabelText('Key name'), 'Woo store');
    await user.click(within(keys).getByRole('button', { name: 'Create key' }));
    expect(await within(keys).findByRole('alert')).toHaveTextContent('Verify your email address before creating API keys');
    expect(within(keys).getByTestId('verify-first')).toBeInTheDocument();
  });
});

describe('Sessions', () => {
  it('"Sign out everywhere" says it revokes API keys, asks first, and keeps this device signed in', async () => {
    const { calls } = stubFetch({
      ...base(true),
      'POST /api/auth/logout-everywhere': () => ({
        token: 'fresh-token',
        user: { id: 'u1', email: 'asha@example.com', firstName: 'Asha' },
        expiresAt: Date.now() + 86_400_000,
      }),
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const panel = await screen.findByRole('region', { name: 'Sessions' });
    expect(within(panel).getByTestId('sign-out-everywhere-help')).toHaveTextContent('revokes every API key');
    const user = userEvent.setup();
    await user.click(within(panel).getByRole('button', { name: 'Sign out everywhere' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Sign out everywhere?' });
    expect(dialog).toHaveTextContent('every API key is revoked');
    await user.click(within(dialog).getByRole('button', { name: 'Sign out everywhere' }));
    expect(await within(panel).findByText(/Your API keys were revoked/)).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/api/auth/logout-everywhere']);
    expect(window.sessionStorage.getItem('photo3d.auth')).toContain('fresh-token');
    // The keys list is read again (they show as revoked): the refetch follows the answer.
    await waitFor(() => expect(calls.filter((c) => c.url === '/api/api-keys').length).toBeGreaterThanOrEqual(2));
  });
});
