import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api';
import { ROLE_LABEL } from '../../entities/team/team-rules';
import { useCurrentWorkspace, useSwitchWorkspace } from '../../entities/team/use-workspace';

/**
 * The person's workspaces with their role in each (issue 51). Choosing one asks the server for a
 * session in it, drops every cached answer and opens its dashboard, so every list reloads there.
 * Shown only to people in more than one workspace.
 */
export function WorkspaceSwitcher() {
  const { workspace, list } = useCurrentWorkspace();
  const [switchTo, { isLoading }] = useSwitchWorkspace();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  if (!workspace || !list || list.items.length < 2) return null;
  const onChange = async (id: string) => {
    const target = list.items.find((w) => w.id === id);
    if (!target || id === workspace.id) return;
    setProblem(null);
    try {
      await switchTo(id, target);
      navigate('/my-home');
    } catch (e) {
      setProblem(errorMessage(e, 'The workspace could not be opened. Please try again.'));
    }
  };
  return (
    <div className="workspace-switcher">
      <label htmlFor="workspace-switcher" className="workspace-switcher__label">
        Current workspace
      </label>
      <select id="workspace-switcher" value={workspace.id} disabled={isLoading} onChange={(e) => void onChange(e.target.value)} data-testid="workspace-switcher">
        {list.items.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name} · {ROLE_LABEL[w.role]}
          </option>
        ))}
      </select>
      {problem && (
        <p className="workspace-switcher__problem" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
