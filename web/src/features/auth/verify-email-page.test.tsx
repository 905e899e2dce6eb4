import { screen } from '@testing-library/react';
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

  it('shows why a used or expired link failed', async () => {
    stubFetch({
      'POST /api/auth/verify-email': () =>
        jsonResponse({ success: false, error: { code: 'verify_token_invalid', message: 'This verification link is invalid, has expired or was already used. Sign in and ask for a new one.' } }, 400),
    });
    renderRoutes(routes, ['/verify-email?token=used']);
    expect(await screen.findByRole('alert')).toHaveTextContent('already used');
  });
});
