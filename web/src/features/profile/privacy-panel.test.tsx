import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { saveAuth } from '../../lib/auth-storage';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, stubFetch, testUser } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

function profile(exportAnswer: unknown) {
  stubFetch({
    'GET /api/users/me': () => testUser,
    'GET /api/users/me/export': () => exportAnswer,
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
  });
  saveAuth({ token: 't', user: testUser, expiresAt: Date.now() + 60_000 }, true);
  renderRoutes(routes, ['/workspace/profile']);
}

describe('PrivacyPanel (issue 50, P20 and P22)', () => {
  it('saves the export under its dated name', async () => {
    profile({ status: 'ready', url: '/blobs?obj=exports%2Fu%2Fx.zip&sig=s', fileName: 'photo3d-export-2026-11-29.zip', expiresAt: '2026-12-06T09:00:00Z' });
    const link = await screen.findByRole('link', { name: 'Download ZIP' }, { timeout: 10_000 });
    expect(link).toHaveAttribute('download', 'photo3d-export-2026-11-29.zip');
  });

  it('offers "Download my data first" in the delete dialog, which leads to the download', async () => {
    profile({ status: 'none' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete account' }, { timeout: 10_000 }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete your account?' });
    expect(dialog).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Download my data first' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Download my data' })).toHaveFocus());
  });

  it('an owner whose workspace has members confirms deleting it with the account, or is pointed to transfer it (issue 51)', async () => {
    const { calls } = stubFetch({
      'GET /api/users/me': () => testUser,
      'GET /api/users/me/export': () => ({ status: 'none' }),
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'DELETE /api/users/me': ({ body }) =>
        (body as { deleteWorkspace?: boolean }).deleteWorkspace
          ? jsonResponse({ success: false, error: { code: 'wrong_password', message: 'Stop here.' } }, 400)
          : jsonResponse({ success: false, error: { code: 'workspace_has_members', message: 'Your workspace has 2 other members.' } }, 409),
    });
    saveAuth({ token: 't', user: testUser, expiresAt: Date.now() + 60_000 }, true);
    renderRoutes(routes, ['/workspace/profile']);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete account' }, { timeout: 10_000 }));
    await user.type(screen.getByLabelText('Your password'), 'secret-password');
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByText('Your workspace has 2 other members.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'transfer its ownership' })).toHaveAttribute('href', '/workspace/team');
    await user.click(screen.getByRole('checkbox', { name: /Delete my workspace too/ }));
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await screen.findByText('Stop here.');
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.body)).toEqual([
      { password: 'secret-password' },
      { password: 'secret-password', deleteWorkspace: true },
    ]);
  });
});
