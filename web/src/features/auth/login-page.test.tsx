import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { AUTH_STORAGE_KEY } from '../../lib/auth-storage';
import { jsonResponse, renderRoutes, stubFetch } from '../../test/render';
import LoginPage from './login-page';

afterEach(() => vi.unstubAllGlobals());

async function openLogin(entry: string | { pathname: string; state?: unknown } = '/login') {
  const utils = renderRoutes(routes, [entry]);
  await screen.findByRole('heading', { name: 'Welcome' });
  return utils;
}

describe('LoginPage', () => {
  it('shows the spec texts (open server: no "Invite-only access")', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'open' }) });
    await openLogin();
    await waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
    expect(screen.getByText('Sign in to your account')).toBeInTheDocument();
    expect(screen.queryByText('Invite-only access')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Email Address')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toBeInTheDocument();
    expect(screen.getByLabelText('Remember me')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeInTheDocument();
  });

  it('validates in the spec order without calling the server', async () => {
    const { fn } = stubFetch({});
    await openLogin();
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Sign In' });
    await user.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter your email address');
    await user.type(screen.getByLabelText('Email Address'), 'asha');
    await user.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email address');
    await user.type(screen.getByLabelText('Email Address'), '@shop.in');
    await user.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter your password');
    // Only the public config (which says whether the server is invite-only) is read.
    expect(fn.mock.calls.map(([url]) => String(url))).toEqual(['/api/config']);
  });

  it('signs in, saves the session and returns to the origin', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const { calls } = stubFetch({
      'POST /api/auth/login': async () => {
        await gate;
        return { token: 'tok', user: { id: 'u1', email: 'asha@shop.in', name: 'Asha Rao' }, expiresAt: Date.now() + 60_000 };
      },
      'GET /api/users/me': () => ({ id: 'u1', email: 'asha@shop.in', firstName: 'Asha', lastName: 'Rao' }),
      'GET /api/subscription': () => ({ plan: 'free', canUseGalleries: false }),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
    });
    const { router } = await openLogin({ pathname: '/login', state: { from: '/workspace/settings' } });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email Address'), 'asha@shop.in');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByLabelText('Remember me'));
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('button', { name: 'Signing In...' })).toBeDisabled();
    expect(screen.getByLabelText('Email Address')).toBeDisabled();
    release();
    // Spec §2: "Success message: Logged in successfully! Redirecting..." — seen before leaving.
    expect(await screen.findByText('Logged in successfully! Redirecting...')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeDisabled();
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/settings'), { timeout: 2500 });
    expect(calls.find((c) => c.url === '/api/auth/login')).toMatchObject({ method: 'POST', url: '/api/auth/login', body: { email: 'asha@shop.in', password: 'correct horse', remember: true } });
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toContain('"tok"');
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('"tok"');
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
  });

  it("shows the server's message on failure and keeps no token", async () => {
    stubFetch({
      'POST /api/auth/login': () => jsonResponse({ success: false, error: { code: 'invalid_credentials', message: 'Invalid email or password' } }, 401),
    });
    await openLogin();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email Address'), 'asha@shop.in');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  // Issue 28 item 14: an account that has not opened its verification link is refused like a
  // wrong password; the page offers to send the link again (the answer is the same for all).
  it('offers to send the verification link again after a refused sign-in', async () => {
    const { calls } = stubFetch({
      'POST /api/auth/login': () =>
        jsonResponse({ success: false, error: { code: 'invalid_credentials', message: 'Invalid email or password. If you have just signed up, open the verification link we emailed you first.' } }, 401),
      'POST /api/auth/resend-verification': () => ({ message: 'If this address has an account waiting for verification, we have sent a new link to it. It works once, for 48 hours.' }),
    });
    await openLogin();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email Address'), 'asha@shop.in');
    await user.type(screen.getByLabelText('Password'), 'Password123');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('open the verification link we emailed you first');
    await user.click(screen.getByRole('button', { name: 'Just signed up? Send the verification link again' }));
    expect(await screen.findByText(/we have sent a new link to it/)).toBeInTheDocument();
    expect(calls.find((c) => c.url === '/api/auth/resend-verification')?.body).toEqual({ email: 'asha@shop.in' });
    expect(screen.queryByRole('button', { name: 'Just signed up? Send the verification link again' })).not.toBeInTheDocument();
  });

  it('uses the fallbacks when the server gives no message or no token', async () => {
    let mode: 'nomsg' | 'notoken' | 'http' = 'nomsg';
    stubFetch({
      'POST /api/auth/login': () =>
        mode === 'nomsg' ? jsonResponse({ success: false }, 400) : mode === 'notoken' ? { user: { id: 'u' } } : new Response('oops', { status: 500 }),
    });
    await openLogin();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email Address'), 'asha@shop.in');
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Login failed$/);
    mode = 'notoken';
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Login response missing token'));
    mode = 'http';
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Login failed. Please try again.'));
  });

  it('says "Invite-only access" only on an invite-only server', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'invite' }) });
    await openLogin();
    expect(await screen.findByText('Invite-only access')).toBeInTheDocument();
  });

  it('Google sign-in of a returning account signs in without "Account created"', async () => {
    let callback: ((r: { credential?: string }) => void) | undefined;
    const rendered: unknown[] = [];
    window.google = { accounts: { id: { initialize: (cfg) => (callback = cfg.callback), renderButton: (_el, opts) => rendered.push(opts) } } };
    try {
      const { calls } = stubFetch({
        'GET /api/config': () => ({ signupMode: 'open' }),
        'POST /api/auth/google/nonce': () => ({ nonce: 'n-1', expiresAt: Date.now() + 600_000 }),
        'POST /api/auth/google': () => ({
          token: 'tok-1',
          expiresAt: Date.now() + 3_600_000,
          user: { id: 'u-1', email: 'asha@shop.in', name: 'Asha', role: 'user', createdAt: '2026-01-01T00:00:00Z' },
        }),
      });
      renderRoutes([{ path: '/login', element: <LoginPage clientId="123.apps.googleusercontent.com" /> }], ['/login']);
      await waitFor(() => expect(callback).toBeDefined());
      expect(rendered[0]).toMatchObject({ text: 'signin_with' });
      await act(async () => callback?.({ credential: 'google-id-token' }));
      expect(await screen.findByText('Signed in with Google! Redirecting...')).toBeInTheDocument();
      expect(screen.queryByText(/Account created/)).not.toBeInTheDocument();
      expect(calls.find((c) => c.method === 'POST' && c.url === '/api/auth/google')).toMatchObject({ body: { credential: 'google-id-token', remember: false } });
    } finally {
      delete window.google;
    }
  });
});
