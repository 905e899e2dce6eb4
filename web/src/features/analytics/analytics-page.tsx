import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useListProductsQuery } from '../../entities/product/products-api';
import { DEFAULT_QUERY } from '../../components/list/list-rules';
import {
  exportURL,
  useGetAnalyticsQuery,
  useGetBreakdownsQuery,
  type AnalyticsPayload,
  type AnalyticsQuery,
  type Breakdown,
  type Definitions,
  type MetricDefinition,
} from '../../entities/analytics/analytics-api';
import '../../entities/analytics/analytics.css';
import { definitionText, MetricInfo } from '../../entities/analytics/metric-info';
import { IconChart, IconInfo, IconLock } from '../../components/icons';
import { EmptyState } from '../../components/empty-state';
import { downloadFile } from '../../lib/download';
import type { BarRow } from './analytics-charts';
import {
  barWidth,
  count,
  DRILLDOWN_TEXT,
  featureLabel,
  isDate,
  MIN_SHOPPERS,
  per1kText,
  percent,
  pp,
  RANGES,
  rangeFromQuery,
  geoValue,
  regionLabel,
  regionSourceText,
  secondaryText,
  type RangeKey,
  variantText,
} from '../../entities/analytics/analytics-rules';

/** The charting library (visx) loads with the first chart, on this route only. */
const BarChart = lazy(() => import('./analytics-charts'));

/** A plain info mark for a note that is not a metric (where regions come from). */
function Note({ text }: { text: string }) {
  return (
    <span className="analytics__info" title={text} aria-label={text} role="img">
      <IconInfo size={14} />
    </span>
  );
}

function Lock() {
  return (
    <span className="analytics__lock" role="img" aria-label="Locked: Pro plan">
      <IconLock size={14} />
    </span>
  );
}

