import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { DRILLDOWN_TEXT } from '../../entities/analytics/analytics-rules';
import type { Definitions } from '../../entities/analytics/analytics-api';

afterEach(() => vi.unstubAllGlobals());

const steps = [
  { key: 'Viewed', value: 150, color: '#2E5BBA' },
  { key: 'Interacted', value: 105 },
  { key: 'Engaged', value: 60 },
  { key: 'High-Intent', value: 30 },
  { key: 'ATC', value: 3 },
];

/** A few of the server's definitions (internal/analytics/definitions.go serves them all). */
const definitions: Definitions = {
  shoppers: { label: 'Shoppers', definition: 'Distinct shoppers who opened a 3D page.', unit: 'shoppers' },
  engaged: { label: 'Engaged', definition: 'Interacted shoppers who stayed 10 s or more.', unit: 'shoppers' },
  opportunities: { label: 'Engaged, not added', definition: 'Engaged shoppers who did not click a buy link.', unit: 'shoppers' },
  adds_from_3d: { label: 'Adds from 3D', definition: 'Engaged shoppers who clicked a buy link. The ladder’s ATC step.', unit: 'shoppers' },
  adds_per_engaged: { label: 'Adds per engaged', definition: 'Adds from 3D as a share of engaged shoppers.', unit: '%' },
  engagement_uplift: { label: 'Engagement uplift', definition: 'Click rate of engaged minus the others.', unit: 'pp' },
  geo_opportunity_index: { label: 'Geo opportunity', definition: 'The region below the average click rate with the most engaged.', unit: 'engaged per 1,000 shoppers' },
  ATC: { label: 'ATC', definition: 'Engaged shoppers who clicked a buy link (add to cart).', unit: 'shoppers' },
  Interacted: { label: 'Interacted', definition: 'Shoppers who did something with the model.', unit: 'shoppers' },
  topRegions: { label: 'Top Regions', definition: 'Engaged shoppers per 1,000 shoppers from each region.', unit: 'engaged per 1,000 shoppers' },
  topFeaturesAdding: { label: 'Top Features', definition: 'Each row is that feature’s share of all those uses.', unit: '% of feature uses' },
};

function server(payload: unknown) {
  return stubFetch({
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha', lastName: 'Rao' }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/products': () => ({ items: [], total: 0, page: 1, pageSize: 50 }),
    'GET /api/analytics': () => payload,
  });
}

function kpi(name: string) {
  return document.querySelector(`[data-kpi="${name}"]`) as HTMLElement;
}

