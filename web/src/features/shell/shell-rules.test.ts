import { describe, expect, it } from 'vitest';
import { isNavActive, MOBILE_BREAKPOINT_PX, SIDEBAR_COLLAPSED_PX, SIDEBAR_EXPANDED_PX, workspaceNav } from './shell-rules';

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
