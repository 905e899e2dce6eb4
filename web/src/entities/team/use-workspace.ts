import { useCallback, useEffect, useMemo } from 'react';
import { api } from '../../lib/api';
import { replaceAuth, saveAuth, type AuthRecord } from '../../lib/auth-storage';
import { useAppDispatch, useAppSelector, type AppDispatch } from '../../lib/hooks';
import { selectAuthStatus, selectAuthUser, signedIn } from '../../lib/session';
import { toAuthRecord } from '../auth/auth-api';
import { teamApi, useSwitchWorkspaceMutation, useWorkspacesQuery, type Workspace } from './team-api';
import { abilitiesOf, currentWorkspace, type RoleAbilities } from './team-rules';

/** Where the last known current workspace is kept, to name it once the person is removed from it. */
export const LAST_WORKSPACE_KEY = 'photo3d.workspace';

export function rememberWorkspace(ws: Pick<Workspace, 'id' | 'name'>) {
  try {
    sessionStorage.setItem(LAST_WORKSPACE_KEY, JSON.stringify({ id: ws.id, name: ws.name }));
  } catch {
    /* a name for a message only */
  }
}

export function lastWorkspace(): { id: string; name: string } | null {
  try {
    const v = JSON.parse(sessionStorage.getItem(LAST_WORKSPACE_KEY) ?? 'null') as { id?: unknown; name?: unknown } | null;
    return v && typeof v.id === 'string' && typeof v.name === 'string' ? { id: v.id, name: v.name } : null;
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
  useEffect(() => {
    if (workspace) rememberWorkspace(workspace);
  }, [workspace]);
  return { workspace, list: q.data, isLoading: q.isLoading, error: q.error };
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
  const run = useCallback(
    async (id: string, name?: string) => {
      const answer = await switchTo(id).unwrap();
      if (name) rememberWorkspace({ id, name });
      if (!adoptSession(dispatch, answer, true)) throw { status: 'CUSTOM_ERROR', message: 'The switch answer carried no session.' };
      return answer;
    },
    [dispatch, switchTo],
  );
  return [run, state] as const;
}

/** Reads the person's workspaces afresh (not from the cache), for choosing where to go. */
export function fetchWorkspaces(dispatch: AppDispatch) {
  const sub = dispatch(teamApi.endpoints.workspaces.initiate(undefined, { forceRefetch: true, subscribe: false }));
  return sub.unwrap();
}

/**
 * The person's role in the workspace they act in, and what it lets them do (issue 51). Until the
 * server names the role (and where it has no teams) the person is the owner, as the nav assumes.
 */
export function useWorkspaceRole(opts: { fresh?: boolean } = {}): RoleAbilities {
  const { workspace } = useCurrentWorkspace(opts);
  return useMemo(() => abilitiesOf(workspace), [workspace]);
}