describe('AnalyticsPage', () => {
  it('basic plan: primary KPIs with their units, locked secondary KPIs, drill-down text, clamped ladder', async () => {
    signIn();
    const { calls } = server({
      plan: 'basic',
      capabilities: { filters: ['dateRange', 'sku'], kpis_primary: [], kpis_secondary: [], drilldowns: false, export: false },
      kpis: { shoppers: 150, engaged: 60, opportunities: 57, adds_from_3d: 3 },
      charts: { progress_ladder: { steps }, snapshot: { topRegions: [], topFeaturesAdding: [] } },
      definitions,
    });
    renderRoutes(routes, ['/workspace/analytics?range=30d']);
    expect(await screen.findByRole('heading', { name: 'Business Overview' })).toBeInTheDocument();
    await screen.findByText('Shoppers', { selector: '.analytics__kpi-label' });
    expect(within(kpi('shoppers')).getByText('150')).toHaveClass('analytics__kpi-value');
    expect(kpi('shoppers').querySelector('.analytics__kpi-unit')).toHaveTextContent('shoppers');
    expect(kpi('engaged')).toHaveTextContent('40.0% of shoppers');
    // The server's labels: plain words, not "Opportunities".
    expect(within(kpi('opportunities')).getByText('Engaged, not added', { exact: false })).toBeInTheDocument();
    expect(screen.queryByText(/^Opportunities/)).not.toBeInTheDocument();
    expect(screen.getAllByRole('img', { name: 'Locked: Pro plan' }).length).toBeGreaterThanOrEqual(4);
    expect(screen.getAllByText(DRILLDOWN_TEXT, { exact: false }).length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' })).toHaveAttribute('href', '/workspace/subscription');
    expect(screen.queryByRole('button', { name: 'Breakdowns' })).not.toBeInTheDocument();
    // The chart (visx, loaded on first use): bar lengths clamped to 30–100 %, rates with one decimal, counts with their unit.
    expect(await screen.findByRole('img', { name: 'Progress Ladder: shoppers at each step' })).toBeInTheDocument();
    await waitFor(() => expect(document.querySelector('[data-bar="ATC"] rect')).toHaveAttribute('data-pct', '30.0'));
    expect(document.querySelector('[data-bar="Viewed"] rect')).toHaveAttribute('data-pct', '100.0');
    expect(document.querySelector('[data-bar="Interacted"] rect')).toHaveAttribute('data-pct', '70.0');
    expect(screen.getByText('3 shoppers · 2.0%')).toBeInTheDocument();
    expect(document.querySelector('[data-bar="ATC"] title')).toHaveTextContent('ATC: 3 shoppers · 2.0%. Engaged shoppers who clicked a buy link (add to cart). Unit: shoppers.');
    // Its table view: the same numbers, each step with its definition.
    const ladder = screen.getByRole('region', { name: 'Progress Ladder' });
    fireEvent.click(within(ladder).getByRole('button', { name: 'Show as table' }));
    const atc = within(ladder).getByRole('row', { name: /^ATC/ });
    expect(within(atc).getAllByRole('cell').map((c) => c.firstChild?.textContent?.trim())).toEqual(['ATC', '3', '2.0%']);
    expect(within(ladder).getByRole('button', { name: 'What ATC means' })).toHaveAccessibleDescription(
      'Engaged shoppers who clicked a buy link (add to cart). Unit: shoppers.',
    );
    expect(screen.getByText(/Regions come from the shopper’s browser time zone/)).toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/analytics?range=30d')).toBe(true);
  });

  it('every KPI shows its definition on hover and on keyboard focus; Escape closes it', async () => {
    signIn();
    server({
      plan: 'basic',
      capabilities: { filters: ['dateRange', 'sku'], kpis_primary: [], kpis_secondary: [], drilldowns: false, export: false },
      kpis: { shoppers: 150, engaged: 60, opportunities: 57, adds_from_3d: 3 },
      charts: { progress_ladder: { steps }, snapshot: { topRegions: [], topFeaturesAdding: [] } },
      definitions,
    });
    renderRoutes(routes, ['/workspace/analytics']);
    const button = await screen.findByRole('button', { name: 'What Adds from 3D means' });
    const tip = document.getElementById(button.getAttribute('aria-describedby') ?? '') as HTMLElement;
    expect(tip).toHaveAttribute('role', 'tooltip');
    expect(tip).not.toBeVisible();
    fireEvent.mouseEnter(button.parentElement as HTMLElement);
    expect(screen.getByRole('tooltip')).toHaveTextContent('Engaged shoppers who clicked a buy link. The ladder’s ATC step. Unit: shoppers.');
    fireEvent.mouseLeave(button.parentElement as HTMLElement);
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    fireEvent.focus(button);
    expect(screen.getByRole('tooltip')).toBeVisible();
    fireEvent.keyDown(button, { key: 'Escape' });
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    // Every primary KPI and every ladder step has one (the chart has a legend of the steps).
    for (const name of ['Shoppers', 'Engaged', 'Engaged, not added', 'Adds from 3D']) {
      expect(screen.getByRole('button', { name: `What ${name} means` })).toHaveAccessibleDescription(/Unit: shoppers\.$/);
    }
    const legend = await screen.findByRole('list', { name: 'Progress Ladder steps' });
    expect(within(legend).getByRole('button', { name: 'What Interacted means' })).toBeInTheDocument();
  });

  it('premium: secondary KPIs (dash under 100 shoppers), filters, units on regions, features that add up to 100%', async () => {
    signIn();
    server({
      plan: 'premium',
      regionSource: 'proxy-header',
      capabilities: { filters: ['dateRange', 'sku', 'device', 'source', 'region'], kpis_primary: [], kpis_secondary: [], drilldowns: true, export: true },
      kpis: {
        shoppers: 80,
        engaged: 20,
        opportunities: 15,
        adds_from_3d: 5,
        engagement_uplift: null,
        adds_per_engaged: null,
        best_variant_uplift: { option: 'v2', productId: 'p1', label: 'Terracotta · Ceramic vase', pp: 4.2, reliable: false },
        geo_opportunity_index: { region: 'DE', value: 400 },
      },
      charts: {
        progress_ladder: { steps },
        snapshot: {
          topRegions: [{ region: 'ZZ', engagedPer1k: 428.6 }],
          topFeaturesAdding: [
            { feature: 'zoom', share: 50 },
            { feature: 'hotspot:h1', share: 30, label: 'Hotspot: Seat' },
            { feature: 'other', share: 20 },
          ],
        },
      },
      definitions,
    });
    renderRoutes(routes, ['/workspace/analytics']);
    expect(await screen.findByRole('button', { name: 'Breakdowns' })).toBeInTheDocument();
    expect(screen.getByLabelText(/Device/)).toBeInTheDocument();
    expect(screen.getByText('Terracotta · Ceramic vase +4.2 pp')).toBeInTheDocument();
    expect(kpi('geo_opportunity_index')).toHaveTextContent('DE · 400.0 engaged per 1,000 shoppers');
    expect(within(kpi('engagement_uplift')).getByText('—')).toBeInTheDocument();
    expect(within(kpi('adds_per_engaged')).getByText('—')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
    // Where regions come from, next to Top Regions and in the region filter's tooltip.
    const note = 'Regions come from the country header of a trusted proxy/CDN.';
    expect(screen.getByText(note)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: `Region of the shopper. ${note}` })).toBeInTheDocument();
    // Top Regions: the value carries its unit, in the chart and in the table.
    expect(await screen.findByRole('img', { name: 'Top Regions: engaged shoppers per 1,000 shoppers' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('428.6 engaged per 1,000')).toBeInTheDocument());
    const snapshot = screen.getByRole('region', { name: 'Snapshot' });
    expect(within(snapshot).getByRole('button', { name: 'What Top Regions means' })).toHaveAccessibleDescription(/Unit: engaged per 1,000 shoppers\.$/);
    fireEvent.click(within(snapshot).getByRole('button', { name: 'Show as table' }));
    expect(within(snapshot).getByRole('row', { name: 'Unknown region 428.6 engaged per 1,000' })).toBeInTheDocument();
    // Top Features: shares of feature uses, labelled so, adding up to 100 %.
    fireEvent.click(within(snapshot).getByRole('tab', { name: 'Top Features' }));
    expect(within(snapshot).getByRole('columnheader', { name: 'Share of feature uses' })).toBeInTheDocument();
    expect(within(snapshot).getByText(/the rows add up to 100%/)).toBeInTheDocument();
    const shares = within(snapshot)
      .getAllByRole('row')
      .slice(1)
      .map((r) => [r.children[0].textContent, r.children[1].textContent]);
    expect(shares).toEqual([
      ['Zoom / orbit', '50.0%'],
      ['Hotspot: Seat', '30.0%'],
      ['Other features', '20.0%'],
    ]);
    expect(within(snapshot).getByRole('button', { name: 'What Top Features means' })).toHaveAccessibleDescription(/Unit: % of feature uses\.$/);
  });

  it('premium with 100+ shoppers: Adds per engaged is a percentage of engaged shoppers', async () => {
    signIn();
    server({
      plan: 'premium',
      capabilities: { filters: ['dateRange', 'sku', 'device', 'source', 'region'], kpis_primary: [], kpis_secondary: [], drilldowns: true, export: true },
      kpis: { shoppers: 150, engaged: 60, opportunities: 57, adds_from_3d: 3, engagement_uplift: 3.1, adds_per_engaged: 5 },
      charts: { progress_ladder: { steps }, snapshot: { topRegions: [], topFeaturesAdding: [] } },
      definitions,
    });
    renderRoutes(routes, ['/workspace/analytics']);
    await screen.findByRole('button', { name: 'Breakdowns' });
    expect(kpi('adds_per_engaged').querySelector('.analytics__kpi-value')).toHaveTextContent('5.0%');
    expect(kpi('adds_per_engaged')).toHaveTextContent('of engaged shoppers');
    expect(kpi('engagement_uplift').querySelector('.analytics__kpi-value')).toHaveTextContent('+3.1 pp');
  });
});
