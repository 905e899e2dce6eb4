import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { NOT_A_MEMBER_EVENT } from '../../lib/api';
import { currentToken } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { fallbackWorkspace } from '../../entities/team/team-rules';
import { fetchWorkspaces, lastWorkspace, useSwitchWorkspace } from '../../entities/team/use-workspace';

/** What the person is told once moved out of a workspace they were removed from. */
export function noLongerMemberText(name: string | undefined): string {
  return `You are no longer a member of ${name || 'that workspace'}.`;
}

/**
 * A person removed from the session's workspace gets 403 not_a_member on their next request
 * (issue 51). Then: read their workspaces afresh, switch to their own (or the first they still
 * have), open its dashboard and say which workspace they left. Answers to a session already
 * replaced are ignored, so a burst of refusals moves them once.
 */
export function WorkspaceGone() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [switchTo] = useSwitchWorkspace();
  const [message, setMessage] = useState<string | null>(null);
  const busy = useRef(false);

  useEffect(() => {
    const onGone = async (e: Event) => {
      const refused = (e as CustomEvent<{ token?: string | null } | undefined>).detail?.token;
      if (busy.current || (refused && refused !== currentToken())) return;
      busy.current = true;
      try {
        const gone = lastWorkspace();
        const list = await fetchWorkspaces(dispatch);
        const target = fallbackWorkspace(list, gone?.id ?? list.current);
        if (target) await switchTo(target.id, target);
        setMessage(noLongerMemberText(gone?.name));
        navigate('/my-home', { replace: true });
      } catch {
        setMessage(`${noLongerMemberText(lastWorkspace()?.name)} Sign in again to open your own workspace.`);
      } finally {
        busy.current = false;
      }
    };
    window.addEventListener(NOT_A_MEMBER_EVENT, onGone);
    return () => window.removeEventListener(NOT_A_MEMBER_EVENT, onGone);
  }, [dispatch, navigate, switchTo]);

  if (!message) return null;
  return (
    <div className="workspace-gone" data-testid="workspace-gone">
      <Alert tone="info">
        {message}{' '}
        <button type="button" className="link-btn" onClick={() => setMessage(null)}>
          Dismiss
        </button>
      </Alert>
    </div>
  );
}
