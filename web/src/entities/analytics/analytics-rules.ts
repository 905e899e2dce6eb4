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

/** A count with its unit: "150 shoppers", "1 shopper". */
export function count(n: number, unit: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 && unit.endsWith('s') ? unit.slice(0, -1) : unit}`;
}

/** Top Regions' value with its unit (engaged shoppers per 1,000 shoppers of the region), as the Geo opportunity KPI says it. */
export function per1kText(v: number): string {
  return `${v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} engaged per 1,000`;
}

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
  if (f === 'other') return 'Other features';
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

/** The Geo opportunity KPI card's figure: its region and number (the card prints the unit beside it). */
export function geoValue(g: { region: string; value: number } | null | undefined): string {
  if (!g) return '—';
  return `${regionLabel(g.region)} · ${g.value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}`;
}

/** The Geo opportunity KPI in words: its region and what the number is (engaged shoppers per 1,000). */
export function geoText(g: { region: string; value: number } | null | undefined): string {
  if (!g) return '—';
  return `${regionLabel(g.region)} · ${per1kText(g.value)}`;
}
