import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { renderRoutes, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

// Issue 29 item 15: with no waitlist form configured, the hero button opened sign-up while
// saying "Join the waitlist". It now says what it does, per the server's sign-up mode.
describe('LandingPage hero button', () => {
  it('open server: "Create an account" to /signup, no "Join the waitlist"', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'open' }) });
    renderRoutes(routes, ['/']);
    const hero = await screen.findByRole('link', { name: 'Create an account' });
    expect(hero).toHaveAttribute('href', '/signup');
    expect(screen.queryByRole('link', { name: 'Join the waitlist' })).not.toBeInTheDocument();
  });

  it('invite-only server: "Sign up with an invite"', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'invite' }) });
    renderRoutes(routes, ['/']);
    expect(await screen.findByRole('link', { name: 'Sign up with an invite' })).toHaveAttribute('href', '/signup');
    expect(screen.queryByRole('link', { name: 'Join the waitlist' })).not.toBeInTheDocument();
  });

  it('has no newsletter field that sends nowhere', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'open' }) });
    renderRoutes(routes, ['/']);
    await screen.findByRole('link', { name: 'Create an account' });
    expect(screen.queryByLabelText('Newsletter')).not.toBeInTheDocument();
  });
});
