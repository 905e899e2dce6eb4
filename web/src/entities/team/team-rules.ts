import type { Approval, InviteRole, PageState, Role, Team, Workspace, WorkspaceList } from './team-api';

/** Roles as people read them. */
export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', editor: 'Editor', reviewer: 'Reviewer', analyst: 'Analyst' };

/** What each role may do, in one line (the invite form and the member list say it). */
export const ROLE_HELP: Record<Role, string> = {
  owner: 'Billing, members and settings, and everything else.',
  editor: 'Builds and edits the catalogue; publishing may need approval.',
  reviewer: 'Sees everything and approves or rejects publish requests; changes nothing else.',
  analyst: 'Analytics and exports only.',
};

/** "You are the owner", "You are an editor". */
export function youAre(role: Role): string {
  if (role === 'owner') return 'You are the owner';
  return `You are ${role === 'editor' || role === 'analyst' ? 'an' : 'a'} ${role}`;
}

/** The roles an invitation (or a role change) can give. */
export const INVITE_ROLES: InviteRole[] = ['editor', 'reviewer', 'analyst'];

/** "3 of 5 seats used", or "3 members (unlimited seats)"; open invitations hold a seat too. */
export function seatsText(team: Pick<Team, 'seats' | 'members' | 'invites'>): string {
  const used = team.members.length + team.invites.length;
  if (team.seats <= 0) return `${used} ${used === 1 ? 'seat' : 'seats'} used (unlimited)`;
  return `${used} of ${team.seats} seats used`;
}

/** Whether another invitation fits the plan's seats. */
export function hasFreeSeat(team: Pick<Team, 'seats' | 'members' | 'invites'>): boolean {
  return team.seats <= 0 || team.members.length + team.invites.length < team.seats;
}

/** "2 live pages were locked to what shoppers see now" after turning approvals on. */
export function lockedPagesText(n: number): string {
  if (n <= 0) return 'No live pages needed locking.';
  return `${n} live ${n === 1 ? 'page was' : 'pages were'} locked to what shoppers see now.`;
}

/** The workspace the session acts in: the listed current one, else the own one, else the first. */
export function currentWorkspace(list: WorkspaceList | undefined): Workspace | null {
  if (!list || list.items.length === 0) return null;
  return list.items.find((w) => w.id === list.current) ?? list.items.find((w) => w.own) ?? list.items[0];
}

/** Where to go when the current workspace is gone: the own workspace, else the first other one. */
export function fallbackWorkspace(list: WorkspaceList | undefined, gone: string): Workspace | null {
  const items = (list?.items ?? []).filter((w) => w.id !== gone);
  return items.find((w) => w.own) ?? items[0] ?? null;
}

/** What a role may see and do, for hiding what it cannot use. */
export function canEditCatalogue(role: Role): boolean {
  return role === 'owner' || role === 'editor';
}
export function canDecide(role: Role): boolean {
  return role === 'owner' || role === 'reviewer';
}
/** An editor's Publish becomes a request for approval. */
export function publishNeedsApproval(ws: Pick<Workspace, 'role' | 'requireApproval'> | null): boolean {
  return !!ws && ws.requireApproval && ws.role === 'editor';
}

/** Whether an actor is this person: events record people as "user-{id}" (a bare id is accepted too). */
export function isActor(actor: { id: string }, userId: string | undefined): boolean {
  return !!userId && (actor.id === userId || actor.id === `user-${userId}`);
}

/** Who may withdraw a pending request: the person who asked, or the owner. */
export function canWithdraw(a: Approval, userId: string | undefined, role: Role | undefined): boolean {
  return a.status === 'pending' && (role === 'owner' || isActor(a.requestedBy, userId));
}

export const STATUS_LABEL: Record<Approval['status'], string> = {
  pending: 'Awaiting approval',
  approved: 'Approved',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
};

/** Why a request was withdrawn, in words. */
export function withdrawnWhy(reason: string): string {
  switch (reason) {
    case 'changed':
      return 'The product changed after the request, so it no longer shows what was asked for.';
    case 'cancelled':
      return 'Withdrawn by who asked, or by the owner.';
    case 'replaced':
      return 'Replaced by a newer request.';
    default:
      return '';
  }
}

/** "Ada Editor", or a readable stand-in for an API key or the system. */
export function actorName(a: { name: string; kind: string }): string {
  if (a.name) return a.name;
  if (a.kind === 'key') return 'An API key';
  if (a.kind === 'system') return 'Photo3D';
  return 'Someone';
}

