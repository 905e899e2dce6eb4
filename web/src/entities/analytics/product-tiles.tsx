import { useGetProductAnalyticsQuery } from './analytics-api';
import { MetricInfo } from './metric-info';
import './analytics.css';

/**
 * The product page's metric tiles (spec §2: Engagement, Hotspot CTR, Views)
 * from GET /api/products/{id}/analytics over the last 30 days, each with its
 * definition from the server (internal/analytics/definitions.go) in its info
 * tooltip. Drop `<ProductTiles productId={id} />` into the product detail page.
 */
export function ProductTiles({ productId }: { productId: string }) {
  const { data, isError } = useGetProductAnalyticsQuery(productId);
  const defs = data?.definitions ?? {};
  const tiles = [
    { key: 'engagement', def: 'engagement', label: 'Engagement', value: data ? `${data.engagement.toFixed(1)}%` : '—' },
    { key: 'hotspot', def: 'hotspotCtr', label: 'Hotspot CTR', value: data ? `${data.hotspotCtr.toFixed(1)}%` : '—' },
    { key: 'views', def: 'views', label: 'Views', value: data ? String(data.views) : '—' },
  ];
  return (
    <section className="analytics__kpis analytics__kpis--product" aria-label="Product metrics">
      {tiles.map((t) => (
        <div key={t.key} className="analytics__kpi card" data-tile={t.key}>
          <div className="analytics__kpi-label">
            {defs[t.def]?.label ?? t.label} <MetricInfo definition={defs[t.def]} label={t.label} />
          </div>
          <div className="analytics__kpi-value">{t.value}</div>
        </div>
      ))}
      {isError && <p role="alert">Metrics could not be loaded.</p>}
    </section>
  );
}
