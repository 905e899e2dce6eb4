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

export const DRILLDOWN_TEXT = 'Drill‑downs by device, source, and region are part of the Pro plan.';

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

/**
 * Definitions shown in the info tooltips: the Definitions section word for word (README
 * "Definitions" has the same text). The ladder's Viewed step is the Shoppers count.
 */
export const DEFINITIONS: Record<string, string> = {
  shoppers: 'Shoppers: distinct viewer ids with a counted view in range.',
  engaged: 'Engaged: interacted and ≥ 10 s visible, or opened a hotspot, or changed variant.',
  opportunities: 'opportunities: engaged shoppers without a click.',
  adds_from_3d: 'adds_from_3d: buy-link clicks by shoppers who interacted.',
  engagement_uplift: 'engagement_uplift: click rate of engaged minus non-engaged shoppers (pp).',
  adds_per_engaged: 'adds_per_engaged: clicks per engaged shopper.',
  best_variant_uplift: 'best_variant_uplift: the variant whose viewers click most vs the product average (option, pp, reliable = both groups ≥ 100 shoppers).',
  geo_opportunity_index: 'geo_opportunity_index: the region with the highest engaged-per-1k among those below the average click rate (region, value).',
  Viewed: 'Shoppers: distinct viewer ids with a counted view in range.',
  Interacted: 'Interacted: shoppers with a first interaction.',
  Engaged: 'Engaged: interacted and ≥ 10 s visible, or opened a hotspot, or changed variant.',
  'High-Intent': 'High-Intent: launched AR, or changed variant and opened a hotspot.',
  ATC: 'ATC: clicked a buy link.',
  topRegions: 'Snapshot: topRegions (engagedPer1k).',
  topFeaturesAdding: 'Snapshot: topFeaturesAdding (share of clicks preceded by AR, each hotspot, variant change, zoom).',
  storeFunnel: 'Store-attributed funnel: view → interacted → AR → click, per store platform (Amazon vs Etsy vs Shopify…), in the Breakdowns drawer.',
};

/** Where the payload says regions come from (regionSource), as the page states it. */
export function regionSourceText(source: string | undefined): string {
  if (source === 'proxy-header') return 'Regions come from the country header of a trusted proxy/CDN.';
  return 'Regions come from the shopper’s browser time zone, mapped to a country with the IANA zone table (tzdata).';
}

/** Feature keys of topFeaturesAdding as people read them. */
export function featureLabel(f: string, label?: string): string {
  if (label) return label; // the server's: a hotspot's title, or "Deleted hotspot"
  if (f === 'ar') return 'AR view';
  if (f === 'variant') return 'Variant change';
  if (f === 'zoom') return 'Zoom / orbit';
  if (f.startsWith('hotspot:')) return 'Hotspot';
  return f;
}

/** The Best variant uplift KPI: the variant's name (never its id) and the uplift. */
export function variantText(v: { option: string; label?: string; pp: number } | null | undefined): string {
  if (!v) return '—';
  return `${v.label || 'Variant'} ${pp(v.pp)}`;
}

/**
 * A region code as people read it: "ZZ" (and an empty code) is the analytics store's
 * "unknown", never shown as if it were a country.
 */
export function regionLabel(code: string | null | undefined): string {
  const c = (code ?? '').trim().toUpperCase();
  return !c || c === 'ZZ' ? 'Unknown region' : c;
}

/** The Geo opportunity KPI: its region and what the number is (engaged shoppers per 1,000). */
export function geoText(g: { region: string; value: number } | null | undefined): string {
  if (!g) return '—';
  return `${regionLabel(g.region)} · ${g.value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} engaged per 1,000`;
}
