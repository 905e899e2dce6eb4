import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch, testUser } from '../../test/render';
import type { Role } from './team-api';
import { abilitiesOf, VIEW_ONLY_TEXT, type RoleAbilities } from './team-rules';
import { LAST_WORKSPACE_KEY, useWorkspaceRole } from './use-workspace';
import { CatalogueGate, EditorsGate, ViewOnlyNote } from './view-only';

afterEach(() => vi.unstubAllGlobals());

/** The person's workspaces, acting in "Oak & Co" with role (and the approval rule). */
const workspaces = (role: Role, requireApproval = false) => ({
  items: [
    { id: 'u1', name: "Asha's workspace", role: 'owner', own: true, requireApproval: false, members: 1 },
    { id: 'w9', name: 'Oak & Co', role, own: false, requireApproval, members: 3 },
  ],
  current: 'w9',
});

function Probe() {
  const a = useWorkspaceRole();
  return <pre data-testid="abilities">{JSON.stringify(a)}</pre>;
}

function render(element: React.ReactNode, list: unknown) {
  const server = stubFetch(list ? { 'GET /api/workspaces': () => list } : {});
  signIn();
  renderRoutes([
    { path: '/', element },
    { path: '/workspace/analytics', element: <h1>Analytics</h1> },
  ]);
  return server;
}

async function abilities(): Promise<RoleAbilities> {
  const el = await screen.findByTestId('abilities');
  return JSON.parse(el.textContent ?? '{}') as RoleAbilities;
}

describe('abilitiesOf (issue 51): the server rule table, as the app reads it', () => {
  it('gives each role what internal/httpapi/access.go allows', () => {
    const pick = (a: RoleAbilities) => [a.isOwner, a.canSee, a.canEdit, a.canPublish, a.canPublishDirectly, a.canDecide, a.viewOnly];
    //                                                      owner  see   edit   publish direct decide viewOnly
    expect(pick(abilitiesOf({ role: 'owner', requireApproval: true }))).toEqual([true, true, true, true, true, true, false]);
    expect(pick(abilitiesOf({ role: 'editor', requireApproval: false }))).toEqual([false, true, true, true, true, false, false]);
    expect(pick(abilitiesOf({ role: 'editor', requireApproval: true }))).toEqual([false, true, true, true, false, false, false]);
    expect(pick(abilitiesOf({ role: 'reviewer', requireApproval: true }))).toEqual([false, true, false, false, false, true, true]);
    expect(pick(abilitiesOf({ role: 'analyst', requireApproval: false }))).toEqual([false, false, false, false, false, false, true]);
  });

  it('is the owner while the role is unknown (loading, or a server without teams)', () => {
    const a = abilitiesOf(null);
    expect(a).toMatchObject({ role: 'owner', known: false, isOwner: true, canEdit: true, canPublishDirectly: true, viewOnly: false });
    expect(abilitiesOf({ role: 'reviewer', requireApproval: false }).known).toBe(true);
  });
});

describe('useWorkspaceRole', () => {
  it('reads the role in the workspace the session acts in', async () => {
    render(<Probe />, workspaces('reviewer'));
    await vi.waitFor(async () => expect((await abilities()).role).toBe('reviewer'));
    expect(await abilities()).toMatchObject({ known: true, canSee: true, canEdit: false, canDecide: true, viewOnly: true });
  });

  it('an editor in a workspace that requires approval publishes only through a request', async () => {
    render(<Probe />, workspaces('editor', true));
    await vi.waitFor(async () => expect((await abilities()).role).toBe('editor'));
    expect(await abilities()).toMatchObject({ canEdit: true, canPublish: true, canPublishDirectly: false });
  });

  it('a person alone in their own workspace is its owner', async () => {
    render(<Probe />, { items: [{ id: 'u1', name: "Asha's workspace", role: 'owner', own: true, requireApproval: false, members: 1 }], current: 'u1' });
    await vi.waitFor(async () => expect((await abilities()).known).toBe(true));
    expect(await abilities()).toMatchObject({ role: 'owner', isOwner: true, canEdit: true, canPublishDirectly: true, viewOnly: false });
  });

  it('while the list loads, the role this tab last saw for the same person stands in (no owner controls flash on a reload)', async () => {
    sessionStorage.setItem(LAST_WORKSPACE_KEY, JSON.stringify({ id: 'w9', name: 'Oak & Co', user: testUser.id, role: 'reviewer', requireApproval: true }));
    let answer: (v: unknown) => void = () => {};
    stubFetch({ 'GET /api/workspaces': () => new Promise((resolve) => (answer = resolve)) });
    signIn();
    renderRoutes([{ path: '/', element: <Probe /> }]);
    expect(await abilities()).toMatchObject({ role: 'reviewer', known: false, canEdit: false, viewOnly: true, canDecide: true });
    answer(workspaces('editor'));
    await vi.waitFor(async () => expect((await abilities()).role).toBe('editor'));
    expect(await abilities()).toMatchObject({ known: true, canEdit: true });
    // What the server named is remembered for the next reload, for this person.
    expect(JSON.parse(sessionStorage.getItem(LAST_WORKSPACE_KEY) ?? '{}')).toMatchObject({ id: 'w9', user: testUser.id, role: 'editor' });
    sessionStorage.clear();
  });

  it('a role remembered for someone else in this tab is not used', async () => {
    sessionStorage.setItem(LAST_WORKSPACE_KEY, JSON.stringify({ id: 'w9', name: 'Oak & Co', user: 'someone-else', role: 'analyst' }));
    stubFetch({ 'GET /api/workspaces': () => new Promise(() => {}) });
    signIn();
    renderRoutes([{ path: '/', element: <Probe /> }]);
    expect(await abilities()).toMatchObject({ role: 'owner', known: false, canSee: true });
    sessionStorage.clear();
  });

  it('without a list (a server without teams) everything stays the owner’s', async () => {
    const { calls } = render(<Probe />, null);
    await vi.waitFor(() => expect(calls.some((c) => c.url === '/api/workspaces')).toBe(true));
    expect(await abilities()).toMatchObject({ role: 'owner', known: false, canEdit: true });
  });
});