/** /workspace/analytics: Business Overview from the merchant's real shoppers. */
export default function AnalyticsPage() {
  const [search, setSearch] = useSearchParams();
  const range = rangeFromQuery(search);
  const query: AnalyticsQuery = useMemo(() => {
    const q: AnalyticsQuery = {};
    if (range === 'custom') {
      if (isDate(search.get('from')) && isDate(search.get('to'))) {
        q.from = search.get('from') ?? '';
        q.to = search.get('to') ?? '';
      } else q.range = '7d';
    } else q.range = range;
    for (const k of ['sku', 'device', 'source', 'region'] as const) {
      const v = search.get(k);
      if (v) q[k] = v;
    }
    return q;
  }, [range, search]);
  const { data, error, isLoading } = useGetAnalyticsQuery(query);
  // The SKU filter offers the products shoppers can see: live ones, not drafts.
  const products = useListProductsQuery({ ...DEFAULT_QUERY, status: ['live'], sort: 'name', pageSize: 50 });
  const premium = data?.plan === 'premium';
  const [drawer, setDrawer] = useState(false);
  const [snapshot, setSnapshot] = useState<'regions' | 'features'>('regions');
  const [ladderTable, setLadderTable] = useState(false);
  const [snapshotTable, setSnapshotTable] = useState(false);
  const breakdowns = useGetBreakdownsQuery(query, { skip: !premium || !drawer });

  const set = (k: string, v: string) => {
    const next = new URLSearchParams(search);
    if (v) next.set(k, v);
    else next.delete(k);
    setSearch(next, { replace: true });
  };
  const setRange = (r: RangeKey) => {
    const next = new URLSearchParams(search);
    next.set('range', r);
    if (r !== 'custom') {
      next.delete('from');
      next.delete('to');
    }
    setSearch(next, { replace: true });
  };

  const k = data?.kpis;
  const defs: Definitions = data?.definitions ?? {};
  const steps = data?.charts.progress_ladder.steps ?? [];
  const first = steps[0]?.value ?? 0;
  const shoppers = k?.shoppers ?? 0;
  const snap = snapshotView(snapshot, data, defs);
  const unit = (key: string) => defs[key]?.unit ?? '';
  const label = (key: string, fallback: string) => defs[key]?.label ?? fallback;

  return (
    <div className="page analytics">
      <header className="page__header">
        <div>
          <h1 className="page__title">Business Overview</h1>
          <p className="page__subtitle">What shoppers did with your 3D product pages.</p>
        </div>
        {premium && (
          <div className="page__actions">
            <ExportButton url={exportURL(query)} />
            <button type="button" className="btn btn--secondary" onClick={() => setDrawer(true)}>
              Breakdowns
            </button>
          </div>
        )}
      </header>

      <section className="analytics__filters card" aria-label="Filters">
        <label>
          Date range{' '}
          <select value={range} onChange={(e) => setRange(e.target.value as RangeKey)}>
            {RANGES.map((r) => (
              <option key={r.key} value={r.key}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        {range === 'custom' && (
          <>
            <label>
              From <input type="date" value={search.get('from') ?? ''} onChange={(e) => set('from', e.target.value)} />
            </label>
            <label>
              To <input type="date" value={search.get('to') ?? ''} onChange={(e) => set('to', e.target.value)} />
            </label>
          </>
        )}
        <label>
          SKU{' '}
          <select value={search.get('sku') ?? ''} onChange={(e) => set('sku', e.target.value)}>
            <option value="">All products</option>
            {(products.data?.items ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        {premium ? (
          <>
            <label>
              Device{' '}
              <select value={search.get('device') ?? ''} onChange={(e) => set('device', e.target.value)}>
                <option value="">All devices</option>
                <option value="mobile">Mobile</option>
                <option value="tablet">Tablet</option>
                <option value="desktop">Desktop</option>
              </select>
            </label>
            <label>
              Source <input value={search.get('source') ?? ''} maxLength={64} placeholder="e.g. instagram.com" onChange={(e) => set('source', e.target.value)} />
            </label>
            <label>
              <span>
                Region <Note text={`Region of the shopper. ${regionSourceText(data?.regionSource)}`} />
              </span>
              <input value={search.get('region') ?? ''} maxLength={2} placeholder="e.g. IN" onChange={(e) => set('region', e.target.value.toUpperCase())} />
            </label>
          </>
        ) : (
          data && (
            <span className="analytics__locked-filters">
              <Lock /> Device, source and region filters are part of the Pro plan.
            </span>
          )
        )}
      </section>

      {isLoading && <p role="status">Loading analytics…</p>}
      {error && <p role="alert">{'message' in error && error.message ? error.message : 'Analytics could not be loaded.'}</p>}

      {k && (
        <>
          <section className="analytics__kpis" aria-label="Key figures">
            <Kpi name="shoppers" def={defs.shoppers} label={label('shoppers', 'Shoppers')} value={String(k.shoppers)} unit={unit('shoppers')} />
            <Kpi
              name="engaged"
              def={defs.engaged}
              label={label('engaged', 'Engaged')}
              value={String(k.engaged)}
              unit={unit('engaged')}
              sub={`${percent(k.engaged, shoppers)} of shoppers`}
            />
            <Kpi
              name="opportunities"
              def={defs.opportunities}
              label={label('opportunities', 'Engaged, not added')}
              value={String(k.opportunities)}
              unit={unit('opportunities')}
            />
            <Kpi name="adds_from_3d" def={defs.adds_from_3d} label={label('adds_from_3d', 'Adds from 3D')} value={String(k.adds_from_3d)} unit={unit('adds_from_3d')} />
            <Kpi
              name="engagement_uplift"
              def={defs.engagement_uplift}
              label={label('engagement_uplift', 'Engagement uplift')}
              locked={!premium}
              value={secondaryText(shoppers, k.engagement_uplift, pp)}
            />
            <Kpi
              name="adds_per_engaged"
              def={defs.adds_per_engaged}
              label={label('adds_per_engaged', 'Adds per engaged')}
              locked={!premium}
              value={secondaryText(shoppers, k.adds_per_engaged, (v) => `${v.toFixed(1)}%`)}
              sub={premium && shoppers >= MIN_SHOPPERS && k.adds_per_engaged != null ? 'of engaged shoppers' : undefined}
            />
            <Kpi
              name="best_variant_uplift"
              def={defs.best_variant_uplift}
              label={label('best_variant_uplift', 'Best variant uplift')}
              locked={!premium}
              value={variantText(k.best_variant_uplift)}
              sub={k.best_variant_uplift && !k.best_variant_uplift.reliable ? 'Not yet reliable (< 100 shoppers)' : undefined}
            />
            <Kpi
              name="geo_opportunity_index"
              def={defs.geo_opportunity_index}
              label={label('geo_opportunity_index', 'Geo opportunity')}
              locked={!premium}
              value={geoValue(k.geo_opportunity_index)}
              unit={k.geo_opportunity_index ? unit('geo_opportunity_index') : undefined}
            />
          </section>

          <section className="analytics__ladder card" aria-labelledby="ladder-title">
            <div className="analytics__section-head">
              <h2 id="ladder-title">Progress Ladder</h2>
              <TableToggle table={ladderTable} onToggle={() => setLadderTable((v) => !v)} />
            </div>
            <p className="analytics__note">Each step counts the shoppers of the step above it who went further.</p>
            {ladderTable ? (
              <table>
                <thead>
                  <tr>
                    <th>Step</th>
                    <th>Shoppers</th>
                    <th>Of viewed</th>
                  </tr>
                </thead>
                <tbody>
                  {steps.map((s) => (
                    <tr key={s.key} data-step={s.key}>
                      <td>
                        {s.key} <MetricInfo definition={defs[s.key]} label={s.key} />
                      </td>
                      <td>{s.value}</td>
                      <td>{percent(s.value, first)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <>
                <Chart
                  title="Progress Ladder: shoppers at each step"
                  rows={steps.map((s) => ({
                    key: s.key,
                    label: s.key,
                    pct: barWidth(s.value, first),
                    text: `${count(s.value, 'shoppers')} · ${percent(s.value, first)}`,
                    help: helpOf(defs[s.key]),
                    color: s.color,
                  }))}
                />
                <Legend keys={steps.map((s) => s.key)} defs={defs} />
              </>
            )}
            {!premium && (
              <p className="analytics__upgrade">
                <Lock /> {DRILLDOWN_TEXT} <Link to="/workspace/subscription">Upgrade to Pro</Link>
              </p>
            )}
          </section>

          <section className="analytics__snapshot card" aria-labelledby="snapshot-title">
            <div className="analytics__section-head">
              <h2 id="snapshot-title">Snapshot</h2>
              <div className="tabs analytics__tabs" role="tablist" aria-label="Snapshot">
                <button type="button" role="tab" aria-selected={snapshot === 'regions'} onClick={() => setSnapshot('regions')}>
                  Top Regions
                </button>
                <button type="button" role="tab" aria-selected={snapshot === 'features'} onClick={() => setSnapshot('features')}>
                  Top Features
                </button>
              </div>
              {premium && <TableToggle table={snapshotTable} onToggle={() => setSnapshotTable((v) => !v)} />}
            </div>
            <p className="analytics__note" data-snapshot-caption={snapshot}>
              {snap.caption} <MetricInfo definition={defs[snap.info]} />
            </p>
            {snapshot === 'regions' && (
              <p className="analytics__region-source" data-region-source={data.regionSource ?? 'time-zone'}>
                {regionSourceText(data.regionSource)}
              </p>
            )}
            {!premium ? (
              <p>
                <Lock /> {DRILLDOWN_TEXT}
              </p>
            ) : snapshotTable ? (
              <table>
                <thead>
                  <tr>
                    <th>{snap.head[0]}</th>
                    <th>{snap.head[1]}</th>
                  </tr>
                </thead>
                <tbody>
                  {snap.rows.map((r) => (
                    <tr key={r.key} data-row={r.key}>
                      <td>{r.label}</td>
                      <td>{r.text}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Chart title={snap.title} rows={snap.rows} />
            )}
          </section>
        </>
      )}

      {drawer && premium && (
        <aside className="analytics__drawer card" role="dialog" aria-label="Breakdowns">
          <div className="analytics__section-head">
            <h2>Breakdowns</h2>
            <button type="button" className="btn btn--secondary" onClick={() => setDrawer(false)}>
              Close
            </button>
          </div>
          {(['platform', 'device', 'source', 'region'] as const).map((dim) => (
            <BreakdownTable key={dim} dim={dim} defs={defs} rows={(breakdowns.data ?? []).filter((b) => b.dimension === dim)} />
          ))}
        </aside>
      )}
    </div>
  );
}

/** A bar's tooltip words from its definition. */
function helpOf(d: MetricDefinition | undefined): string | undefined {
  return d ? definitionText(d) : undefined;
}

/** The Snapshot tab's chart rows, title, caption (what the numbers are, with their unit) and table headings. */
function snapshotView(tab: 'regions' | 'features', data: AnalyticsPayload | undefined, defs: Definitions) {
  if (tab === 'regions') {
    return {
      title: 'Top Regions: engaged shoppers per 1,000 shoppers',
      caption: 'Engaged shoppers per 1,000 shoppers of each region.',
      head: ['Region', 'Engaged per 1,000 shoppers'],
      info: 'topRegions',
      rows: (data?.charts.snapshot.topRegions ?? []).map(
        (r): BarRow => ({ key: r.region, label: regionLabel(r.region), pct: r.engagedPer1k / 10, text: per1kText(r.engagedPer1k), help: helpOf(defs.topRegions) }),
      ),
    };
  }
  return {
    title: 'Top Features: share of the feature uses before an add (adds up to 100%)',
    caption: 'Share of the feature uses before an add from 3D; the rows add up to 100%.',
    head: ['Feature used before adding', 'Share of feature uses'],
    info: 'topFeaturesAdding',
    rows: (data?.charts.snapshot.topFeaturesAdding ?? []).map(
      (f): BarRow => ({ key: f.feature, label: featureLabel(f.feature, f.label), pct: f.share, text: `${f.share.toFixed(1)}%`, help: helpOf(defs.topFeaturesAdding) }),
    ),
  };
}

/** The ladder's steps with their definitions, reachable by keyboard (the chart itself is one image). */
function Legend({ keys, defs }: { keys: string[]; defs: Definitions }) {
  if (!keys.length) return null;
  return (
    <ul className="analytics__legend" aria-label="Progress Ladder steps">
      {keys.map((key) => (
        <li key={key}>
          {defs[key]?.label ?? key} <MetricInfo definition={defs[key]} label={key} />
        </li>
      ))}
    </ul>
  );
}

/** "Show as table" / "Show chart": every chart has an accessible table view. */
function TableToggle({ table, onToggle }: { table: boolean; onToggle: () => void }) {
  return (
    <button type="button" className="btn btn--link" onClick={onToggle}>
      {table ? 'Show chart' : 'Show as table'}
    </button>
  );
}

function Chart({ title, rows }: { title: string; rows: BarRow[] }): ReactNode {
  if (rows.length === 0)
    return (
      <EmptyState variant="inline" testId="chart-empty" icon={<IconChart />} title="No data in this range yet" text="Shoppers' views, AR launches and clicks on your published pages appear here.">
        <Link to="/workspace/products" className="btn btn--secondary btn--sm">
          Share a product
        </Link>
      </EmptyState>
    );
  return (
    <Suspense fallback={<p role="status">Loading chart…</p>}>
      <BarChart title={title} rows={rows} />
    </Suspense>
  );
}

function Kpi({
  name,
  label,
  value,
  unit,
  sub,
  locked,
  def,
}: {
  name: string;
  label: string;
  value: string;
  unit?: string;
  sub?: string;
  locked?: boolean;
  def?: MetricDefinition;
}) {
  return (
    <div className="analytics__kpi card" data-kpi={name}>
      <div className="analytics__kpi-label">
        {label} <MetricInfo definition={def} label={label} /> {locked && <Lock />}
      </div>
      <div className="analytics__kpi-figure">
        <span className="analytics__kpi-value">{locked ? '—' : value}</span>
        {unit && !locked && <span className="analytics__kpi-unit"> {unit}</span>}
      </div>
      {sub && !locked && <div className="analytics__kpi-sub">{sub}</div>}
    </div>
  );
}

const DIM_TITLES: Record<Breakdown['dimension'], string> = {
  platform: 'Store-attributed funnel (view → interacted → AR → click)',
  device: 'By device',
  source: 'By source',
  region: 'By region',
};

function BreakdownTable({ dim, rows, defs }: { dim: Breakdown['dimension']; rows: Breakdown[]; defs: Definitions }) {
  return (
    <table>
      <caption>
        {DIM_TITLES[dim]} {dim === 'platform' && <MetricInfo definition={defs.storeFunnel} />}
      </caption>
      <thead>
        <tr>
          <th>{dim === 'platform' ? 'Store' : dim[0].toUpperCase() + dim.slice(1)}</th>
          <th>
            Viewed <MetricInfo definition={defs.Viewed} />
          </th>
          <th>
            Interacted <MetricInfo definition={defs.Interacted} />
          </th>
          <th>
            AR <MetricInfo definition={defs.ar} />
          </th>
          <th>
            Clicked <MetricInfo definition={defs.clicked} />
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={5}>No shoppers yet.</td>
          </tr>
        ) : (
          rows.map((b) => (
            <tr key={b.value}>
              <td>{dim === 'region' ? regionLabel(b.value) : b.value}</td>
              <td>{b.shoppers}</td>
              <td>{b.interacted}</td>
              <td>{b.ar}</td>
              <td>{b.clicked}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

/**
 * Export CSV through the app's one download path: a plain link cannot send the bearer
 * token (the browser would show "canceled" on the 401), so the file is fetched and saved.
 */
function ExportButton({ url }: { url: string }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  async function onExport() {
    setBusy(true);
    setProblem(null);
    try {
      await downloadFile(url, 'analytics.csv', 'text/csv');
    } catch (e) {
      setProblem(e instanceof Error ? e.message : 'The export could not be downloaded.');
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" className="btn btn--secondary" onClick={onExport} disabled={busy}>
        {busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {problem && (
        <span role="alert" className="field__error">
          {problem}
        </span>
      )}
    </>
  );
}
