import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { renderRoutes, stubFetch } from '../../test/render';
import { HERO_MODEL } from './landing-page';

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
    // What sharing costs is said before sign-up (issue 50, P2).
    expect(screen.getByText(/Sharing needs Pro or the 7-day free trial/)).toBeInTheDocument();
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

// Issue 29 item 18: the hero's right half was empty; it shows a live model from a sample
// bundled with the app (a file that exists, so the hero never shows a broken model).
describe('LandingPage hero model', () => {
  it('shows a bundled sample model beside the copy', async () => {
    stubFetch({ 'GET /api/config': () => ({ signupMode: 'open' }) });
    renderRoutes(routes, ['/']);
    const figure = await screen.findByTestId('hero-model');
    expect(figure).toHaveTextContent('drag to turn it');
    expect(HERO_MODEL).toMatch(/^\/demo\/.+\.glb$/);
    // A lazy glob only lists the files: the sample is one of the bundled ones.
    expect(Object.keys(import.meta.glob('../../../public/demo/*/model.glb'))).toContain(`../../../public${HERO_MODEL}`);
  });
});
