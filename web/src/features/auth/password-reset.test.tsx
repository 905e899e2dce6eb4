import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { jsonResponse, renderRoutes, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

describe('password reset', () => {
  it('forgot-password always shows the neutral message', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/forgot-password': () => jsonResponse({ success: false, error: { code: 'x', message: 'boom' } }, 500) });
    renderRoutes(routes, ['/forgot-password']);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email Address'), 'nobody@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText('If an account exists for that email, we sent a reset link.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'nobody@example.com' });
  });

  it('reset-password posts the token and new password, then links to sign in', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/reset-password': () => ({}) });
    renderRoutes(routes, ['/reset-password?token=tok123']);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('New Password'), 'NewPassw0rd');
    await user.type(screen.getByLabelText('Confirm Password'), 'NewPassw0rd');
    await user.click(screen.getByRole('button', { name: 'Set new password' }));
    expect(await screen.findByText(/Your password has been reset/)).toBeInTheDocument();
    expect(calls[0].body).toEqual({ token: 'tok123', password: 'NewPassw0rd' });
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/login');
  });

  it('reset-password shows the server message for a bad token', async () => {
    stubFetch({ 'POST /api/auth/reset-password': () => jsonResponse({ success: false, error: { code: 'invalid_token', message: 'This reset link has expired' } }, 400) });
    renderRoutes(routes, ['/reset-password?token=old']);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('New Password'), 'NewPassw0rd');
    await user.type(screen.getByLabelText('Confirm Password'), 'NewPassw0rd');
    await user.click(screen.getByRole('button', { name: 'Set new password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This reset link has expired');
  });
});
