import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect as baseExpect, test, type Page } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, blueprintFromPhoto, collectErrors, signUpAndSignIn, snap } from './helpers';

/*
 * Shopper analytics end to end (issue 14): a Pro merchant publishes a product with two variants, a
 * hotspot and two store links; the real shopper simulator (ops/shoppers, built by ops/test.sh) plays
 * 150 shoppers with a known mix through the product's public page, the beacon endpoint and the
 * buy-link redirect, each from its own address (the api trusts loopback's X-Forwarded-For in e2e),
 * and prints what the dashboard must show. The test waits until the SERVER reports those numbers
 * (the worker's rollup), then checks the Business Overview on Free (locks, premium texts, no
 * premium filters, the server refusing them), after the trial started with the page's button
 * (filters, secondary KPIs, the Breakdowns drawer with the store-attributed funnel), the product
 * page's tiles and the dashboard's Top Products. Every wait is on what the server reports.
 * Issue 50 item 7: the screen's numbers agree with each other (the ladder is a funnel, ATC is Adds
 * from 3D, Top Features add up to 100 %, every value has its unit and its definition on hover and
 * focus) and with the CSV downloaded from the page (product names, the id in its own column).
 */
test.setTimeout(600_000);
const expect = baseExpect.configure({ timeout: 30_000 });

const repo = fileURLToPath(new URL('../..', import.meta.url));
const SHOPPERS = 150;

interface Step {
  key: string;
  value: number;
}
interface Payload {
  plan: string;
  regionSource?: string;
  kpis: Record<string, unknown> & { shoppers: number; engaged: number; opportunities: number; adds_from_3d: number; engagement_uplift?: number | null; adds_per_engaged?: number | null };
  charts: {
    progress_ladder: { steps: Step[] };
    snapshot: { topRegions: { region: string; engagedPer1k: number }[]; topFeaturesAdding?: { feature: string; share: number; label?: string }[] };
  };
  definitions?: Record<string, { label: string; definition: string; unit: string }>;
}
interface Expected {
  payload: Payload;
  product: { shoppers: number; views: number; engagement: number; hotspotCtr: number; clicks: number };
  stores: Record<string, number>;
}

/** Runs the simulator (bin/shoppers from ops/test.sh, else `go run`) and returns its prediction. */
function simulate(pageURL: string): Expected {
  const bin = `${repo}bin/shoppers`;
  const args = ['simulate', '-url', pageURL, '-n', String(SHOPPERS), '-seed', '14', '-mobile', '0.4', '-interact', '0.7', '-long', '0.5',
    '-hotspot', '0.3', '-variant', '0.3', '-ar', '0.2', '-click', '0.35', '-zones', 'Asia/Kolkata,America/New_York,Europe/Berlin,Europe/London',
    '-sources', 'instagram,newsletter,', '-expect'];
  const out = existsSync(bin)
    ? execFileSync(bin, args, { cwd: repo, encoding: 'utf8', timeout: 240_000 })
    : execFileSync('go', ['run', './ops/shoppers', ...args], { cwd: repo, encoding: 'utf8', timeout: 400_000 });
  return JSON.parse(out) as Expected;
}

/** The payload less the names the server resolves from the products (the simulator predicts numbers, not names). */
function withoutLabels<T>(v: T): T {
  return JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'label' ? undefined : x))) as T;
}

function pp(v: number) {
  return `${v > 0 ? '+' : ''}${v.toFixed(1)} pp`;
}
function pct(n: number, d: number) {
  return d <= 0 ? '0.0%' : `${((n / d) * 100).toFixed(1)}%`;
}

async function kpi(page: Page, name: string) {
  return page.locator(`[data-kpi="${name}"] .analytics__kpi-value`);
}

/** The rendered text of a table's body rows (innerText: closed tooltips are left out). */
async function tableRows(table: ReturnType<Page['getByRole']>): Promise<string[][]> {
  const rows = table.locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  return rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td as HTMLElement).innerText.trim())));
}

