import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { AUTH_STORAGE_KEY, saveAuth } from '../../lib/auth-storage';
import { freeSubscription } from '../../test/fixtures';
import { renderRoutes, stubFetch, testUser } from '../../test/render';

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
    expect(screen.getByText(/managed by the auth system/)).toBeInTheDocument();
    expect(screen.getByText(/max 5MB/)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Your initials' })).toHaveTextContent('AR');
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
});
