import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { renderRoutes, signIn, stubFetch, testUser } from '../../test/render';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

/** The workspace's fetches, with /users/me saying whether the address is verified yet. */
function workspace(state: { verified: boolean }) {
  return stubFetch({
    'GET /api/users/me': () => ({ ...testUser, emailVerified: state.verified }),
    'GET /api/subscription': () => ({ plan: 'free', canUseGalleries: false }),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/dashboard': () => ({ recent: [], topProducts: [], insights: [] }),
    'POST /api/users/me/verify-email': () => ({ message: 'We have sent a new verification link to your email address.' }),
    'POST /api/auth/verify-email': () => {
      state.verified = true;
      return { message: 'Your email address is verified.' };
    },
  });
}

describe('VerifyEmailBanner', () => {
  it('asks an unverified user to verify, resends the link, and is gone once the link is opened', async () => {
    const state = { verified: false };
    const { calls } = workspace(state);
    signIn();
    const { router } = renderRoutes(routes, ['/my-home']);
    const notice = await screen.findByRole('region', { name: 'Verify your email' });
    expect(notice).toHaveTextContent('We sent a link to asha@example.com');

    await userEvent.click(screen.getByRole('button', { name: 'Resend' }));
    expect(await screen.findByText('We have sent a new verification link to your email address.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST' && c.url === '/api/users/me/verify-email')).toHaveLength(1);

    // The mailed link opens /verify-email; back in the workspace the notice is gone.
    await router.navigate('/verify-email?token=abc');
    expect(await screen.findByText('Your email address is verified.')).toBeInTheDocument();
    await router.navigate('/my-home');
    await screen.findByRole('heading', { name: /Good (Morning|Afternoon|Evening), Asha/ });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Verify your email' })).not.toBeInTheDocument());
  });

  it('a verified user sees no notice', async () => {
    workspace({ verified: true });
    signIn();
    renderRoutes(routes, ['/my-home']);
    await screen.findByRole('heading', { name: /Good (Morning|Afternoon|Evening), Asha/ });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Verify your email' })).not.toBeInTheDocument());
  });
});
