import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import SignupPage from './signup-page';
import { renderRoutes, stubFetch } from '../../test/render';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function openSignup() {
  const utils = renderRoutes(routes, ['/signup']);
  await screen.findByRole('heading', { name: 'Create Account' });
  return utils;
}

function fill(name: string, email: string, pw: string, confirm: string) {
  fireEvent.change(screen.getByLabelText('Full Name'), { target: { value: name } });
  fireEvent.change(screen.getByLabelText('Email Address'), { target: { value: email } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: pw } });
  fireEvent.change(screen.getByLabelText('Confirm Password'), { target: { value: confirm } });
}

describe('SignupPage', () => {
  it('shows the spec texts and hides Google without a client id', async () => {
    stubFetch({});
    await openSignup();
    expect(screen.getByText('Get started with your free account')).toBeInTheDocument();
    expect(screen.getByLabelText('Keep me signed in for 24 hours')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Already have an account? Sign in' })).toHaveAttribute('href', '/login');
    expect(screen.queryByText('or continue with email')).not.toBeInTheDocument();
    expect(document.querySelector('script[src*="accounts.google.com"]')).toBeNull();
  });

  // Issue 29 item 9: a server that sends no mail must not be quoted as having sent a link.
  it('says no email was sent when the server sends no mail', async () => {
    stubFetch({
      'GET /api/config': () => ({ signupMode: 'open', mailDelivery: 'none' }),
      'POST /api/auth/signup': () => ({ message: 'This server does not send email.' }),
    });
    await openSignup();
    fill('Asha Rao', 'asha@shop.in', 'Password123', 'Password123');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await screen.findByRole('heading', { name: 'No email was sent' })).toBeInTheDocument();
    expect(screen.getByText(/does not send email \(no mail relay is configured\)/)).toBeInTheDocument();
    expect(screen.queryByText(/We sent a link/)).not.toBeInTheDocument();
  });

  it('validates in the spec order', async () => {
    const { fn } = stubFetch({});
    await openSignup();
    const submit = screen.getByRole('button', { name: 'Create Account' });
    fill('Asha', 'asha@shop.in', 'password1', '');
    fireEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Please fill in all fields');
    fill('Asha', 'asha.shop.in', 'x', 'y');
    fireEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email address');
    fill('Asha', 'asha@shop.in', 'short', 'other');
    fireEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Password must be at least 8 characters long');
    fill('Asha', 'asha@shop.in', 'password1', 'password2');
    fireEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match');
    // Only the public config was read; nothing was sent.
    expect(fn.mock.calls.every(([, init]) => (init?.method ?? 'GET') === 'GET')).toBe(true);
  });

  it('shows live hints, the match hint and the strength meter', async () => {
    stubFetch({});
    await openSignup();
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'abc' } });
    expect(screen.getByRole('meter', { name: 'Password strength' })).toHaveAttribute('aria-valuetext', 'Weak');
    expect(screen.getByText('At least 8 characters').closest('li')).not.toHaveClass('hint--met');
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Abcdefgh1' } });
    expect(screen.getByRole('meter', { name: 'Password strength' })).toHaveAttribute('aria-valuetext', 'Medium');
    expect(screen.getByText('Mix of uppercase and lowercase').closest('li')).toHaveClass('hint--met');
    expect(screen.getByText('Contains a number').closest('li')).toHaveClass('hint--met');
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Abcdefghijk1!' } });
    expect(screen.getByRole('meter', { name: 'Password strength' })).toHaveAttribute('aria-valuetext', 'Strong');
    fireEvent.change(screen.getByLabelText('Confirm Password'), { target: { value: 'Abc' } });
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Confirm Password'), { target: { value: 'Abcdefghijk1!' } });
    expect(screen.getByText('Passwords match')).toBeInTheDocument();
  });

  // Sign-up answers alike for new and taken addresses, with no token (issue 11 item 13), and a
  // new password account signs in only from its mailed link (issue 28 item 14): the page shows
  // "Check your email" and never tries the password.
  it('creates the account and shows "Check your email" without signing in; the link can be sent again', async () => {
    const { calls } = stubFetch({
      'POST /api/auth/signup': () => ({ message: 'Thanks! Check your email.' }),
      'POST /api/auth/resend-verification': () => ({ message: 'If this address has an account waiting for verification, we have sent a new link to it.' }),
    });
    const { router } = await openSignup();
    fill('  Asha Rao ', 'asha@shop.in', 'Password123', 'Password123');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(screen.getByText('asha@shop.in')).toBeInTheDocument();
    // One message, said once (issue 50, P3), and the resend block set apart from it.
    expect(screen.getByRole('status')).toHaveTextContent('Thanks! Check your email. The link works once, for 48 hours.');
    expect(screen.getAllByText(/open the link|works once/i)).toHaveLength(1);
    expect(within(screen.getByRole('region', { name: 'Send the link again' })).getByRole('button', { name: 'Send the link again' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'asha@shop.in', password: 'Password123', name: 'Asha Rao', remember: false });
    expect(calls.some((c) => c.url === '/api/auth/login')).toBe(false);
    expect(window.sessionStorage.getItem('photo3d.auth')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Send the link again' }));
    expect(await screen.findByText(/we have sent a new link to it/)).toBeInTheDocument();
    expect(calls.find((c) => c.url === '/api/auth/resend-verification')?.body).toEqual({ email: 'asha@shop.in' });
    expect(router.state.location.pathname).toBe('/signup');
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/login');
  });

  it('sends the invite code of an invite link (/signup?invite=CODE)', async () => {
    const { calls } = stubFetch({
      'POST /api/auth/signup': () => new Response(JSON.stringify({ success: false, error: { code: 'invite_invalid', message: 'This invite code is not valid.' } }), { status: 403 }),
    });
    renderRoutes(routes, ['/signup?invite=AB12-CD34']);
    await screen.findByRole('heading', { name: 'Create Account' });
    fill('Asha Rao', 'asha@shop.in', 'Password123', 'Password123');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Create Account' })));
    expect(await screen.findByRole('alert')).toHaveTextContent('This invite code is not valid.');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'asha@shop.in', password: 'Password123', name: 'Asha Rao', remember: false, inviteCode: 'AB12-CD34' });
  });

  it('shows the server message when signup fails', async () => {
    stubFetch({
      'POST /api/auth/signup': () => new Response(JSON.stringify({ success: false, error: { code: 'conflict', message: 'An account with this email already exists' } }), { status: 409 }),
    });
    await openSignup();
    fill('Asha', 'asha@shop.in', 'Password123', 'Password123');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Create Account' })));
    expect(await screen.findByRole('alert')).toHaveTextContent('An account with this email already exists');
  });

  // Issue 19 item 3 (spec §1: "Sign-in says access is invite-only"): with SIGNUP_MODE=invite
  // the form shows an "Invite code" field, learnt from GET /api/config and prefilled from ?invite=.
  it('invite-only server: shows "Invite code" prefilled from ?invite= and sends what the user typed', async () => {
    const { calls } = stubFetch({
      'GET /api/config': () => ({ signupMode: 'invite' }),
      'POST /api/auth/signup': () =>
        new Response(JSON.stringify({ success: false, error: { code: 'invite_invalid', message: 'This invite code is not valid.' } }), { status: 403 }),
    });
    renderRoutes(routes, ['/signup?invite=AB12-CD34']);
    const field = await screen.findByLabelText('Invite code');
    expect(field).toHaveValue('AB12-CD34');
    fireEvent.change(field, { target: { value: ' ZZ99-YY88 ' } });
    fill('Asha Rao', 'asha@shop.in', 'Password123', 'Password123');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Create Account' })));
    expect(await screen.findByRole('alert')).toHaveTextContent('This invite code is not valid.');
    expect((calls.find((c) => c.method === 'POST')?.body as { inviteCode?: string }).inviteCode).toBe('ZZ99-YY88');
  });

  it('open server: no invite field', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'open' }) });
    await openSignup();
    await waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
    expect(screen.queryByLabelText('Invite code')).not.toBeInTheDocument();
  });

  it('Google sign-up sends the invite code too', async () => {
    let callback: ((r: { credential?: string }) => void) | undefined;
    window.google = { accounts: { id: { initialize: (cfg) => (callback = cfg.callback), renderButton: () => {} } } };
    try {
      const { calls } = stubFetch({
        'GET /api/config': () => ({ signupMode: 'invite' }),
        'POST /api/auth/google/nonce': () => ({ nonce: 'n-1', expiresAt: Date.now() + 600_000 }),
        'POST /api/auth/google': () => new Response(JSON.stringify({ success: false, error: { code: 'invite_invalid', message: 'This invite code is not valid.' } }), { status: 403 }),
      });
      renderRoutes([{ path: '/signup', element: <SignupPage clientId="123.apps.googleusercontent.com" /> }], ['/signup?invite=AB12-CD34']);
      expect(await screen.findByLabelText('Invite code')).toHaveValue('AB12-CD34');
      await waitFor(() => expect(callback).toBeDefined());
      await act(async () => callback?.({ credential: 'google-id-token' }));
      expect(await screen.findByRole('alert')).toHaveTextContent('This invite code is not valid.');
      expect(calls.find((c) => c.method === 'POST' && c.url === '/api/auth/google')).toMatchObject({
        url: '/api/auth/google',
        body: { credential: 'google-id-token', remember: false, inviteCode: 'AB12-CD34' },
      });
    } finally {
      delete window.google;
    }
  });
});
