import { describe, expect, it } from 'vitest';
import { isNavActive, MOBILE_BREAKPOINT_PX, navForRole, SIDEBAR_COLLAPSED_PX, SIDEBAR_EXPANDED_PX, workspaceNav } from './shell-rules';

describe('workspace nav', () => {
  it('lists Gallery only when the plan allows galleries', () => {
    expect(workspaceNav(false).map((i) => i.label)).toEqual(['Dashboard', 'Products', '3D models', 'Analytics', 'Subscription', 'Settings']);
    expect(workspaceNav(true).map((i) => i.label)).toEqual(['Dashboard', 'Products', '3D models', 'Gallery', 'Analytics', 'Subscription', 'Settings']);
  });
  it('Dashboard matches exactly, others by prefix', () => {
    const [dash, products] = workspaceNav(false);
    expect(isNavActive(dash, '/my-home')).toBe(true);
    expect(isNavActive(dash, '/my-home/x')).toBe(false);
    expect(isNavActive(products, '/workspace/products')).toBe(true);
    expect(isNavActive(products, '/workspace/products/42')).toBe(true);
    expect(isNavActive(products, '/workspace/productsx')).toBe(false);
  });
  it('sizes', () => {
    expect([SIDEBAR_EXPANDED_PX, SIDEBAR_COLLAPSED_PX, MOBILE_BREAKPOINT_PX]).toEqual([208, 70, 968]);
  });
});

describe('nav for a role (issue 51)', () => {
  const labels = (items: ReturnType<typeof workspaceNav>) => items.map((i) => i.label);
  it("keeps the owner's nav while the role is unknown, and always offers Team", () => {
    expect(labels(navForRole(workspaceNav(true), null))).toEqual(['Dashboard', 'Products', '3D models', 'Gallery', 'Analytics', 'Subscription', 'Settings', 'Team']);
  });
  it('shows an analyst Dashboard and Analytics only (and Team), never Approvals', () => {
    expect(labels(navForRole(workspaceNav(true), { role: 'analyst', approvals: true, pending: 2 }))).toEqual(['Dashboard', 'Analytics', 'Team']);
  });
  it('puts Approvals with its pending count before Analytics for owners, reviewers and editors', () => {
    const owner = navForRole(workspaceNav(false), { role: 'owner', approvals: true, pending: 3 });
    expect(labels(owner)).toEqual(['Dashboard', 'Products', '3D models', 'Approvals', 'Analytics', 'Subscription', 'Settings', 'Team']);
    expect(owner.find((i) => i.label === 'Approvals')).toMatchObject({ to: '/workspace/approvals', badge: 3 });
    expect(labels(navForRole(workspaceNav(true), { role: 'reviewer', approvals: true, pending: 0 }))).toEqual(['Dashboard', 'Products', '3D models', 'Gallery', 'Approvals', 'Analytics', 'Team']);
    expect(labels(navForRole(workspaceNav(true), { role: 'editor', approvals: true, pending: 0 }))).toEqual([
      'Dashboard',
      'Products',
      '3D models',
      'Gallery',
      'Approvals',
      'Analytics',
      'Settings',
      'Team',
    ]);
    expect(labels(navForRole(workspaceNav(false), { role: 'owner', approvals: false, pending: 0 }))).not.toContain('Approvals');
  });
});
