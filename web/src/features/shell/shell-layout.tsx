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
import type { NavItem } from './shell-rules';

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
        items={navItems}
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
          <VerifyEmailBanner />
          <Outlet />
        </main>
      </div>
    </div>
  );
}