/** One variant's price as a reviewer reads it. */
export function priceText(v: PageState['variants'][number]): string {
  if (v.price === null) return 'no price';
  try {
    return new Intl.NumberFormat(v.currency === 'INR' ? 'en-IN' : undefined, { style: 'currency', currency: v.currency || 'INR' }).format(v.price);
  } catch {
    return `${v.currency} ${v.price}`;
  }
}

/** The lines of a page state, compared field by field ("changed" marks where next differs from live). */
export interface ComparisonRow {
  label: string;
  next: string[];
  live: string[] | null;
  changed: boolean;
}

function variantLines(s: PageState): string[] {
  return s.variants.length ? s.variants.map((v) => `${v.name || 'Variant'}${v.sku ? ` (${v.sku})` : ''}: ${priceText(v)}`) : ['None'];
}
function linkLines(s: PageState): string[] {
  return s.links.length ? s.links.map((l) => (l.variant ? `${l.url} (${l.variant})` : l.url)) : ['None'];
}

export function comparisonRows(next: PageState, live: PageState | null): ComparisonRow[] {
  const row = (label: string, f: (s: PageState) => string[]): ComparisonRow => {
    const n = f(next);
    const l = live ? f(live) : null;
    return { label, next: n, live: l, changed: !l || n.join('\n') !== l.join('\n') };
  };
  return [
    row('Version', (s) => [`v${s.version}`]),
    row('Name', (s) => [s.name || '—']),
    row('Variants and prices', variantLines),
    row('Buy links', linkLines),
    row('Hotspots', (s) => (s.hotspots.length ? s.hotspots : ['None'])),
    row('Email gate', (s) => [s.requireEmail ? 'Shoppers leave their email first' : 'Off']),
    row('Deep links to variants', (s) => [s.allowDeepLinks ? 'On' : 'Off']),
  ];
}

/** The server's error code on a failed call ('' when there is none). */
export function errorCode(err: unknown): string {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : '';
}

/**
 * What the person may do in the workspace they act in (issue 51), as the server's rule table
 * (internal/httpapi/access.go) decides it; the app hides what a role cannot use.
 */
export interface RoleAbilities {
  role: Role;
  /** The server named the role. Until it does (loading, or a server without teams) the person is the owner. */
  known: boolean;
  isOwner: boolean;
  /** Sees the catalogue (products, catalogs, galleries, 3D models, webhooks, approvals): all but analysts. */
  canSee: boolean;
  /** Changes the catalogue (uploads, builds, products, variants, hotspots, links, presets, catalogs, galleries, webhooks, API keys). */
  canEdit: boolean;
  /** Publishes (or, under approvals, asks to), unpublishes, pauses or stops an experiment. */
  canPublish: boolean;
  /**
   * Puts something live without a request: a page version, the lock, a gallery page, a blueprint
   * share, starting or resuming an experiment. The owner; an editor only where approval is not required.
   */
  canPublishDirectly: boolean;
  /** Approves or rejects publish requests. */
  canDecide: boolean;
  /** Changes nothing in the workspace: reviewers and analysts. */
  viewOnly: boolean;
}

/** The abilities of a role in a workspace; null (not known yet, or no teams): the owner's. */
export function abilitiesOf(ws: Pick<Workspace, 'role' | 'requireApproval'> | null | undefined): RoleAbilities {
  const role: Role = ws?.role ?? 'owner';
  const edits = role === 'owner' || role === 'editor';
  return {
    role,
    known: !!ws,
    isOwner: role === 'owner',
    canSee: role !== 'analyst',
    canEdit: edits,
    canPublish: edits,
    canPublishDirectly: role === 'owner' || (role === 'editor' && !ws?.requireApproval),
    canDecide: role === 'owner' || role === 'reviewer',
    viewOnly: !edits,
  };
}

/** Said where editing was hidden, for the roles that change nothing. */
export const VIEW_ONLY_TEXT: Record<'reviewer' | 'analyst', string> = {
  reviewer: 'View only: as a Reviewer you can see everything and decide approvals; changes are made by editors and the owner.',
  analyst: 'View only: as an Analyst you can see analytics, the dashboard and the plan; changes are made by editors and the owner.',
};

/** Said to an analyst on a page of the catalogue, which the server does not show them. */
export const ANALYST_CATALOGUE_TEXT =
  'As an Analyst you see analytics, the dashboard, notifications, the plan and the team. This page is for the owner, editors and reviewers: ask the workspace owner if you need it.';
