import { apiURL } from '../../lib/download';
import { api } from '../../lib/api';

/** One number as the merchant reads it: served by the API from internal/analytics/definitions.go. */
export interface MetricDefinition {
  label: string;
  definition: string;
  unit: string;
}
/** Definitions keyed by KPI key, ladder step key, or topRegions, topFeaturesAdding, ar, clicked, storeFunnel… */
export type Definitions = Record<string, MetricDefinition>;

export interface Step {
  key: string;
  value: number;
  color?: string;
}
export interface AnalyticsPayload {
  plan: 'basic' | 'premium';
  /** Where regions come from: a trusted proxy's country header, or the browser's time zone. */
  regionSource?: 'proxy-header' | 'time-zone';
  capabilities: { filters: string[]; kpis_primary: string[]; kpis_secondary: string[]; drilldowns: boolean; export: boolean };
  kpis: {
    shoppers: number;
    engaged: number;
    opportunities: number;
    adds_from_3d: number;
    engagement_uplift?: number | null;
    adds_per_engaged?: number | null;
    /** option is the variant id; label its name and product, resolved by the server. */
    best_variant_uplift?: { option: string; productId?: string; label?: string; pp: number; reliable: boolean } | null;
    geo_opportunity_index?: { region: string; value: number } | null;
  };
  charts: {
    progress_ladder: { steps: Step[] };
    snapshot: { topRegions: { region: string; engagedPer1k: number }[]; topFeaturesAdding: { feature: string; share: number; label?: string }[] };
  };
  /** Label, definition and unit of every number on the screen (the info tooltips). */
  definitions?: Definitions;
}
export interface Breakdown {
  dimension: 'device' | 'source' | 'region' | 'platform';
  value: string;
  shoppers: number;
  interacted: number;
  ar: number;
  clicked: number;
}
export interface ProductSummary {
  shoppers: number;
  views: number;
  engagement: number;
  hotspotCtr: number;
  clicks: number;
  /** The tiles' definitions: engagement, hotspotCtr, views. */
  definitions?: Definitions;
}
export interface AnalyticsQuery {
  range?: string;
  from?: string;
  to?: string;
  sku?: string;
  device?: string;
  source?: string;
  region?: string;
}

function params(q: AnalyticsQuery): Record<string, string> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>;
}

/** GET /api/analytics and friends; the plan gating is the server's. */
export const analyticsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getAnalytics: build.query<AnalyticsPayload, AnalyticsQuery>({
      query: (q) => ({ url: '/analytics', params: params(q) }),
    }),
    getBreakdowns: build.query<Breakdown[], AnalyticsQuery>({
      query: (q) => ({ url: '/analytics/breakdowns', params: params(q) }),
      transformResponse: (raw: { items?: Breakdown[] } | null) => raw?.items ?? [],
    }),
    getProductAnalytics: build.query<ProductSummary, string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}/analytics`, params: { range: '30d' } }),
    }),
  }),
});

export const { useGetAnalyticsQuery, useGetBreakdownsQuery, useGetProductAnalyticsQuery } = analyticsApi;

/** The export link (premium), with the same filters. */
export function exportURL(q: AnalyticsQuery): string {
  const s = new URLSearchParams(params(q)).toString();
  return apiURL(`/analytics/export.csv${s ? `?${s}` : ''}`);
}
