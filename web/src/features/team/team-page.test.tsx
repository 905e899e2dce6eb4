import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAuth } from '../../lib/auth-storage';
import { authLoaded } from '../../lib/session';
import { jsonResponse, renderRoutes, signIn, stubFetch, testUser } from '../../test/render';
import TeamPage from './team-page';

afterEach(() => vi.unstubAllGlobals());

const joined = '2026-11-01T10:00:00Z';
function team(over: Record<string, unknown> = {}) {
  return {
    workspaceId: 'u1',
    name: 'Asha Home',
    requireApproval: false,
    seats: 5,
    members: [
      { userId: 'u1', role: 'owner', name: 'Asha Rao', email: 'asha@example.com', joinedAt: joined, approvalMail: false },
      { userId: 'u2', role: 'editor', name: 'Ada Editor', email: 'ada@example.com', joinedAt: joined, approvalMail: false },
    ],
    invites: [{ id: 'i1', email: 'ravi@example.com', role: 'reviewer', expiresAt: '2026-12-08T10:00:00Z', createdAt: joined }],
    ...over,
  };
}

function render(handlers: Parameters<typeof stubFetch>[0], user = testUser) {
  const server = stubFetch(handlers);
  signIn(user);
  const out = renderRoutes([
    { path: '/', element: <TeamPage /> },
    { path: '/my-home', element: <h1>Dashboard</h1> },
  ]);
  out.store.dispatch(authLoaded(loadAuth()));
  return { ...server, ...out };
}

describe('Team page (issue 51)', () => {
  it('shows members, seats and open invitations; the owner invites with a role', async () => {
    let current = team();
    const { calls } = render({
      'GET /api/team/members': () => current,
      'POST /api/team/invites': ({ body }) => {
        const b = body as { email: string; role: string };
        current = team({ invites: [...team().invites, { id: 'i2', email: b.email, role: b.role, expiresAt: '2026-12-08T10:00:00Z', createdAt: joined }] });
        return jsonResponse({ success: true, data: { id: 'i2', email: b.email, role: b.role, expiresAt: '2026-12-08T10:00:00Z', createdAt: joined } }, 201);
      },
    });
    expect(await screen.findByTestId('team-seats')).toHaveTextContent('3 of 5 seats used');
    const members = screen.getByRole('list', { name: 'Members' });
    expect(within(members).getAllByTestId('team-member')).toHaveLength(2);
    expect(within(members).getByRole('combobox', { name: 'Role of Ada Editor' })).toHaveValue('editor');
    expect(screen.getByRole('list', { name: 'Open invitations' })).toHaveTextContent('ravi@example.com');

    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'Invite a teammate' });
    await user.type(within(form).getByLabelText('Email address'), 'zed@example.com');
    await user.selectOptions(within(form).getByLabelText('Role'), 'analyst');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'zed@example.com', role: 'analyst' }));
    expect(await screen.findByText('Invitation sent to zed@example.com as analyst.')).toBeInTheDocument();
    await vi.waitFor(() => expect(screen.getByTestId('team-seats')).toHaveTextContent('4 of 5 seats used'));
  });

  it("shows the server's refusal of an invitation word for word", async () => {
    render({
      'GET /api/team/members': () => team({ seats: 1, members: [team().members[0]], invites: [] }),
      'POST /api/team/invites': () =>
        jsonResponse({ success: false, error: { code: 'upgrade_required', message: 'The Free plan has one seat, and you use it. Upgrade to Pro to invite up to 4 teammates.' } }, 403),
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email address'), 'zed@example.com');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The Free plan has one seat, and you use it. Upgrade to Pro to invite up to 4 teammates.');
  });

  it('turning approvals on says how many live pages were locked; revoking, role changes and removal call the server', async () => {
    let current = team();
    const { calls } = render({
      'GET /api/team/members': () => current,
      'PUT /api/team/settings': () => {
        current = team({ requireApproval: true });
        return { requireApproval: true, lockedPages: 2 };
      },
      'PATCH /api/team/members/u2': () => team(),
      'DELETE /api/team/invites/i1': () => ({ id: 'i1', revoked: true }),
      'DELETE /api/team/members/u2': () => team({ members: [team().members[0]] }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByLabelText('Require approval before publishing'));
    expect(await screen.findByTestId('locked-pages')).toHaveTextContent('2 live pages were locked to what shoppers see now.');
    await vi.waitFor(() => expect(screen.getByLabelText('Require approval before publishing')).toBeChecked());
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ requireApproval: true }));

    await user.selectOptions(screen.getByRole('combobox', { name: 'Role of Ada Editor' }), 'reviewer');
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ role: 'reviewer' }));

    await user.click(screen.getByRole('button', { name: 'Revoke invitation for ravi@example.com' }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/team/invites/i1')).toBe(true));

    await user.click(screen.getByRole('button', { name: 'Remove Ada Editor' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Remove Ada Editor?' });
    await user.click(within(confirm).getByRole('button', { name: 'Remove member' }));
    expect(await screen.findByText('Ada Editor was removed from the workspace.')).toBeInTheDocument();
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/team/members/u2')).toBe(true));
  });

  it('transfers ownership only after a confirmation', async () => {
    const { calls } = render({
      'GET /api/team/members': () => team(),
      'POST /api/team/transfer': () => team(),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Make Ada Editor the owner' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Make Ada Editor the owner?' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Make Ada Editor the owner' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Transfer ownership' }));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ userId: 'u2' }));
  });

  it('a member sees roles without controls, chooses approval mail and may leave for their own workspace', async () => {
    const ada = { ...testUser, id: 'u2', email: 'ada@example.com', name: 'Ada Editor', firstName: 'Ada', lastName: 'Editor' };
    let mail = false;
    const { calls, router } = render(
      {
        'GET /api/team/members': () => {
          const t = team();
          t.members[1].approvalMail = mail;
          return t;
        },
        'PUT /api/team/me': ({ body }) => {
          mail = (body as { approvalMail: boolean }).approvalMail;
          return team();
        },
        'DELETE /api/team/members/u2': () => ({ left: true }),
        'GET /api/workspaces': () => ({ items: [{ id: 'u2', name: "Ada's workspace", role: 'owner', own: true, requireApproval: false, members: 1 }], current: '' }),
        'POST /api/workspaces/u2/switch': () => ({ token: 'tok-own', expiresAt: Date.now() + 3_600_000, user: { id: 'u2', email: 'ada@example.com', name: 'Ada Editor' }, workspace: { id: 'u2', role: 'owner', requireApproval: false } }),
      },
      ada,
    );
    await screen.findByRole('list', { name: 'Members' });
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Invite a teammate' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Require approval before publishing')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Email me about approvals'));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ approvalMail: true }));

    await user.click(screen.getByRole('button', { name: 'Leave workspace' }));
    await user.click(within(screen.getByRole('alertdialog', { name: 'Leave Asha Home?' })).getByRole('button', { name: 'Leave workspace' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/my-home'));
    expect(loadAuth()?.token).toBe('tok-own');
  });
});
