import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { DEFINITIONS, DRILLDOWN_TEXT } from '../../entities/analytics/analytics-rules';

afterEach(() => vi.unstubAllGlobals());

const steps = [
  { key: 'Viewed', value: 150, color: '#2E5BBA' },
  { key: 'Interacted', value: 105 },
  { key: 'Engaged', value: 60 },
  { key: 'High-Intent', value: 30 },
  { key: 'ATC', value: 3 },
];

function server(payload: unknown) {
  return stubFetch({
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha', lastName: 'Rao' }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 50 }),
    'GET /api/analytics': () => payload,
  });
}

describe('AnalyticsPage', () => {
  it('basic plan: primary KPIs, locked secondary KPIs, drill-down text, clamped ladder', async () => {
    signIn();
    const { calls } = server({
      plan: 'basic',
      capabilities: { filters: ['dateRange', 'sku'], kpis_primary: [], kpis_secondary: [], drilldowns: false, export: false },
      kpis: { shoppers: 150, engaged: 60, opportunities: 40, adds_from_3d: 3 },
      charts: { progress_ladder: { steps }, snapshot: { topRegions: [], topFeaturesAdding: [] } },
    });
    renderRoutes(routes, ['/workspace/analytics?range=30d']);
    expect(await screen.findByRole('heading', { name: 'Business Overview' })).toBeInTheDocument();
    const shoppers = await screen.findByText('Shoppers', { selector: '.analytics__kpi-label' });
    expect(within(shoppers.parentElement as HTMLElement).getByText('150')).toBeInTheDocument();
    expect(screen.getAllByRole('img', { name: 'Locked: Pro plan' }).length).toBeGreaterThanOrEqual(4);
    expect(screen.getAllByText(DRILLDOWN_TEXT, { exact: false }).length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' })).toHaveAttribute('href', '/workspace/subscription');
    expect(screen.queryByRole('button', { name: 'Breakdowns' })).not.toBeInTheDocument();
    // The chart (visx, loaded on first use): bar lengths clamped to 30–100 %, rates with one decimal.
    expect(await screen.findByRole('img', { name: 'Progress Ladder: shoppers at each step' })).toBeInTheDocument();
    await waitFor(() => expect(document.querySelector('[data-bar="ATC"] rect')).toHaveAttribute('data-pct', '30.0'));
    expect(document.querySelector('[data-bar="Viewed"] rect')).toHaveAttribute('data-pct', '100.0');
    expect(document.querySelector('[data-bar="Interacted"] rect')).toHaveAttribute('data-pct', '70.0');
    expect(screen.getByText('3 · 2.0%')).toBeInTheDocument();
    // Its table view: the same numbers, with the definitions in the info tooltips.
    const ladder = screen.getByRole('region', { name: 'Progress Ladder' });
    fireEvent.click(within(ladder).getByRole('button', { name: 'Show as table' }));
    const rows = within(within(ladder).getByRole('table')).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toContain('ATC 32.0%');
    expect(within(ladder).getByRole('img', { name: DEFINITIONS.ATC })).toHaveAttribute('title', 'ATC: clicked a buy link.');
    expect(within(ladder).queryByRole('img', { name: /Progress Ladder/ })).not.toBeInTheDocument();
    expect(screen.getByText(/Regions come from the shopper’s browser time zone/)).toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/analytics?range=30d')).toBe(true);
  });

  it('premium: secondary KPIs (dash under 100 shoppers), filters and breakdowns', async () => {
    signIn();
    server({
      plan: 'premium',
      regionSource: 'proxy-header',
      capabilities: { filters: ['dateRange', 'sku', 'device', 'source', 'region'], kpis_primary: [], kpis_secondary: [], drilldowns: true, export: true },
      kpis: {
        shoppers: 80,
        engaged: 20,
        opportunities: 10,
        adds_from_3d: 5,
        engagement_uplift: null,
        adds_per_engaged: null,
        best_variant_uplift: { option: 'v2', productId: 'p1', label: 'Terracotta · Ceramic vase', pp: 4.2, reliable: false },
        geo_opportunity_index: { region: 'DE', value: 400 },
      },
      charts: { progress_ladder: { steps }, snapshot: { topRegions: [{ region: 'IN', engagedPer1k: 500 }], topFeaturesAdding: [] } },
    });
    renderRoutes(routes, ['/workspace/analytics']);
    expect(await screen.findByRole('button', { name: 'Breakdowns' })).toBeInTheDocument();
    expect(screen.getByLabelText(/Device/)).toBeInTheDocument();
    expect(screen.getByText('Terracotta · Ceramic vase +4.2 pp')).toBeInTheDocument();
    expect(screen.getByText('DE · 400.0 engaged per 1,000')).toBeInTheDocument();
    const uplift = screen.getByText('Engagement uplift', { selector: '.analytics__kpi-label' }).parentElement as HTMLElement;
    expect(within(uplift).getByText('—')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
    // Where regions come from, next to Top Regions and in the region filter's tooltip.
    const note = 'Regions come from the country header of a trusted proxy/CDN.';
    expect(screen.getByText(note)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: `Region of the shopper. ${note}` })).toBeInTheDocument();
    // Top Regions as a chart, and as a table.
    expect(await screen.findByRole('img', { name: 'Top Regions: engaged shoppers per 1,000' })).toBeInTheDocument();
    const snapshot = screen.getByRole('region', { name: 'Snapshot' });
    fireEvent.click(within(snapshot).getByRole('button', { name: 'Show as table' }));
    expect(within(snapshot).getByRole('row', { name: /IN 500\.0/ })).toBeInTheDocument();
  });
});
