import { api } from '../../lib/api';

/** A person's role in a workspace (issue 51). */
export type Role = 'owner' | 'editor' | 'reviewer' | 'analyst';
/** The roles an invitation can give: ownership changes only by transfer. */
export type InviteRole = Exclude<Role, 'owner'>;

/** One workspace in the person's list (GET /api/workspaces). */
export interface Workspace {
  id: string;
  name: string;
  role: Role;
  /** The account's own workspace (its id is the account's user id). */
  own: boolean;
  requireApproval: boolean;
  members: number;
}

export interface WorkspaceList {
  items: Workspace[];
  /** The workspace the session acts in ('' when the server could not say). */
  current: string;
}

/** POST /api/workspaces/{id}/switch: a new session acting in that workspace. */
export interface SwitchAnswer {
  token: string;
  expiresAt: number | string;
  user: unknown;
  workspace: { id: string; role: Role; requireApproval: boolean };
}

export interface Member {
  userId: string;
  role: Role;
  name: string;
  email: string;
  joinedAt: string;
  /** Opted in to mail about approvals. */
  approvalMail: boolean;
}

export interface Invite {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

/** GET /api/team/members (and the answer of every change to the team). */
export interface Team {
  workspaceId: string;
  name: string;
  requireApproval: boolean;
  /** Seats of the plan; 0: unlimited. */
  seats: number;
  members: Member[];
  invites: Invite[];
}

/** POST /api/team/invites/peek: what an invitation link offers, before anyone signs in. */
export interface InvitePeek {
  workspaceName: string;
  role: Role;
  email: string;
  hasAccount: boolean;
  expiresAt: string;
}

/** POST /api/team/invites/accept: a session in the invitation's workspace. */
export interface AcceptAnswer {
  token: string;
  user: unknown;
  expiresAt: number | string;
  workspaceId: string;
  created: boolean;
}

/** Who did something: a person, an API key or the system. */
export interface Actor {
  id: string;
  kind: 'user' | 'key' | 'system' | string;
  name: string;
}

/** What a product page shows shoppers, in a reviewer's terms. */
export interface PageState {
  version: number;
  name: string;
  variants: { name: string; sku: string; price: number | null; currency: string }[];
  links: { url: string; variant: string }[];
  hotspots: string[];
  requireEmail: boolean;
  allowDeepLinks: boolean;
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn';

/** One request to publish a product page (issue 51). */
export interface Approval {
  id: string;
  productId: string;
  productName: string;
  pageVersion: number;
  requireEmail: boolean;
  allowDeepLinks: boolean;
  status: ApprovalStatus;
  withdrawReason: '' | 'changed' | 'cancelled' | 'replaced' | string;
  requestedBy: Actor;
  requestedAt: string;
  decidedBy: Actor | null;
  decidedAt: string | null;
  comment: string;
  /** What would go live next to what is live now; pending requests only. */
  comparison: { next: PageState; live: PageState | null } | null;
}

/** One line of a product's activity, newest first. */
export interface ActivityItem {
  at: string;
  actor: Actor;
  action: string;
  kind: string;
  detail: string;
}

/** A product's Publish: live at once, or (an editor under approvals) a request. */
export type PublishOutcome = { status: 'published'; publication: unknown } | { status: 'awaiting_approval'; approvalId: string; approval: Approval };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);
const ROLES: Role[] = ['owner', 'editor', 'reviewer', 'analyst'];
const role = (v: unknown): Role => (ROLES.includes(v as Role) ? (v as Role) : 'analyst');
const STATUSES: ApprovalStatus[] = ['pending', 'approved', 'rejected', 'withdrawn'];

function parseActor(raw: unknown): Actor {
  const r = obj(raw);
  return { id: str(r.id), kind: str(r.kind) || 'user', name: str(r.name) };
}

export function parsePageState(raw: unknown): PageState {
  const r = obj(raw);
  return {
    version: num(r.version),
    name: str(r.name),
    variants: list(r.variants).map((v) => ({ name: str(v.name), sku: str(v.sku), price: typeof v.price === 'number' ? v.price : null, currency: str(v.currency) })),
    links: list(r.links).map((l) => ({ url: str(l.url), variant: str(l.variant) })),
    hotspots: Array.isArray(r.hotspots) ? r.hotspots.filter((h): h is string => typeof h === 'string') : [],
    requireEmail: r.requireEmail === true,
    allowDeepLinks: r.allowDeepLinks === true,
  };
}

export function parseApproval(raw: unknown): Approval {
  const r = obj(raw);
  const cmp = r.comparison && typeof r.comparison === 'object' ? obj(r.comparison) : null;
  return {
    id: str(r.id),
    productId: str(r.productId),
    productName: str(r.productName),
    pageVersion: num(r.pageVersion),
    requireEmail: r.requireEmail === true,
    allowDeepLinks: r.allowDeepLinks === true,
    status: STATUSES.includes(r.status as ApprovalStatus) ? (r.status as ApprovalStatus) : 'pending',
    withdrawReason: str(r.withdrawReason),
    requestedBy: parseActor(r.requestedBy),
    requestedAt: str(r.requestedAt),
    decidedBy: r.decidedBy ? parseActor(r.decidedBy) : null,
    decidedAt: str(r.decidedAt) || null,
    comment: str(r.comment),
    comparison: cmp ? { next: parsePageState(cmp.next), live: cmp.live ? parsePageState(cmp.live) : null } : null,
  };
}

function parseWorkspaces(raw: unknown): WorkspaceList {
  const r = obj(raw);
  return {
    items: list(r.items).map((w) => ({
      id: str(w.id),
      name: str(w.name),
      role: role(w.role),
      own: w.own === true,
      requireApproval: w.requireApproval === true,
      members: Math.max(1, num(w.members)),
    })),
    current: str(r.current),
  };
}

export function parseTeam(raw: unknown): Team {
  const r = obj(raw);
  return {
    workspaceId: str(r.workspaceId),
    name: str(r.name),
    requireApproval: r.requireApproval === true,
    seats: num(r.seats),
    members: list(r.members).map((m) => ({
      userId: str(m.userId),
      role: role(m.role),
      name: str(m.name),
      email: str(m.email),
      joinedAt: str(m.joinedAt),
      approvalMail: m.approvalMail === true,
    })),
    invites: list(r.invites).map((i) => ({ id: str(i.id), email: str(i.email), role: role(i.role), expiresAt: str(i.expiresAt), createdAt: str(i.createdAt) })),
  };
}

function parseActivity(raw: unknown): ActivityItem[] {
  return list(obj(raw).items).map((i) => ({ at: str(i.at), actor: parseActor(i.actor), action: str(i.action), kind: str(i.kind), detail: str(i.detail) }));
}

function parsePublishOutcome(raw: unknown): PublishOutcome {
  const r = obj(raw);
  if (r.status === 'awaiting_approval') return { status: 'awaiting_approval', approvalId: str(r.approvalId), approval: parseApproval(r.approval) };
  return { status: 'published', publication: raw };
}

const enc = encodeURIComponent;

/*
 * Tags: Workspaces (the person's list), Team (members, invitations, the approval rule),
 * Approval (publish requests), Activity (a product's history). A decision publishes a page, so
 * it also refreshes the product and its publication.
 */
export const teamApi = api.enhanceEndpoints({ addTagTypes: ['Workspaces', 'Team', 'Approval', 'Activity', 'Product', 'Publication'] }).injectEndpoints({
  endpoints: (build) => ({
    workspaces: build.query<WorkspaceList, void>({
      query: () => ({ url: '/workspaces' }),
      transformResponse: parseWorkspaces,
      providesTags: ['Workspaces'],
    }),
    /** Only the token: the caller stores it and resets every cached answer (use-workspace.ts). */
    switchWorkspace: build.mutation<SwitchAnswer, string>({
      query: (id) => ({ url: `/workspaces/${enc(id)}/switch`, method: 'POST', body: {} }),
    }),
    teamMembers: build.query<Team, void>({
      query: () => ({ url: '/team/members' }),
      transformResponse: parseTeam,
      providesTags: ['Team'],
    }),
    inviteMember: build.mutation<Invite, { email: string; role: InviteRole }>({
      query: (body) => ({ url: '/team/invites', method: 'POST', body }),
      invalidatesTags: ['Team'],
    }),
    revokeInvite: build.mutation<unknown, string>({
      query: (id) => ({ url: `/team/invites/${enc(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Team'],
    }),
    changeRole: build.mutation<Team, { userId: string; role: Role }>({
      query: ({ userId, role }) => ({ url: `/team/members/${enc(userId)}`, method: 'PATCH', body: { role } }),
      transformResponse: parseTeam,
      invalidatesTags: ['Team', 'Workspaces'],
    }),
    /** The owner removes a member; a member passing their own id leaves ({left: true}). */
    removeMember: build.mutation<unknown, string>({
      query: (userId) => ({ url: `/team/members/${enc(userId)}`, method: 'DELETE' }),
      invalidatesTags: ['Team', 'Workspaces'],
    }),
    /**
     * The person leaves the workspace ({left: true}). Nothing is refetched: the session still
     * names the workspace left, and the caller switches to another one at once.
     */
    leaveWorkspace: build.mutation<unknown, string>({
      query: (userId) => ({ url: `/team/members/${enc(userId)}`, method: 'DELETE' }),
    }),
    transferOwnership: build.mutation<Team, string>({
      query: (userId) => ({ url: '/team/transfer', method: 'POST', body: { userId } }),
      transformResponse: parseTeam,
      invalidatesTags: ['Team', 'Workspaces', 'Approval'],
    }),
    /** Turning approvals on pins every live page: lockedPages says how many. */
    setRequireApproval: build.mutation<{ requireApproval: boolean; lockedPages: number }, boolean>({
      query: (requireApproval) => ({ url: '/team/settings', method: 'PUT', body: { requireApproval } }),
      transformResponse: (raw: unknown) => ({ requireApproval: obj(raw).requireApproval === true, lockedPages: num(obj(raw).lockedPages) }),
      invalidatesTags: ['Team', 'Workspaces', 'Product', 'Publication'],
    }),
    setApprovalMail: build.mutation<Team, boolean>({
      query: (approvalMail) => ({ url: '/team/me', method: 'PUT', body: { approvalMail } }),
      transformResponse: parseTeam,
      invalidatesTags: ['Team'],
    }),
    peekInvite: build.query<InvitePeek, string>({
      query: (token) => ({ url: '/team/invites/peek', method: 'POST', body: { token } }),
      transformResponse: (raw: unknown) => {
        const r = obj(raw);
        return { workspaceName: str(r.workspaceName), role: role(r.role), email: str(r.email), hasAccount: r.hasAccount === true, expiresAt: str(r.expiresAt) };
      },
    }),
    acceptInvite: build.mutation<AcceptAnswer, { token: string; name?: string; password?: string }>({
      query: (body) => ({ url: '/team/invites/accept', method: 'POST', body }),
    }),
    approvals: build.query<Approval[], { state?: ApprovalStatus; productId?: string }>({
      query: ({ state, productId }) => ({ url: '/approvals', params: { state, productId } }),
      transformResponse: (raw: unknown) => list(obj(raw).items).map(parseApproval),
      providesTags: ['Approval'],
    }),
    /** One request; a pending one carries what would go live next to what is live now. */
    approval: build.query<Approval, string>({
      query: (id) => ({ url: `/approvals/${enc(id)}` }),
      transformResponse: parseApproval,
      providesTags: (_r, _e, id) => [{ type: 'Approval', id }],
    }),
    decideApproval: build.mutation<Approval, { id: string; approve: boolean; comment: string }>({
      query: ({ id, approve, comment }) => ({ url: `/approvals/${enc(id)}/${approve ? 'approve' : 'reject'}`, method: 'POST', body: { comment } }),
      transformResponse: parseApproval,
      invalidatesTags: (r) => ['Approval', 'Activity', 'Publication', ...(r ? [{ type: 'Product' as const, id: r.productId }] : [])],
    }),
    withdrawApproval: build.mutation<unknown, string>({
      query: (id) => ({ url: `/approvals/${enc(id)}/withdraw`, method: 'POST', body: {} }),
      invalidatesTags: ['Approval', 'Activity'],
    }),
    productActivity: build.query<ActivityItem[], string>({
      query: (productId) => ({ url: `/products/${enc(productId)}/activity` }),
      transformResponse: parseActivity,
      providesTags: (_r, _e, id) => [{ type: 'Activity', id }],
    }),
    /**
     * The product's Publish as the product page sends it: 200/201 with the publication, or for an
     * editor in a workspace that requires approval 202 {status: "awaiting_approval", approval}.
     */
    publishOrRequest: build.mutation<PublishOutcome, { productId: string; requireEmail: boolean; allowDeepLinks: boolean }>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/publish`, method: 'POST', body }),
      transformResponse: parsePublishOutcome,
      invalidatesTags: (_r, _e, a) => [{ type: 'Product', id: a.productId }, 'Publication', 'Subscription', 'Approval', { type: 'Activity', id: a.productId }],
    }),
  }),
});

export const {
  useWorkspacesQuery,
  useSwitchWorkspaceMutation,
  useTeamMembersQuery,
  useInviteMemberMutation,
  useRevokeInviteMutation,
  useChangeRoleMutation,
  useRemoveMemberMutation,
  useLeaveWorkspaceMutation,
  useTransferOwnershipMutation,
  useSetRequireApprovalMutation,
  useSetApprovalMailMutation,
  usePeekInviteQuery,
  useAcceptInviteMutation,
  useApprovalsQuery,
  useApprovalQuery,
  useDecideApprovalMutation,
  useWithdrawApprovalMutation,
  useProductActivityQuery,
  usePublishOrRequestMutation,
} = teamApi;
