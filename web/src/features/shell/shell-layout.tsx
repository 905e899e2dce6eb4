import { useEffect, useRef, type ReactNode } from 'react';
import { Outlet, useLocation } from 'react-router';
import { IconMenu } from '../../components/icons';
import { useAppDispatch, useAppSelector } from '../../lib/hooks';
import { useGetMeQuery } from '../../lib/session-api';
import { menuClosed } from '../../lib/ui-slice';
import { AccountMenu } from './account-menu';
import { collapseToggled, COLLAPSED_KEY, mobileClosed, mobileOpened, selectCollapsed, selectMobileOpen } from './shell-slice';
import { Sidebar } from './sidebar';
import { VerifyEmailBanner } from './verify-email-banner';
import { navForRole, type NavItem, type NavRole } from './shell-rules';
import { WorkspaceGone } from './workspace-gone';
import { WorkspaceSwitcher } from './workspace-switcher';
import { useApprovalsQuery } from '../../entities/team/team-api';
import { canDecide } from '../../entities/team/team-rules';
import { useCurrentWorkspace } from '../../entities/team/use-workspace';
import './shell.css';

/**
 * The authenticated frame: sidebar, top bar and the page. Search and the
 * notification bell come from their own features, passed in by the app.
 */
export function ShellLayout({ navItems, search, notifications }: { navItems: NavItem[]; search?: ReactNode; notifications?: ReactNode }) {
  const dispatch = useAppDispatch();
  const collapsed = useAppSelector(selectCollapsed);
  const mobileOpen = useAppSelector(selectMobileOpen);
  const location = useLocation();
  const menuButton = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useGetMeQuery();
  const who = useNavRole();

  // Closing the drawer (Escape, backdrop, close button) returns focus to its trigger.
  useEffect(() => {
    if (wasOpen.current && !mobileOpen && document.activeElement?.closest('#workspace-sidebar, body') && window.innerWidth <= 968) {
      menuButton.current?.focus();
    }
    wasOpen.current = mobileOpen;
  }, [mobileOpen]);

  useEffect(() => {
    dispatch(mobileClosed());
    dispatch(menuClosed());
  }, [dispatch, location.pathname, location.search]);

  useEffect(() => {
    try {
      localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
    } catch {
      /* preference only */
    }
  }, [collapsed]);

  useEffect(() => {
    if (!mobileOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && dispatch(mobileClosed());
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mobileOpen, dispatch]);

  return (
    <div className={collapsed ? 'shell shell--collapsed' : 'shell'}>
      <a className="skip-link" href="#workspace-main">Skip to content</a>
      <Sidebar
        items={navForRole(navItems, who)}
        switcher={<WorkspaceSwitcher />}
        collapsed={collapsed}
        mobileOpen={mobileOpen}
        onToggleCollapse={() => dispatch(collapseToggled())}
        onCloseMobile={() => dispatch(mobileClosed())}
      />
      {mobileOpen && <div className="shell__backdrop" onClick={() => dispatch(mobileClosed())} aria-hidden="true" />}
      <div className="shell__body">
        <header className="topbar">
          <button
            ref={menuButton}
            type="button"
            className="icon-btn topbar__menu"
            aria-label="Open navigation"
            aria-expanded={mobileOpen}
            aria-controls="workspace-sidebar"
            onClick={() => dispatch(mobileOpened())}
          >
            <IconMenu />
          </button>
          <div className="topbar__search">{search}</div>
          <div className="topbar__actions">
            {notifications}
            <AccountMenu />
          </div>
        </header>
        <main id="workspace-main" className="shell__main" tabIndex={-1}>
          <WorkspaceGone />
          <VerifyEmailBanner />
          <Outlet />
        </main>
      </div>
    </div>
  );
}

/** The person's role in the current workspace and the pending requests they decide (issue 51). */
function useNavRole(): NavRole | null {
  const { workspace } = useCurrentWorkspace();
  const approvals = !!workspace && workspace.role !== 'analyst' && (workspace.requireApproval || workspace.members > 1);
  const decides = !!workspace && canDecide(workspace.role);
  const { data: pending } = useApprovalsQuery({ state: 'pending' }, { skip: !approvals || !decides, refetchOnFocus: true });
  if (!workspace) return null;
  return { role: workspace.role, approvals, pending: decides ? (pending?.length ?? 0) : 0 };
}
