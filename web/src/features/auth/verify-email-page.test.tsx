import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { jsonResponse, renderRoutes, stubFetch } from '../../test/render';
import { SIGNUP_INTENT_KEY } from '../../entities/auth/signup-intent';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
  localStorage.clear();
});

const verifiedAnswer = (email = 'asha@shop.in') => ({
  message: 'Your email address is verified.',
  token: 'session-from-link',
  user: { id: 'u', email, firstName: 'Asha', emailVerified: true },
  expiresAt: Date.now() + 86_400_000,
});

const workspace = {
  'GET /api/users/me': () => ({ id: 'u', email: 'asha@shop.in', firstName: 'Asha', emailVerified: true }),
  'GET /api/subscription': () => ({ plan: 'free', canUseGalleries: false }),
  'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
  'GET /api/dashboard': () => ({ recent: [], topProducts: [], insights: [] }),
  'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
};

/** Signs up on /signup (reached from `from`), with or without "Keep me signed in". */
async function signUp(remember: boolean, from?: string) {
  stubFetch({ 'POST /api/auth/signup': () => jsonResponse({ success: true, data: { message: 'Check your email for a link.' } }, 202) });
  renderRoutes(routes, [from ? { pathname: '/signup', state: { from } } : '/signup']);
  await screen.findByRole('heading', { name: 'Create Account' });
  fireEvent.change(screen.getByLabelText('Full Name'), { target: { value: 'Asha Rao' } });
  fireEvent.change(screen.getByLabelText('Email Address'), { target: { value: 'Asha@Shop.in' } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Password123' } });
  fireEvent.change(screen.getByLabelText('Confirm Password'), { target: { value: 'Password123' } });
  const user = userEvent.setup();
  if (remember) await user.click(screen.getByLabelText('Keep me signed in for 24 hours'));
  await user.click(screen.getByRole('button', { name: 'Create Account' }));
  expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
  // The link is opened in another tab: a fresh page with its own session storage.
  cleanup();
  vi.unstubAllGlobals();
  sessionStorage.clear();
}

describe('verify email page', () => {
  it('posts the token once and shows the server message', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/verify-email': () => ({ message: 'Your email address is verified.' }) });
    renderRoutes(routes, ['/verify-email?token=tok123']);
    expect(await screen.findByText('Your email address is verified.')).toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/api/auth/verify-email')).toHaveLength(1);
    expect(calls[0].body).toEqual({ token: 'tok123' });
  });

  it('signs a new account in from the link: "Account created successfully! Redirecting...", then the workspace', async () => {
    stubFetch({ 'POST /api/auth/verify-email': () => verifiedAnswer(), ...workspace });
    const { router } = renderRoutes(routes, ['/verify-email?token=tok123']);
    expect(await screen.findByText('Your email address is verified. Account created successfully! Redirecting...')).toBeInTheDocument();
    expect(window.sessionStorage.getItem('photo3d.auth')).toContain('session-from-link');
    // Without a sign-up choice in this browser: this tab only.
    expect(window.localStorage.getItem('photo3d.auth')).toBeNull();
    await waitFor(() => expect(router.state.location.pathname).toBe('/my-home'), { timeout: 2500 });
  });

  // Issue 50 item 10 (merchant walk 4, H9): the link ignored "Keep me signed in" and always opened /my-home.
  it('"Keep me signed in" ticked at sign-up keeps the session the link opens, and it returns where sign-up began', async () => {
    await signUp(true, '/workspace/products?status=ready');
    stubFetch({ 'POST /api/auth/verify-email': () => verifiedAnswer(), ...workspace });
    const { router } = renderRoutes(routes, ['/verify-email?token=tok123']);
    expect(await screen.findByText(/Account created successfully! Redirecting\.\.\./)).toBeInTheDocument();
    expect(window.localStorage.getItem('photo3d.auth')).toContain('session-from-link');
    expect(window.sessionStorage.getItem('photo3d.auth')).toContain('session-from-link');
    await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe('/workspace/products?status=ready'), { timeout: 2500 });
    // Used once.
    expect(window.localStorage.getItem(SIGNUP_INTENT_KEY)).toBeNull();
  });

  it('not ticked: the session stays in this tab; a note for another address is not applied', async () => {
    await signUp(false);
    stubFetch({ 'POST /api/auth/verify-email': () => verifiedAnswer(), ...workspace });
    const first = renderRoutes(routes, ['/verify-email?token=tok123']);
    await waitFor(() => expect(first.router.state.location.pathname).toBe('/my-home'), { timeout: 2500 });
    expect(window.localStorage.getItem('photo3d.auth')).toBeNull();
    cleanup();
    vi.unstubAllGlobals();
    sessionStorage.clear();

    await signUp(true, '/workspace/products');
    stubFetch({ 'POST /api/auth/verify-email': () => verifiedAnswer('someone.else@shop.in'), ...workspace });
    const other = renderRoutes(routes, ['/verify-email?token=tok456']);
    await waitFor(() => expect(other.router.state.location.pathname).toBe('/my-home'), { timeout: 2500 });
    expect(window.localStorage.getItem('photo3d.auth')).toBeNull();
    expect(window.localStorage.getItem(SIGNUP_INTENT_KEY)).not.toBeNull(); // still waiting for its own link
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