describe('ViewOnlyNote', () => {
  it('tells a reviewer what they can do and who makes changes', async () => {
    render(<ViewOnlyNote />, workspaces('reviewer'));
    expect(await screen.findByTestId('view-only-note')).toHaveTextContent(VIEW_ONLY_TEXT.reviewer);
    expect(VIEW_ONLY_TEXT.reviewer).toBe('View only: as a Reviewer you can see everything and decide approvals; changes are made by editors and the owner.');
  });

  it('has an analyst version', async () => {
    render(<ViewOnlyNote />, workspaces('analyst'));
    const note = await screen.findByTestId('view-only-note');
    expect(note).toHaveTextContent(VIEW_ONLY_TEXT.analyst);
    expect(note).toHaveTextContent(/^\s*View only: as an Analyst/);
  });

  it('says nothing to the owner or an editor', async () => {
    const { calls } = render(
      <>
        <ViewOnlyNote />
        <p>page</p>
      </>,
      workspaces('editor'),
    );
    await vi.waitFor(() => expect(calls.some((c) => c.url === '/api/workspaces')).toBe(true));
    await screen.findByText('page');
    expect(screen.queryByTestId('view-only-note')).not.toBeInTheDocument();
  });
});

describe('CatalogueGate and EditorsGate', () => {
  it('an analyst reads why the catalogue is closed to them, with the way to Analytics', async () => {
    render(
      <CatalogueGate title="My Products">
        <p>the list</p>
      </CatalogueGate>,
      workspaces('analyst'),
    );
    const box = await screen.findByTestId('analyst-blocked');
    expect(box).toHaveTextContent('Not open to analysts');
    expect(screen.getByRole('heading', { name: 'My Products', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Analytics' })).toHaveAttribute('href', '/workspace/analytics');
    expect(screen.queryByText('the list')).not.toBeInTheDocument();
  });

  it('a reviewer gets the page', async () => {
    render(
      <CatalogueGate title="My Products">
        <p>the list</p>
      </CatalogueGate>,
      workspaces('reviewer'),
    );
    expect(await screen.findByText('the list')).toBeInTheDocument();
  });

  it('a page that only makes things shows a reviewer the view-only note and the way back', async () => {
    render(
      <EditorsGate title="Upload & Review" back={{ to: '/workspace/blueprints', label: '← Back to My Blueprints' }}>
        <p>the upload form</p>
      </EditorsGate>,
      workspaces('reviewer'),
    );
    expect(await screen.findByTestId('view-only-note')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Upload & Review', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '← Back to My Blueprints' })).toHaveAttribute('href', '/workspace/blueprints');
    expect(screen.queryByText('the upload form')).not.toBeInTheDocument();
  });

  it('an editor gets the page that makes things', async () => {
    render(
      <EditorsGate title="Upload & Review" back={{ to: '/workspace/blueprints', label: 'Back' }}>
        <p>the upload form</p>
      </EditorsGate>,
      workspaces('editor', true),
    );
    expect(await screen.findByText('the upload form')).toBeInTheDocument();
  });
});
