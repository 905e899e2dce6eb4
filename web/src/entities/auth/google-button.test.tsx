import { render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubFetch } from '../../test/render';
import { makeStore } from '../../app/store';
import SignupPage from '../../features/auth/signup-page';

afterEach(() => {
  document.querySelectorAll('script[src*="accounts.google.com"]').forEach((s) => s.remove());
  vi.unstubAllGlobals();
  delete window.google;
});

describe('Google sign-up', () => {
  it('with a client id: loads the Google script and shows the divider', async () => {
    const router = createMemoryRouter([{ path: '/signup', element: <SignupPage clientId="123.apps.googleusercontent.com" /> }], { initialEntries: ['/signup'] });
    render(
      <Provider store={makeStore()}>
        <RouterProvider router={router} />
      </Provider>,
    );
    expect(await screen.findByText('or continue with email')).toBeInTheDocument();
    expect(document.querySelector('script[src="https://accounts.google.com/gsi/client"]')).not.toBeNull();
  });

  // Issue 11 item 14: each attempt hands Google a fresh single-use nonce from the server,
  // and after one credential comes back the button is armed with the next nonce.
  it('passes a server nonce to Google for each attempt', async () => {
    let n = 0;
    const { calls } = stubFetch({ 'POST /api/auth/google/nonce': () => ({ nonce: `nonce-${++n}`, expiresAt: Date.now() + 600_000 }) });
    const initialize = vi.fn();
    window.google = { accounts: { id: { initialize, renderButton: vi.fn() } } };
    const router = createMemoryRouter([{ path: '/signup', element: <SignupPage clientId="123.apps.googleusercontent.com" /> }], { initialEntries: ['/signup'] });
    render(
      <Provider store={makeStore()}>
        <RouterProvider router={router} />
      </Provider>,
    );
    await waitFor(() => expect(initialize).toHaveBeenCalledTimes(1));
    expect(initialize.mock.calls[0][0]).toMatchObject({ client_id: '123.apps.googleusercontent.com', nonce: 'nonce-1' });
    initialize.mock.calls[0][0].callback({ credential: 'id-token' });
    await waitFor(() => expect(initialize).toHaveBeenCalledTimes(2));
    expect(initialize.mock.calls[1][0].nonce).toBe('nonce-2');
    expect(calls.some((c) => c.url === '/api/auth/google' && (c.body as { credential?: string }).credential === 'id-token')).toBe(true);
  });
});
