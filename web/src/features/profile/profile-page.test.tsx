import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { AUTH_STORAGE_KEY, saveAuth } from '../../lib/auth-storage';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, stubFetch, testUser } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

describe('ProfilePage', () => {
  it('saves trimmed names, updates both storages and the account menu', async () => {
    let me = { ...testUser };
    const { calls } = stubFetch({
      'GET /api/users/me': () => me,
      'PATCH /api/users/me': ({ body }) => {
        const b = body as { firstName: string; lastName: string };
        me = { ...me, ...b, name: `${b.firstName} ${b.lastName}` };
        return me;
      },
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    });
    saveAuth({ token: 't', user: testUser, expiresAt: Date.now() + 60_000 }, true);
    renderRoutes(routes, ['/workspace/profile']);
    const first = await screen.findByLabelText('First name');
    await waitFor(() => expect(first).toHaveValue('Asha'));
    expect(screen.getByLabelText('Email')).toHaveAttribute('readonly');
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription(/we send a confirmation link to the new address/);
    expect(screen.getByText(/max 5MB/)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Your initials' })).toHaveTextContent('AR');
    // The header's avatar shows the same initials (issue 50, P23).
    expect(screen.getByRole('button', { name: 'Account menu' }).querySelector('.avatar--initial')).toHaveTextContent(/^AR$/);
    const user = userEvent.setup();
    await user.clear(first);
    await user.type(first, '  Meera ');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    expect(await screen.findByText('Profile saved')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ firstName: 'Meera', lastName: 'Rao', avatarUrl: null });
    expect(JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY)!).user.firstName).toBe('Meera');
    expect(JSON.parse(sessionStorage.getItem(AUTH_STORAGE_KEY)!).user.name).toBe('Meera Rao');
    await user.click(screen.getByRole('button', { name: 'Account menu' }));
    expect(screen.getByText('Hi, Meera')).toBeInTheDocument();
  });

  it('asks for a sign-in email change with the current password, and says where the link went', async () => {
    const { calls } = stubFetch({
      'GET /api/users/me': () => testUser,
      'POST /api/users/me/email': ({ body }) => {
        const b = body as { email: string; password: string };
        if (b.password !== 'right password') return jsonResponse({ success: false, error: { code: 'current_password_invalid', message: 'Your current password is not correct.' } }, 400);
        return jsonResponse({ success: true, data: { message: `We sent a confirmation link to ${b.email}. Open it within 24 hours to make it your sign-in email; until then you sign in with your current address.`, email: b.email, expiresAt: '2026-11-30T09:00:00Z' } }, 202);
      },
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    });
    saveAuth({ token: 't', user: testUser, expiresAt: Date.now() + 60_000 }, true);
    renderRoutes(routes, ['/workspace/profile']);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Change email' }));
    const dialog = screen.getByRole('dialog', { name: 'Change your sign-in email' });
    await user.type(within(dialog).getByLabelText('New email address'), testUser.email.toUpperCase());
    await user.click(screen.getByRole('button', { name: 'Send confirmation link' }));
    expect(await screen.findByText('This is already your sign-in email.')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('New email address'));
    await user.type(within(dialog).getByLabelText('New email address'), 'new@example.com');
    await user.click(screen.getByRole('button', { name: 'Send confirmation link' }));
    expect(await screen.findByText('Please enter your password')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Current password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Send confirmation link' }));
    expect(await screen.findByText('Your current password is not correct.')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('Current password'));
    await user.type(within(dialog).getByLabelText('Current password'), 'right password');
    await user.click(screen.getByRole('button', { name: 'Send confirmation link' }));
    expect(await screen.findByText(/We sent a confirmation link to new@example.com/)).toBeInTheDocument();
    expect(dialog).toHaveTextContent(`We will also tell ${testUser.email}`);
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { email: 'new@example.com', password: 'wrong' },
      { email: 'new@example.com', password: 'right password' },
    ]);
    // The field itself stays read-only (spec): nothing changes until the link is opened.
    expect(screen.getByLabelText('Email')).toHaveValue(testUser.email);
  });
});
