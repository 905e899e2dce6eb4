import { useCallback, useEffect, useMemo } from 'react';
import { api } from '../../lib/api';
import { loadAuth, replaceAuth, saveAuth, type AuthRecord } from '../../lib/auth-storage';
import { useAppDispatch, useAppSelector, type AppDispatch } from '../../lib/hooks';
import { selectAuthStatus, selectAuthUser, signedIn } from '../../lib/session';
import { toAuthRecord } from '../auth/auth-api';
import { teamApi, useSwitchWorkspaceMutation, useWorkspacesQuery, type Workspace } from './team-api';
import { abilitiesOf, currentWorkspace, type RoleAbilities } from './team-rules';

/** Where the last known current workspace is kept, to name it once the person is removed from it. */
export const LAST_WORKSPACE_KEY = 'photo3d.workspace';

/** The last known current workspace of this tab, with the person's role there as the server last named it. */
export interface RememberedWorkspace {
  id: string;
  name: string;
  /** Whose session it was: a role is only reused for the same person. */
  user?: string;
  role?: Workspace['role'];
  requireApproval?: boolean;
}

export function rememberWorkspace(ws: Pick<Workspace, 'id' | 'name'> & Partial<Pick<Workspace, 'role' | 'requireApproval'>>, user?: string) {
  try {
    const v: RememberedWorkspace = { id: ws.id, name: ws.name, user, role: ws.role, requireApproval: ws.requireApproval };
    sessionStorage.setItem(LAST_WORKSPACE_KEY, JSON.stringify(v));
  } catch {
    /* a name for a message only */
  }
}

const ROLES: ReadonlySet<string> = new Set(['owner', 'editor', 'reviewer', 'analyst']);

export function lastWorkspace(): RememberedWorkspace | null {
  try {
    const v = JSON.parse(sessionStorage.getItem(LAST_WORKSPACE_KEY) ?? 'null') as Record<string, unknown> | null;
    if (!v || typeof v.id !== 'string' || typeof v.name !== 'string') return null;
    return {
      id: v.id,
      name: v.name,
      user: typeof v.user === 'string' ? v.user : undefined,
      role: typeof v.role === 'string' && ROLES.has(v.role) ? (v.role as Workspace['role']) : undefined,
      requireApproval: typeof v.requireApproval === 'boolean' ? v.requireApproval : undefined,
    };
  } catch {
    return null;
  }
}

/**
 * The workspace the session acts in, with the person's role there. null while loading, and when
 * the server has no list (then the app behaves as the owner of the account's own workspace).
 * A role or the approval rule changed by the owner shows on the next read.
 */
export function useCurrentWorkspace({ fresh = false }: { fresh?: boolean } = {}) {
  const signedOut = useAppSelector(selectAuthStatus) === 'signedOut';
  // fresh: read again on mount, where a stale rule would send a Publish the wrong way.
  const q = useWorkspacesQuery(undefined, { skip: signedOut, refetchOnMountOrArgChange: fresh });
  const workspace = currentWorkspace(q.data);
  const userId = useCurrentUserId();
  useEffect(() => {
    if (workspace) rememberWorkspace(workspace, userId ?? storedUserId());
  }, [workspace, userId]);
  return { workspace, list: q.data, isLoading: q.isLoading, error: q.error };
}

/** The stored session's user id: who is signed in on a reload before the session is restored. */
function storedUserId(): string | undefined {
  return loadAuth()?.user?.id;
}

/** The signed-in person's user id (to tell their own requests and their own row). */
export function useCurrentUserId(): string | undefined {
  return useAppSelector(selectAuthUser)?.id;
}

/**
 * Makes a session answer (switch, accept) the app's session: stored where sign-in stores it,
 * then every cached answer is dropped so each list reloads in the new workspace.
 * `replace` keeps the storages that hold the old session (remember me); otherwise it is saved
 * for this tab only, as a sign-in without "remember me".
 */
export function adoptSession(dispatch: AppDispatch, answer: unknown, replace: boolean): AuthRecord | null {
  const record = toAuthRecord(answer);
  if (!record) return null;
  if (replace) replaceAuth(record);
  else saveAuth(record, false);
  dispatch(api.util.resetApiState());
  dispatch(signedIn(record));
  return record;
}

/** Switches the session to another workspace: a new token, and every list reloads. */
export function useSwitchWorkspace() {
  const dispatch = useAppDispatch();
  const [switchTo, state] = useSwitchWorkspaceMutation();
  const userId = useCurrentUserId();
  const run = useCallback(
    /** target: the listed workspace, whose name and role stand in until the new list loads. */
    async (id: string, target?: Pick<Workspace, 'name'> & Partial<Pick<Workspace, 'role' | 'requireApproval'>>) => {
      const answer = await switchTo(id).unwrap();
      if (target) rememberWorkspace({ id, ...target }, userId ?? storedUserId());
      if (!adoptSession(dispatch, answer, true)) throw { status: 'CUSTOM_ERROR', message: 'The switch answer carried no session.' };
      return answer;
    },
    [dispatch, switchTo, userId],
  );
  return [run, state] as const;
}

/** Reads the person's workspaces afresh (not from the cache), for choosing where to go. */
export function fetchWorkspaces(dispatch: AppDispatch) {
  const sub = dispatch(teamApi.endpoints.workspaces.initiate(undefined, { forceRefetch: true, subscribe: false }));
  return sub.unwrap();
}

/**
 * The person's role in the workspace they act in, and what it lets them do (issue 51). While the
 * list loads, the role this tab last saw for the same person stands in for it, so a reviewer who
 * reloads a page never sees an owner's controls for a moment. With neither (and where the server
 * has no teams) the person is the owner, as the nav assumes.
 */
export function useWorkspaceRole(opts: { fresh?: boolean } = {}): RoleAbilities {
  const { workspace, list, error } = useCurrentWorkspace(opts);
  const answered = !!list || !!error;
  const userId = useCurrentUserId();
  return useMemo(() => {
    if (workspace || answered) return abilitiesOf(workspace);
    const last = lastWorkspace();
    const who = userId ?? storedUserId();
    if (!last?.role || !who || last.user !== who) return abilitiesOf(null);
    return { ...abilitiesOf({ role: last.role, requireApproval: !!last.requireApproval }), known: false };
  }, [workspace, answered, userId]);
}
