import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AUTH_STORAGE_KEY, saveAuth, TOKEN_EXPIRED_EVENT } from '../lib/auth-storage';
import { freeSubscription, trialSubscription } from '../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch, testUser } from '../test/render';
import { routes } from './routes';

afterEach(() => vi.unstubAllGlobals());

function workspaceServer(over: Record<string, Parameters<typeof stubFetch>[0][string]> = {}) {
  return stubFetch({
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', name: 'Asha Rao', firstName: 'Asha', lastName: 'Rao', avatarUrl: null }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/dashboard': () => ({ recent: [], topProducts: [], insights: [] }),
    'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
    ...over,
  });
}

describe('routing and guards', () => {
  it('sends signed-out visitors to /login carrying path, query and hash', async () => {
    stubFetch({});
    const { router } = renderRoutes(routes, ['/workspace/settings?tab=brand#logo']);
    await screen.findByRole('heading', { name: 'Welcome' });
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.state).toEqual({ from: '/workspace/settings?tab=brand#logo' });
  });

  it('sends signed-in visitors of /login and /signup to /my-home', async () => {
    signIn();
    workspaceServer();
    const { router } = renderRoutes(routes, ['/signup']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/my-home'));
  });

  it('redirects unknown paths to / and /workspace to /my-home', async () => {
    stubFetch({});
    const { router } = renderRoutes(routes, ['/no/such/page']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(await screen.findByRole('heading', { name: /Turn one product photo/ })).toBeInTheDocument();

    signIn();
    workspaceServer();
    const second = renderRoutes(routes, ['/workspace']);
    await waitFor(() => expect(second.router.state.location.pathname).toBe('/my-home'));
  });

  it('opens the real catalogue screens from the sidebar paths; galleries show the Pro gate on free', async () => {
    signIn();
    workspaceServer({
      'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 10 }),
      'GET /api/catalogs': () => ({ items: [] }),
    });
    for (const [path, title] of [
      ['/workspace/products', 'My Products'],
      ['/workspace/catalogs', 'All Catalogs'],
      ['/workspace/gallery', 'My Gallery'],
    ]) {
      const { router, unmount } = renderRoutes(routes, [path]);
      expect(await screen.findByRole('heading', { name: title, level: 1 }, { timeout: 5000 })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe(path);
      unmount();
    }
    renderRoutes(routes, ['/workspace/gallery']);
    expect(await screen.findByText('Galleries are a Pro feature', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByText(/not available in this release/)).not.toBeInTheDocument();
  }, 20_000);

  it('opens the Business Overview inside the workspace', async () => {
    signIn();
    workspaceServer();
    const { router } = renderRoutes(routes, ['/workspace/analytics']);
    expect(await screen.findByRole('heading', { name: 'Business Overview' }, { timeout: 5000 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/workspace/analytics');
  });

  it('shows the blog placeholder with no dead newsletter field in the footer', async () => {
    stubFetch({});
    renderRoutes(routes, ['/blog']);
    expect(await screen.findByText('Stories are on their way.')).toBeInTheDocument();
    expect(screen.getByText('Blog launching soon')).toBeInTheDocument();
    expect(screen.queryByLabelText('Newsletter')).not.toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Log In' })[0]).toHaveAttribute('href', '/login');
    // The page stays reachable, but no menu leads to it while it has no posts (issue 50, P1).
    expect(screen.queryByRole('link', { name: 'Blog' })).not.toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Demo' })).toBeInTheDocument();
  });

  it('shows the demo hint when there are no demo samples', async () => {
    stubFetch({});
    renderRoutes(routes, ['/demo']);
    expect(await screen.findByText(/^No demo models found\. Run/)).toHaveTextContent('Run go run ./cmd/worker samples');
  });

  it('signs out when the token-expired event fires', async () => {
    signIn();
    workspaceServer();
    const { router } = renderRoutes(routes, ['/my-home']);
    await screen.findByRole('heading', { name: /Asha/ });
    window.dispatchEvent(new Event(TOKEN_EXPIRED_EVENT));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });
});

describe('workspace shell', () => {
  it('shows Gallery only when the plan allows galleries; Dashboard is active by exact match', async () => {
    signIn();
    workspaceServer();
    renderRoutes(routes, ['/my-home']);
    const sidebar = await screen.findByRole('complementary', { name: 'Workspace' });
    await within(sidebar).findByRole('link', { name: 'Subscription' });
    expect(within(sidebar).queryByRole('link', { name: 'Gallery' })).not.toBeInTheDocument();
    expect(within(sidebar).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
  });

  it('lists Gallery during a trial', async () => {
    signIn();
    workspaceServer({ 'GET /api/subscription': () => trialSubscription() });
    renderRoutes(routes, ['/workspace/settings']);
    const sidebar = await screen.findByRole('complementary', { name: 'Workspace' });
    expect(await within(sidebar).findByRole('link', { name: 'Gallery' })).toHaveAttribute('href', '/workspace/gallery');
    expect(within(sidebar).getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    expect(within(sidebar).getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current');
  });

  it('account menu: greeting, initial, profile and logout with focus return on Escape', async () => {
    signIn();
    workspaceServer();
    const { router } = renderRoutes(routes, ['/my-home']);
    const user = userEvent.setup();
    const trigger = await screen.findByRole('button', { name: 'Account menu' });
    expect(trigger).toHaveTextContent('A');
    await user.click(trigger);
    expect(screen.getByText('Hi, Asha')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByText('Hi, Asha')).not.toBeInTheDocument();
    expect(trigger).toHaveFocus();

    await user.click(trigger);
    await user.click(screen.getByRole('menuitem', { name: 'Profile settings' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/profile'));
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Account menu' }));
    await user.click(screen.getByRole('menuitem', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeInTheDocument();
  });

  it('notifications page promises only what it sends (no "collaboration invites")', async () => {
    signIn();
    workspaceServer();
    renderRoutes(routes, ['/workspace/notifications']);
    expect(await screen.findByText('Your builds, published pages, captured leads and plan.')).toBeInTheDocument();
    expect(screen.queryByText(/collaboration invites/)).not.toBeInTheDocument();
  });

  it('opening one menu closes the other; outside click closes', async () => {
    signIn();
    workspaceServer({
      'GET /api/notifications': () => ({
        items: [{ id: 'n1', title: 'Model ready', message: 'Oak bed is ready to preview', link: '/workspace/products', createdAt: new Date().toISOString(), readAt: null }],
        unreadCount: 1,
      }),
      'POST /api/notifications/n1/read': () => ({}),
    });
    renderRoutes(routes, ['/my-home']);
    const user = userEvent.setup();
    const bell = await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    await user.click(bell);
    expect(screen.getByRole('heading', { name: 'Workspace updates' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Account menu' }));
    expect(screen.queryByRole('heading', { name: 'Workspace updates' })).not.toBeInTheDocument();
    expect(screen.getByText('Hi, Asha')).toBeInTheDocument();
    await user.click(document.body);
    expect(screen.queryByText('Hi, Asha')).not.toBeInTheDocument();
  });

  it('search: empty submit ignored, first match opened, no-match message', async () => {
    signIn();
    const { calls } = workspaceServer({
      'GET /api/search': ({ url }) =>
        url.searchParams.get('q') === 'oak'
          ? { items: [{ id: 'p1', label: 'Oak Bed', type: 'Product', path: '/workspace/settings' }] }
          : { items: [] },
    });
    const { router } = renderRoutes(routes, ['/my-home']);
    const user = userEvent.setup();
    const box = await screen.findByRole('combobox', { name: /Search/ });
    await user.type(box, '   {Enter}');
    expect(calls.some((c) => c.url.startsWith('/api/search'))).toBe(false);
    await user.clear(box);
    await user.type(box, 'sofa{Enter}');
    expect(await screen.findByText('No matches found')).toBeInTheDocument();
    await user.clear(box);
    await user.type(box, 'oak{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/settings'));
    expect(box).toHaveValue('');
  });
});

// Spec §2: "Routes inside the shell: … /workspace/processing/{jobId} … Standalone paths
// /processing/{jobId} and /preview/{jobId} are also used by the upload flow."
describe('processing screen routes', () => {
  const job = { id: 'job-1', status: 'processing', progress: 30, step: 'Analyzing Image', imageURL: null, modelURL: null, parts: [] };

  it('/workspace/processing/{jobId} renders inside the workspace shell', async () => {
    signIn();
    workspaceServer({ 'GET /api/jobs/job-1': () => job });
    renderRoutes(routes, ['/workspace/processing/job-1']);
    expect(await screen.findByRole('heading', { name: 'Processing Your Blueprint' })).toBeInTheDocument();
    expect(screen.getByRole('complementary', { name: 'Workspace' })).toBeInTheDocument();
    expect(screen.getAllByRole('main')).toHaveLength(1);
  });

  it('/processing/{jobId} stays standalone', async () => {
    signIn();
    workspaceServer({ 'GET /api/jobs/job-1': () => job });
    renderRoutes(routes, ['/processing/job-1']);
    expect(await screen.findByRole('heading', { name: 'Processing Your Blueprint' })).toBeInTheDocument();
    expect(screen.queryByRole('complementary', { name: 'Workspace' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Photo3D dashboard' })).toHaveAttribute('href', '/my-home');
    expect(screen.getAllByRole('main')).toHaveLength(1);
  });
});

describe('session expiry', () => {
  it('signs out when the stored expiry passes', async () => {
    saveAuth({ token: 'short', user: testUser, expiresAt: Date.now() + 1500 }, false);
    workspaceServer();
    const { router } = renderRoutes(routes, ['/my-home']);
    await screen.findByRole('heading', { name: /Asha/ });
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 4000 });
    expect(router.state.location.state).toEqual({ from: '/my-home' });
  });

  it('a 401 from a workspace call signs out even when no token was sent', async () => {
    signIn();
    workspaceServer({ 'GET /api/dashboard': () => jsonResponse({ success: false, error: { code: 'unauthorized', message: 'Please sign in' } }, 401) });
    const { router } = renderRoutes(routes, ['/my-home']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
});
