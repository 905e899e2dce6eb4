import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { loadAuth } from '../../lib/auth-storage';
import { jsonResponse, renderRoutes, signIn, stubFetch, testUser } from '../../test/render';
import { freeSubscription } from '../../test/fixtures';

afterEach(() => vi.unstubAllGlobals());

const own = { id: 'u1', name: "Asha's workspace", role: 'owner', own: true, requireApproval: false, members: 1 };
const oak = { id: 'w9', name: 'Oak & Co', role: 'reviewer', own: false, requireApproval: true, members: 3 };
const switched = (id: string, token: string) => ({ token, expiresAt: Date.now() + 3_600_000, user: testUser, workspace: { id, role: 'owner', requireApproval: false } });
const bearer = (h: Headers) => h.get('Authorization')?.replace('Bearer ', '');

function server(over: Parameters<typeof stubFetch>[0] = {}) {
  return stubFetch({
    'GET /api/users/me': () => ({ ...testUser, emailVerified: true }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/dashboard': () => ({ recent: [], topProducts: [], insights: [] }),
    'GET /api/approvals': () => ({ items: [{ id: 'a1', status: 'pending' }, { id: 'a2', status: 'pending' }] }),
    ...over,
  });
}

describe('workspaces in the shell (issue 51)', () => {
  it("lists the person's workspaces with their role; switching stores the new token and reloads in the new workspace", async () => {
    const { calls } = server({
      'GET /api/workspaces': ({ headers }) => ({ items: [own, oak], current: bearer(headers) === 'tok-oak' ? 'w9' : 'u1' }),
      'POST /api/workspaces/w9/switch': () => switched('w9', 'tok-oak'),
    });
    signIn();
    const { router } = renderRoutes(routes, ['/workspace/settings']);
    const sidebar = await screen.findByRole('complementary', { name: 'Workspace' });
    const picker = await within(sidebar).findByRole('combobox', { name: 'Current workspace' });
    expect(within(picker).getAllByRole('option').map((o) => o.textContent)).toEqual(["Asha's workspace · Owner", 'Oak & Co · Reviewer']);
    expect(within(sidebar).getByRole('link', { name: 'Team' })).toHaveAttribute('href', '/workspace/team');
    expect(within(sidebar).queryByRole('link', { name: /Approvals/ })).not.toBeInTheDocument();

    const before = calls.filter((c) => c.url === '/api/dashboard').length;
    await userEvent.setup().selectOptions(picker, 'w9');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/my-home'));
    expect(loadAuth()?.token).toBe('tok-oak');
    // Every list reloads with the new session: the reviewer's nav, with the pending count.
    const approvals = await within(sidebar).findByRole('link', { name: /Approvals/ });
    expect(approvals).toHaveAttribute('href', '/workspace/approvals');
    expect(approvals).toHaveTextContent('2');
    expect(within(sidebar).queryByRole('link', { name: 'Subscription' })).not.toBeInTheDocument();
    await vi.waitFor(() => expect(calls.filter((c) => c.url === '/api/dashboard' && bearer(c.headers) === 'tok-oak').length).toBeGreaterThan(0));
    expect(calls.filter((c) => c.url === '/api/dashboard').length).toBeGreaterThan(before);
  });

  it('a person removed from the workspace is moved to their own, once, and told which one they left', async () => {
    let removed = false;
    const { calls } = server({
      'GET /api/workspaces': ({ headers }) => (bearer(headers) === 'tok-own' || removed ? { items: [own], current: bearer(headers) === 'tok-own' ? 'u1' : '' } : { items: [own, oak], current: 'w9' }),
      'GET /api/subscription': ({ headers }) =>
        removed && bearer(headers) !== 'tok-own'
          ? jsonResponse({ success: false, error: { code: 'not_a_member', message: 'You are no longer a member of this workspace. Switch to another workspace.' } }, 403)
          : freeSubscription(),
      'GET /api/products': ({ headers }) =>
        bearer(headers) !== 'tok-own'
          ? jsonResponse({ success: false, error: { code: 'not_a_member', message: 'You are no longer a member of this workspace. Switch to another workspace.' } }, 403)
          : { items: [], total: 0, page: 1, pageSize: 10 },
      'GET /api/catalogs': () => ({ items: [] }),
      'POST /api/workspaces/u1/switch': () => switched('u1', 'tok-own'),
    });
    signIn();
    const { router } = renderRoutes(routes, ['/my-home']);
    const sidebar = await screen.findByRole('complementary', { name: 'Workspace' });
    await within(sidebar).findByRole('combobox', { name: 'Current workspace' });
    removed = true;
    await userEvent.setup().click(within(sidebar).getByRole('link', { name: 'Products' }));
    expect(await screen.findByTestId('workspace-gone')).toHaveTextContent('You are no longer a member of Oak & Co.');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/my-home'));
    expect(loadAuth()?.token).toBe('tok-own');
    expect(calls.filter((c) => c.method === 'POST' && c.url === '/api/workspaces/u1/switch')).toHaveLength(1);
  });
});
