import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { FIRST_VISIT_MESSAGES, RETURNING_MESSAGES } from './dashboard-rules';

afterEach(() => vi.unstubAllGlobals());

function server(dashboard: unknown) {
  stubFetch({
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha', lastName: 'Rao' }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/dashboard': () => dashboard,
  });
}

describe('DashboardPage', () => {
  it('honest empty states and the first-visit message', async () => {
    signIn();
    server({ recent: [], topProducts: [], insights: [] });
    renderRoutes(routes, ['/my-home']);
    expect(await screen.findByRole('heading', { name: /^Good (Morning|Afternoon|Evening), Asha$/ })).toBeInTheDocument();
    expect(FIRST_VISIT_MESSAGES.some((m) => screen.queryByText(m))).toBe(true);
    expect(await screen.findByText(/Nothing to resume yet/)).toBeInTheDocument();
    expect(screen.getByText(/No shopper activity yet/)).toBeInTheDocument();
    expect(screen.getByText(/No recommendations right now/)).toBeInTheDocument();
    for (const name of ['Products', 'Gallery', 'Analytics']) {
      expect(screen.getAllByRole('link', { name }).length).toBeGreaterThan(0);
    }
  });

  it('shows recent items, top products and insights from the server', async () => {
    localStorage.setItem('photo3d.dashboardVisited', '1');
    signIn();
    server({
      recent: [
        { id: 'p1', type: 'product', label: 'Oak Bed', status: 'ready', updatedAt: new Date(Date.now() - 5 * 60_000).toISOString(), path: '/workspace/product/p1' },
        { id: 'j1', type: 'blueprint', label: 'Lamp', status: 'processing', updatedAt: new Date().toISOString(), path: '/workspace/processing/j1' },
        { id: 'g1', type: 'gallery', label: 'Spring', status: 'error', updatedAt: new Date().toISOString(), path: '/workspace/gallery/g1' },
      ],
      topProducts: [{ id: 'p1', label: 'Oak Bed', metric: '1m 12s average view', path: '/workspace/product/p1' }],
      insights: [{ id: 'i1', title: 'Add a purchase link', message: 'Oak Bed gets views but has no purchase link.', path: '/workspace/product/p1' }],
    });
    renderRoutes(routes, ['/my-home']);
    expect(await screen.findByRole('link', { name: /Oak Bed.*Ready.*5 min ago/ })).toHaveAttribute('href', '/workspace/product/p1');
    expect(screen.getByRole('link', { name: /Lamp.*Processing/ })).toHaveAttribute('href', '/workspace/processing/j1');
    expect(screen.getByRole('link', { name: /Spring.*Needs attention/ })).toBeInTheDocument();
    expect(screen.getByText('1m 12s average view')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add a purchase link' })).toBeInTheDocument();
    expect(RETURNING_MESSAGES.some((m) => screen.queryByText(m))).toBe(true);
  });
});