/** The Progress Ladder through its table view: step, shoppers, share of viewed. */
async function ladderRows(page: Page): Promise<string[][]> {
  const ladder = page.getByRole('region', { name: 'Progress Ladder' });
  await ladder.getByRole('button', { name: 'Show as table' }).click();
  const out = await tableRows(ladder.getByRole('table'));
  await ladder.getByRole('button', { name: 'Show chart' }).click();
  return out;
}

/** A KPI card's number as shown. */
async function kpiNumber(page: Page, name: string): Promise<number> {
  return Number(((await (await kpi(page, name)).textContent()) ?? '').replace(/,/g, ''));
}

/** RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks). */
function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows;
}

/** What the payload's numbers promise about each other (issue 50 item 7). */
function expectPayloadAgrees(p: Payload) {
  const steps = p.charts.progress_ladder.steps;
  expect(steps.map((s) => s.key)).toEqual(['Viewed', 'Interacted', 'Engaged', 'High-Intent', 'ATC']);
  for (let i = 1; i < steps.length; i++) expect(steps[i].value, `${steps[i].key} ≤ ${steps[i - 1].key}`).toBeLessThanOrEqual(steps[i - 1].value);
  expect(steps[0].value).toBe(p.kpis.shoppers);
  expect(steps[2].value).toBe(p.kpis.engaged);
  expect(steps[4].value, 'ATC is Adds from 3D').toBe(p.kpis.adds_from_3d);
  expect(p.kpis.engaged).toBe(p.kpis.opportunities + p.kpis.adds_from_3d);
  const features = p.charts.snapshot.topFeaturesAdding ?? [];
  if (features.length) expect(Math.round(features.reduce((n, f) => n + f.share * 10, 0))).toBe(1000);
  for (const key of ['shoppers', 'engaged', 'opportunities', 'adds_from_3d', 'engagement_uplift', 'adds_per_engaged', 'Viewed', 'Interacted', 'Engaged', 'High-Intent', 'ATC', 'topRegions', 'topFeaturesAdding']) {
    const d = p.definitions?.[key];
    expect(d?.definition, key).toBeTruthy();
    expect(d?.unit, key).toBeTruthy();
  }
}

