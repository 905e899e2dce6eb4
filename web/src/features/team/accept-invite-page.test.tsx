import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAuth } from '../../lib/auth-storage';
import { jsonResponse, renderRoutes, stubFetch } from '../../test/render';
import AcceptInvitePage, { MSG_INVITE_MISSING } from './accept-invite-page';

afterEach(() => vi.unstubAllGlobals());

const peek = (hasAccount: boolean) => ({ workspaceName: 'Asha Home', role: 'editor', email: 'ada@example.com', hasAccount, expiresAt: '2026-12-08T10:00:00Z' });
const session = { token: 'tok-ada', user: { id: 'u2', email: 'ada@example.com', name: 'Ada Editor' }, expiresAt: Date.now() + 3_600_000, workspaceId: 'u1', created: true };

function render(path: string, handlers: Parameters<typeof stubFetch>[0]) {
  const server = stubFetch(handlers);
  const out = renderRoutes(
    [
      { path: '/accept-invite', element: <AcceptInvitePage /> },
      { path: '/my-home', element: <h1>Dashboard</h1> },
    ],
    [path],
  );
  return { ...server, ...out };
}

describe('Accept an invitation (issue 51)', () => {
  it('creates the account, signs in with the answer and opens the workspace dashboard', async () => {
    const { calls, router } = render('/accept-invite?invite=TOK1', {
      'POST /api/team/invites/peek': () => peek(false),
      'POST /api/team/invites/accept': () => session,
    });
    expect(await screen.findByTestId('invite-summary')).toHaveTextContent('Asha Home invited ada@example.com as Editor.');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please fill in all fields');
    await user.type(screen.getByLabelText('Your name'), 'Ada Editor');
    await user.type(screen.getByLabelText('Password', { exact: true }), 'short');
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Password must be at least 8 characters long');
    await user.type(screen.getByLabelText('Password', { exact: true }), '-and-long-enough');
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/my-home'));
    expect(calls.find((c) => c.url === '/api/team/invites/accept')?.body).toEqual({ token: 'TOK1', name: 'Ada Editor', password: 'short-and-long-enough' });
    expect(calls.find((c) => c.url === '/api/team/invites/peek')?.body).toEqual({ token: 'TOK1' });
    expect(loadAuth()?.token).toBe('tok-ada');
  });

  it('an existing account joins with one click', async () => {
    const { calls } = render('/accept-invite?invite=TOK2', {
      'POST /api/team/invites/peek': () => peek(true),
      'POST /api/team/invites/accept': () => ({ ...session, created: false }),
    });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Join Asha Home' }));
    await vi.waitFor(() => expect(loadAuth()?.token).toBe('tok-ada'));
    expect(calls.find((c) => c.url === '/api/team/invites/accept')?.body).toEqual({ token: 'TOK2' });
  });

  it.each([
    ['invite_invalid', 404, 'This invitation link is not valid. Ask the workspace owner to invite you again.'],
    ['invite_used', 409, 'This invitation was already accepted. Sign in to open the workspace.'],
    ['invite_expired', 409, 'This invitation expired on 8 Dec 2026. Ask the workspace owner to invite you again.'],
  ])('says why a %s link does not work', async (code, status, message) => {
    render('/accept-invite?invite=BAD', { 'POST /api/team/invites/peek': () => jsonResponse({ success: false, error: { code, message } }, status) });
    expect(await screen.findByTestId('invite-problem')).toHaveTextContent(message);
    if (code === 'invite_used') expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/login');
  });

  it('a link without its code says so without asking the server', async () => {
    const { calls } = render('/accept-invite', {});
    expect(await screen.findByRole('alert')).toHaveTextContent(MSG_INVITE_MISSING);
    expect(calls).toHaveLength(0);
  });
});
