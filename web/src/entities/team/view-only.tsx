import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { IconChart, IconLock } from '../../components/icons';
import { ANALYST_CATALOGUE_TEXT, VIEW_ONLY_TEXT, type RoleAbilities } from './team-rules';
import { useWorkspaceRole } from './use-workspace';
import './team.css';

/**
 * "View only" where editing was hidden (issue 51), for a reviewer or an analyst: what their role
 * lets them do, and who makes the changes. Nothing for the owner and editors.
 */
export function ViewOnlyNote({ access }: { access?: RoleAbilities }) {
  const own = useWorkspaceRole();
  const a = access ?? own;
  if (!a.known || !a.viewOnly) return null;
  const text = a.role === 'analyst' ? VIEW_ONLY_TEXT.analyst : VIEW_ONLY_TEXT.reviewer;
  return (
    <p className="role-note" role="note" data-testid="view-only-note" data-role={a.role}>
      <IconLock size={16} /> <span>{text}</span>
    </p>
  );
}

/** Where a setting is the owner's alone (billing, branding, store, channel connections): who changes it. */
export function OwnerOnlyNote({ children = 'Only the workspace owner changes these settings.' }: { children?: ReactNode }) {
  return (
    <p className="role-note" role="note" data-testid="owner-only-note">
      <IconLock size={16} /> <span>{children}</span>
    </p>
  );
}

/** An analyst on a page of the catalogue (the server answers its reads with 403 forbidden_role): why, and where to go. */
export function AnalystBlocked({ title }: { title: string }) {
  return (
    <div className="page">
      <header className="page__header">
        <h1 className="page__title">{title}</h1>
      </header>
      <EmptyState testId="analyst-blocked" icon={<IconChart />} title="Not open to analysts" text={ANALYST_CATALOGUE_TEXT}>
        <Link to="/workspace/analytics" className="btn btn--primary">
          Open Analytics
        </Link>
      </EmptyState>
    </div>
  );
}

/**
 * A page of the catalogue: analysts get AnalystBlocked instead of a list the server refuses.
 * Everyone else gets the page (which hides its own edits). Until the role is known the page
 * shows as to the owner, as the nav does; the shell has usually read the role by then.
 */
export function CatalogueGate({ title, children }: { title: string; children: ReactNode }) {
  const a = useWorkspaceRole();
  if (!a.canSee) return <AnalystBlocked title={title} />;
  return <>{children}</>;
}

/**
 * A page that only makes things (upload, spin set, the Add Product wizard, a new gallery): a
 * reviewer reads the view-only note with a way back, an analyst AnalystBlocked.
 */
export function EditorsGate({ title, back, children }: { title: string; back: { to: string; label: string }; children: ReactNode }) {
  const a = useWorkspaceRole();
  if (!a.canSee) return <AnalystBlocked title={title} />;
  if (!a.canEdit) {
    return (
      <div className="page" data-testid="editors-only">
        <header className="page__header">
          <h1 className="page__title">{title}</h1>
        </header>
        <ViewOnlyNote access={a} />
        <p>
          <Link to={back.to}>{back.label}</Link>
        </p>
      </div>
    );
  }
  return <>{children}</>;
}
