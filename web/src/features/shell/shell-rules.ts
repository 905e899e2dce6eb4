/** Sidebar widths and the drawer breakpoint (spec §9). */
export const SIDEBAR_EXPANDED_PX = 208;
export const SIDEBAR_COLLAPSED_PX = 70;
export const MOBILE_BREAKPOINT_PX = 968;

/** One sidebar entry; `exact` makes it active only on its own path. */
export interface NavItem {
  to: string;
  label: string;
  icon: 'dashboard' | 'products' | 'models' | 'gallery' | 'analytics' | 'subscription' | 'settings' | 'team' | 'approvals';
  exact?: boolean;
  /** A count shown beside the label (pending approvals). */
  badge?: number;
}

/** The workspace navigation; Gallery only when the plan allows galleries (spec §6). */
export function workspaceNav(canUseGalleries: boolean): NavItem[] {
  const items: NavItem[] = [
    { to: '/my-home', label: 'Dashboard', icon: 'dashboard', exact: true },
    { to: '/workspace/products', label: 'Products', icon: 'products' },
    // One place for the 3D models (blueprints), which only a header link led to (issue 50 P5).
    { to: '/workspace/blueprints', label: '3D models', icon: 'models' },
    { to: '/workspace/gallery', label: 'Gallery', icon: 'gallery' },
    { to: '/workspace/analytics', label: 'Analytics', icon: 'analytics' },
    { to: '/workspace/subscription', label: 'Subscription', icon: 'subscription' },
    { to: '/workspace/settings', label: 'Settings', icon: 'settings' },
  ];
  return canUseGalleries ? items : items.filter((i) => i.icon !== 'gallery');
}

/** The person's role in the current workspace, as the nav needs it (issue 51). */
export interface NavRole {
  role: 'owner' | 'editor' | 'reviewer' | 'analyst';
  /** Publishing needs approval, or others share the workspace: approvals are worth a link. */
  approvals: boolean;
  /** Pending requests, for the badge (0: none). */
  pending: number;
}

/** What each role uses; unknown entries stay (the server refuses what a role may not do). */
const ROLE_NAV: Record<NavRole['role'], NavItem['icon'][] | null> = {
  owner: null,
  editor: ['dashboard', 'products', 'models', 'gallery', 'analytics', 'settings'],
  reviewer: ['dashboard', 'products', 'models', 'gallery', 'analytics'],
  analyst: ['dashboard', 'analytics'],
};

/**
 * The nav for a role (issue 51): an analyst sees Dashboard and Analytics, a reviewer what there
 * is to see, an editor all but billing; Approvals (with the pending count) beside Products for
 * those who ask or decide, and Team for everyone. Without a role yet (loading, or a server
 * without teams) the list is the owner's.
 */
export function navForRole(items: NavItem[], who: NavRole | null): NavItem[] {
  const allowed = who ? ROLE_NAV[who.role] : null;
  const out = allowed ? items.filter((i) => allowed.includes(i.icon)) : [...items];
  if (who && who.approvals && who.role !== 'analyst') {
    const approvals: NavItem = { to: '/workspace/approvals', label: 'Approvals', icon: 'approvals', ...(who.pending > 0 ? { badge: who.pending } : {}) };
    const at = out.findIndex((i) => i.icon === 'analytics');
    out.splice(at < 0 ? out.length : at, 0, approvals);
  }
  out.push({ to: '/workspace/team', label: 'Team', icon: 'team' });
  return out;
}

/** Active highlighting: exact for Dashboard, path prefix for the rest. */
export function isNavActive(item: NavItem, pathname: string): boolean {
  if (item.exact) return pathname === item.to;
  return pathname === item.to || pathname.startsWith(item.to + '/');
}