test('analytics: 150 simulated shoppers → exact KPIs and funnel; Free locks; trial unlocks filters and breakdowns; product tiles; Top Products', async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  const errors = collectErrors(page);
  const api = new Api(request);
  let productId = '';
  let slug = '';
  let expected!: Expected;
  let served!: Payload;

  await test.step('a Pro merchant publishes a product with two variants, a hotspot and two store links', async () => {
    api.token = await signUpAndSignIn(page, 'analytics');
    await api.call('post', '/api/subscription/plan', { plan: 'pro' });
    const blueprintId = await blueprintFromPhoto(api, request, productPhotoPNG(320, 400));
    const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Analytics Armchair', blueprintId });
    productId = product.id;
    await api.call('post', `/api/products/${productId}/variants`, { name: 'Black', material: 'matte-black' });
    await api.call('post', `/api/products/${productId}/hotspots`, { position: [0, 0.2, 0.1], normal: [0, 0, 1], title: 'Seat', text: 'Soft.' });
    await api.call('post', `/api/products/${productId}/links`, { url: 'https://www.amazon.com/dp/B0ANALYTIC' });
    await api.call('post', `/api/products/${productId}/links`, { url: 'https://www.etsy.com/listing/777/analytics-armchair' });
    slug = (await api.call<{ slug: string }>('post', `/api/products/${productId}/publish`, { requireEmail: false })).slug;
  });

  await test.step('the simulator plays 150 shoppers on the public page and predicts the numbers', async () => {
    expected = simulate(`${baseURL}/v/${slug}`);
    expect(expected.payload.kpis.shoppers).toBe(SHOPPERS);
    // The mix reached every behaviour the dashboard counts.
    const steps = Object.fromEntries(expected.payload.charts.progress_ladder.steps.map((s) => [s.key, s.value]));
    for (const k of ['Interacted', 'Engaged', 'High-Intent', 'ATC']) expect(steps[k], k).toBeGreaterThan(0);
    expect(expected.product.hotspotCtr).toBeGreaterThan(0);
    expect(Object.keys(expected.stores).sort()).toEqual(['Amazon', 'Etsy']);
  });

  await test.step('the server reports exactly the predicted payload once the worker rolled it up', async () => {
    await expect
      .poll(
        async () => {
          const p = await api.call<Payload>('get', '/api/analytics?range=7d');
          served = p;
          return { kpis: withoutLabels(p.kpis), charts: withoutLabels(p.charts) };
        },
        { timeout: 240_000, intervals: [1000, 2000, 5000] },
      )
      .toEqual({ kpis: expected.payload.kpis, charts: expected.payload.charts });
    expectPayloadAgrees(served);
    // Issue 29 item 11: what the merchant reads names the hotspot and the variant, never their ids.
    const features = (served.charts.snapshot as { topFeaturesAdding?: { feature: string; label?: string }[] }).topFeaturesAdding ?? [];
    const hotspot = features.find((f) => f.feature === 'hotspot:h1');
    expect(hotspot?.label).toBe('Hotspot: Seat');
    const best = served.kpis.best_variant_uplift as { option: string; label?: string } | null | undefined;
    if (best) expect(best.label).toMatch(/^(Default|Black) · Analytics Armchair$/);
  });

  const e = expected.payload.kpis;
  const steps = expected.payload.charts.progress_ladder.steps;

  await test.step('Free: exact primary KPIs and funnel, locks, the premium texts, no premium filters', async () => {
    await api.call('post', '/api/subscription/plan', { plan: 'free' });
    await page.goto('/workspace/analytics');
    await expect(page.getByRole('heading', { name: 'Business Overview' })).toBeVisible();
    await expect(await kpi(page, 'shoppers')).toHaveText(String(SHOPPERS));
    await expect(await kpi(page, 'engaged')).toHaveText(String(e.engaged));
    await expect(await kpi(page, 'opportunities')).toHaveText(String(e.opportunities));
    await expect(await kpi(page, 'adds_from_3d')).toHaveText(String(e.adds_from_3d));
    for (const name of ['engagement_uplift', 'adds_per_engaged', 'best_variant_uplift', 'geo_opportunity_index']) {
      await expect(page.locator(`[data-kpi="${name}"]`).getByRole('img', { name: 'Locked: Pro plan' })).toBeVisible();
      await expect(await kpi(page, name)).toHaveText('—');
    }
    expect(await ladderRows(page)).toEqual(steps.map((s) => [s.key, String(s.value), pct(s.value, steps[0].value)]));
    await expect(page.getByText('Device, source and region filters are part of the Pro plan.')).toBeVisible();
    await expect(page.getByText('Drill‑downs by device, source, and region are part of the Pro plan.').first()).toBeVisible();
    await expect(page.getByRole('link', { name: 'Upgrade to Pro' })).toBeVisible();
    await expect(page.getByLabel('Device')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Breakdowns' })).toHaveCount(0);
    await snap(page, 'analytics-01-free', testInfo);

    // Hidden is not enough: the server refuses premium filters and the drawer's data on Free.
    for (const path of ['/api/analytics?device=mobile', '/api/analytics?region=IN', '/api/analytics/breakdowns']) {
      const res = await request.get(path, { headers: { Authorization: `Bearer ${api.token}` } });
      expect(res.status(), path).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Drill‑downs by device, source, and region are part of the Pro plan.');
    }
  });

  await test.step('the trial (Start free trial on the subscription page) unlocks filters, secondary KPIs and Breakdowns', async () => {
    await page.goto('/workspace/subscription');
    const trial = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/api/subscription/trial'));
    await page.getByRole('article', { name: 'Pro', exact: true }).getByRole('button', { name: 'Start free trial' }).click();
    expect((await trial).ok()).toBe(true);
    await expect(page.getByRole('heading', { name: 'Pro Plan (Trial)', exact: true })).toBeVisible();

    await page.goto('/workspace/analytics');
    await expect(await kpi(page, 'shoppers')).toHaveText(String(SHOPPERS));
    await expect(page.getByRole('img', { name: 'Locked: Pro plan' })).toHaveCount(0);
    await expect(await kpi(page, 'engagement_uplift')).toHaveText(pp(e.engagement_uplift ?? 0));
    await expect(await kpi(page, 'adds_per_engaged')).toHaveText(`${(e.adds_per_engaged ?? 0).toFixed(1)}%`);
    await expect(page.getByLabel('Device')).toBeVisible();
    await expect(page.getByLabel('Source')).toBeVisible();
    await expect(page.getByRole('textbox', { name: /^Region/ })).toBeVisible();

    // The drawer: the store-attributed funnel lists the stores the shoppers clicked.
    await page.getByRole('button', { name: 'Breakdowns' }).click();
    const drawer = page.getByRole('dialog', { name: 'Breakdowns' });
    const stores = drawer.getByRole('table', { name: /Store-attributed funnel/ });
    for (const [store, clicked] of Object.entries(expected.stores)) {
      const row = stores.getByRole('row').filter({ has: page.getByRole('cell', { name: store, exact: true }) });
      await expect(row.getByRole('cell')).toHaveText([store, String(SHOPPERS), /\d+/, /\d+/, String(clicked)]);
    }
    await snap(page, 'analytics-02-trial-breakdowns', testInfo);
    await drawer.getByRole('button', { name: 'Close' }).click();

    // A premium filter now reaches the server and narrows the numbers.
    const filtered = page.waitForResponse((r) => r.url().includes('/api/analytics?') && r.url().includes('device=desktop'));
    await page.getByLabel('Device').selectOption('desktop');
    const res = await filtered;
    expect(res.status()).toBe(200);
    const desktop = ((await res.json()) as { data: Payload }).data.kpis.shoppers;
    expect(desktop).toBeGreaterThan(0);
    expect(desktop).toBeLessThan(SHOPPERS);
    await expect(await kpi(page, 'shoppers')).toHaveText(String(desktop));
  });

  await test.step("issue 50 item 7: the screen's numbers agree with each other, say their units and definitions, and match the CSV", async () => {
    await page.goto('/workspace/analytics');
    await expect(await kpi(page, 'shoppers')).toHaveText(String(SHOPPERS));
    const defs = served.definitions ?? {};
    // The KPI cards: numbers with their units.
    const shown = {
      shoppers: await kpiNumber(page, 'shoppers'),
      engaged: await kpiNumber(page, 'engaged'),
      opportunities: await kpiNumber(page, 'opportunities'),
      adds: await kpiNumber(page, 'adds_from_3d'),
    };
    for (const name of ['shoppers', 'engaged', 'opportunities', 'adds_from_3d']) {
      await expect(page.locator(`[data-kpi="${name}"] .analytics__kpi-unit`)).toHaveText('shoppers');
    }
    await expect(page.locator('[data-kpi="opportunities"] .analytics__kpi-label')).toContainText('Engaged, not added');
    expect(shown.engaged, 'Engaged = Engaged, not added + Adds from 3D').toBe(shown.opportunities + shown.adds);
    // The ladder is a funnel, and it is the same numbers as the cards.
    const ladder = await ladderRows(page);
    const step = Object.fromEntries(ladder.map(([k, v]) => [k, Number(v)]));
    expect(ladder.map((r) => r[0])).toEqual(['Viewed', 'Interacted', 'Engaged', 'High-Intent', 'ATC']);
    for (let i = 1; i < ladder.length; i++) expect(Number(ladder[i][1]), `${ladder[i][0]} ≤ ${ladder[i - 1][0]}`).toBeLessThanOrEqual(Number(ladder[i - 1][1]));
    expect(step.Viewed).toBe(shown.shoppers);
    expect(step.Engaged).toBe(shown.engaged);
    expect(step.ATC, 'ATC is Adds from 3D').toBe(shown.adds);
    await expect(await kpi(page, 'adds_per_engaged')).toHaveText(pct(step.ATC, step.Engaged));

    // Every number's definition on hover and on keyboard focus (the API's one table).
    const addsInfo = page.locator('[data-kpi="adds_from_3d"]').getByRole('button', { name: 'What Adds from 3D means' });
    await addsInfo.hover();
    await expect(page.getByRole('tooltip')).toHaveText(`${defs.adds_from_3d.definition} Unit: ${defs.adds_from_3d.unit}.`);
    await page.mouse.move(0, 0);
    await expect(page.getByRole('tooltip')).toHaveCount(0);
    const atcInfo = page.getByRole('list', { name: 'Progress Ladder steps' }).getByRole('button', { name: 'What ATC means' });
    await atcInfo.focus();
    await expect(page.getByRole('tooltip')).toHaveText(`${defs.ATC.definition} Unit: ${defs.ATC.unit}.`);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('tooltip')).toHaveCount(0);

    // Snapshot: Top Regions carry their unit; Top Features are shares of feature uses adding up to 100 %.
    const snapshot = page.getByRole('region', { name: 'Snapshot' });
    await snapshot.getByRole('button', { name: 'Show as table' }).click();
    const regions = await tableRows(snapshot.getByRole('table'));
    expect(regions.length).toBe(served.charts.snapshot.topRegions.length);
    for (const [, value] of regions) expect(value).toMatch(/^\d[\d,]*\.\d engaged per 1,000$/);
    await snapshot.getByRole('tab', { name: 'Top Features' }).click();
    await expect(snapshot.getByRole('columnheader', { name: 'Share of feature uses' })).toBeVisible();
    const features = await tableRows(snapshot.getByRole('table'));
    expect(features.map(([label]) => label)).toContain('Hotspot: Seat');
    expect(features.reduce((n, [, share]) => n + Math.round(parseFloat(share) * 10), 0), 'Top Features add up to 100.0 %').toBe(1000);
    await snap(page, 'analytics-04-definitions', testInfo);

    // The CSV from the page's Export CSV: the screen's numbers, the product by name, its id in its own column.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    const csv = parseCSV(readFileSync((await file.path())!, 'utf8'));
    expect(csv[0]).toEqual(['Product', 'Product ID', 'From', 'To', 'Shoppers', 'Interacted', 'Engaged', 'High-Intent', 'ATC (Adds from 3D)', 'Engaged, not added', 'Buy-link clicks', 'Approximate']);
    const screenRow = [shown.shoppers, step.Interacted, shown.engaged, step['High-Intent'], shown.adds, shown.opportunities].map(String);
    const all = csv.find((r) => r[0] === 'All products');
    const armchair = csv.find((r) => r[0] === 'Analytics Armchair');
    expect(all?.slice(4, 10), 'the CSV total is the screen').toEqual(screenRow);
    expect(armchair?.[1], 'the id in its own column').toBe(productId);
    expect(armchair?.slice(4, 10), 'one product: its row is the screen too').toEqual(screenRow);
    expect(csv.some((r) => r[0] === productId), 'no product listed by id').toBe(false);
    const clicks = Object.values(expected.stores).reduce((n, v) => n + v, 0);
    expect(all?.[10], 'every buy-link click the simulator made').toBe(String(clicks));
  });

  await test.step("the product page's tiles match the simulator", async () => {
    await page.goto(`/workspace/product/${productId}`);
    const tiles = page.getByRole('region', { name: 'Product metrics' });
    await expect(tiles.locator('[data-tile="engagement"] .analytics__kpi-value')).toHaveText(`${expected.product.engagement.toFixed(1)}%`);
    await expect(tiles.locator('[data-tile="hotspot"] .analytics__kpi-value')).toHaveText(`${expected.product.hotspotCtr.toFixed(1)}%`);
    await expect(tiles.locator('[data-tile="views"] .analytics__kpi-value')).toHaveText(String(expected.product.views));
    await snap(page, 'analytics-03-product-tiles', testInfo);
  });

  await test.step("the dashboard's Top Products lists it with its engagement", async () => {
    await page.goto('/my-home');
    const top = page.getByRole('region', { name: 'Top Products' });
    await expect(top.getByRole('link', { name: /Analytics Armchair/ })).toContainText(
      `${expected.product.engagement.toFixed(1)}% engaged · ${SHOPPERS} shoppers`,
    );
  });

  expect(errors).toEqual([]);
});
