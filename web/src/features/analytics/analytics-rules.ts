/** Pure rules of the Business Overview (spec §2, §5, §6, §9); the page only renders them. */

export type RangeKey = '7d' | '30d' | '90d' | 'custom';
export const RANGES: { key: RangeKey; label: string }[] = [
  { key: '7d', label: 'Last 7 days' },
  { key: '30d', label: 'Last 30 days' },
  { key: '90d', label: 'Last 90 days' },
  { key: 'custom', label: 'Custom' },
];
/** Secondary KPIs show a dash below this many shoppers (spec §5, §9). */
export const MIN_SHOPPERS = 100;

export const DRILLDOWN_TEXT = 'Drill‑downs by device, source, and region are a Premium feature.';

/** The query string's range: 7d, 30d or 90d, else the default 7d; custom when from and to are dates. */
export function rangeFromQuery(q: URLSearchParams): RangeKey {
  const r = q.get('range');
  if (r === '7d' || r === '30d' || r === '90d') return r;
  if (r === 'custom' || (isDate(q.get('from')) && isDate(q.get('to')))) return 'custom';
  return '7d';
}

export function isDate(s: string | null): boolean {
  return !!s && /^\d{4}-\d{2}-\d{2}$/.test(s);
}

/** Funnel bar width as a percentage of the first step, clamped to 30–100 % (spec §5). */
export function barWidth(value: number, first: number): number {
  if (first <= 0) return 30;
  return Math.min(100, Math.max(30, (value / first) * 100));
}

/** A rate as a percentage with one decimal (spec §5). */
export function percent(n: number, d: number): string {
  if (d <= 0) return '0.0%';
  return `${((n / d) * 100).toFixed(1)}%`;
}

/** A secondary KPI's text: a dash under MIN_SHOPPERS shoppers or when the server sent none. */
export function secondaryText(shoppers: number, value: number | null | undefined, format: (v: number) => string): string {
  if (shoppers < MIN_SHOPPERS || value === null || value === undefined) return '—';
  return format(value);
}

export function pp(v: number): string {
  return `${v > 0 ? '+' : ''}${v.toFixed(1)} pp`;
}

/** Definitions shown in the info tooltips (the same words as the README). */
export const DEFINITIONS: Record<string, string> = {
  shoppers: 'Distinct shoppers (browsers) with a counted view in the range.',
  engaged: 'Shoppers who interacted and kept the 3D view visible for at least 10 s, or opened a hotspot, or changed variant.',
  opportunities: 'Engaged shoppers who did not click a buy link.',
  adds_from_3d: 'Buy-link clicks by shoppers who interacted with the 3D view.',
  engagement_uplift: 'Click rate of engaged shoppers minus that of non-engaged shoppers, in percentage points.',
  adds_per_engaged: 'Buy-link clicks by engaged shoppers per engaged shopper.',
  best_variant_uplift: 'The variant whose viewers click most compared with its product’s average (reliable when both groups have at least 100 shoppers).',
  geo_opportunity_index: 'Among regions clicking less than average, the one with the most engaged shoppers per 1,000.',
  Viewed: 'Shoppers with a counted view.',
  Interacted: 'Shoppers who turned or zoomed the model.',
  Engaged: 'Interacted and ≥ 10 s visible, or opened a hotspot, or changed variant.',
  'High-Intent': 'Launched AR, or changed variant and opened a hotspot.',
  ATC: 'Clicked a buy link.',
};

/** Feature keys of topFeaturesAdding as people read them. */
export function featureLabel(f: string): string {
  if (f === 'ar') return 'AR view';
  if (f === 'variant') return 'Variant change';
  if (f === 'zoom') return 'Zoom / orbit';
  if (f.startsWith('hotspot:')) return `Hotspot ${f.slice('hotspot:'.length)}`;
  return f;
}
