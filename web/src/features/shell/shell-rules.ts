/** Sidebar widths and the drawer breakpoint (spec §9). */
export const SIDEBAR_EXPANDED_PX = 208;
export const SIDEBAR_COLLAPSED_PX = 70;
export const MOBILE_BREAKPOINT_PX = 968;

/** One sidebar entry; `exact` makes it active only on its own path. */
export interface NavItem {
  to: string;
  label: string;
  icon: 'dashboard' | 'products' | 'models' | 'gallery' | 'analytics' | 'subscription' | 'settings';
  exact?: boolean;
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

/** Active highlighting: exact for Dashboard, path prefix for the rest. */
export function isNavActive(item: NavItem, pathname: string): boolean {
  if (item.exact) return pathname === item.to;
  return pathname === item.to || pathname.startsWith(item.to + '/');
}
