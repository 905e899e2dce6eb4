import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { jsonResponse, renderRoutes, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

describe('verify email page', () => {
  it('posts the token once and shows the server message', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/verify-email': () => ({ message: 'Your email address is verified.' }) });
    renderRoutes(routes, ['/verify-email?token=tok123']);
    expect(await screen.findByText('Your email address is verified.')).toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/api/auth/verify-email')).toHaveLength(1);
    expect(calls[0].body).toEqual({ token: 'tok123' });
  });

  it('signs a new account in from the link and opens the workspace', async () => {
    stubFetch({
      'POST /api/auth/verify-email': () => ({
        message: 'Your email address is verified.',
        token: 'session-from-link',
        user: { id: 'u', email: 'asha@shop.in', firstName: 'Asha', emailVerified: true },
        expiresAt: Date.now() + 86_400_000,
      }),
      'GET /api/users/me': () => ({ id: 'u', email: 'asha@shop.in', firstName: 'Asha', emailVerified: true }),
      'GET /api/subscription': () => ({ plan: 'free', canUseGalleries: false }),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/dashboard': () => ({ recent: [], topProducts: [], insights: [] }),
    });
    const { router } = renderRoutes(routes, ['/verify-email?token=tok123']);
    expect(await screen.findByText(/Your email address is verified\. Signing you in/)).toBeInTheDocument();
    expect(window.sessionStorage.getItem('photo3d.auth')).toContain('session-from-link');
    await waitFor(() => expect(router.state.location.pathname).toBe('/my-home'), { timeout: 2500 });
  });

  it('shows why a used or expired link failed', async () => {
    stubFetch({
      'POST /api/auth/verify-email': () =>
        jsonResponse({ success: false, error: { code: 'verify_token_invalid', message: 'This verification link is invalid, has expired or was already used. Ask for a new one on the sign-in page.' } }, 400),
    });
    renderRoutes(routes, ['/verify-email?token=used']);
    expect(await screen.findByRole('alert')).toHaveTextContent('already used');
  });
});
