import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import {
  IconBox,
  IconCard,
  IconChart,
  IconCheck,
  IconCube,
  IconChevronLeft,
  IconChevronRight,
  IconClose,
  IconGallery,
  IconHome,
  IconSettings,
  IconUser,
} from '../../components/icons';
import { Logo } from '../../components/logo';
import { isNavActive, type NavItem } from './shell-rules';

const icons = {
  dashboard: IconHome,
  products: IconBox,
  models: IconCube,
  gallery: IconGallery,
  analytics: IconChart,
  subscription: IconCard,
  settings: IconSettings,
  team: IconUser,
  approvals: IconCheck,
};

/** Workspace navigation: collapsible on desktop, a drawer at 968px and below. */
export function Sidebar({
  items,
  collapsed,
  mobileOpen,
  onToggleCollapse,
  onCloseMobile,
  switcher,
}: {
  items: NavItem[];
  /** The workspace switcher (issue 51), under the logo. */
  switcher?: ReactNode;
  collapsed: boolean;
  mobileOpen: boolean;
  onToggleCollapse: () => void;
  onCloseMobile: () => void;
}) {
  const { pathname } = useLocation();
  const closeBtn = useRef<HTMLButtonElement>(null);
  // Opening the drawer moves focus into it so keyboard users land on it.
  useEffect(() => {
    if (mobileOpen) closeBtn.current?.focus();
  }, [mobileOpen]);
  const cls = ['sidebar', collapsed ? 'sidebar--collapsed' : '', mobileOpen ? 'sidebar--open' : ''].filter(Boolean).join(' ');
  return (
    <aside id="workspace-sidebar" className={cls} aria-label="Workspace">
      <div className="sidebar__head">
        <Link to="/my-home" className="sidebar__logo" aria-label="Photo3D dashboard">
          <Logo compact={collapsed && !mobileOpen} />
        </Link>
        <button ref={closeBtn} type="button" className="icon-btn sidebar__close" onClick={onCloseMobile} aria-label="Close navigation">
          <IconClose />
        </button>
      </div>
      {switcher}
      <nav className="sidebar__nav">
        <ul>
          {items.map((item) => {
            const Icon = icons[item.icon];
            const active = isNavActive(item, pathname);
            return (
              <li key={item.to}>
                <Link
                  to={item.to}
                  className={active ? 'sidebar__link sidebar__link--active' : 'sidebar__link'}
                  aria-current={active ? 'page' : undefined}
                  title={collapsed ? item.label : undefined}
                >
                  <Icon />
                  <span className="sidebar__label">{item.label}</span>
                  {item.badge ? (
                    <span className="sidebar__badge" aria-label={`${item.badge} pending`}>
                      {item.badge}
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <button
        type="button"
        className="sidebar__collapse"
        onClick={onToggleCollapse}
        aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
        aria-expanded={!collapsed}
        aria-controls="workspace-sidebar"
      >
        {collapsed ? <IconChevronRight /> : <IconChevronLeft />}
        <span className="sidebar__label">Collapse</span>
      </button>
    </aside>
  );
}
