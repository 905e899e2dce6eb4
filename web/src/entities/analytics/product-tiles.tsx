import { useGetProductAnalyticsQuery } from './analytics-api';
import { DEFINITIONS } from './analytics-rules';
import './analytics.css';
import { IconInfo } from '../../components/icons';

const TILE_HELP = {
  engagement: DEFINITIONS.engaged,
  hotspot: 'Shoppers who opened a hotspot, as a share of shoppers.',
  views: 'Counted views (one per shopper per day) in the last 30 days.',
};

/**
 * The product page's metric tiles (spec §2: Engagement, Hotspot CTR, Views)
 * from GET /api/products/{id}/analytics over the last 30 days. Drop
 * `<ProductTiles productId={id} />` into the product detail page.
 */
export function ProductTiles({ productId }: { productId: string }) {
  const { data, isError } = useGetProductAnalyticsQuery(productId);
  const tiles = [
    { key: 'engagement', label: 'Engagement', value: data ? `${data.engagement.toFixed(1)}%` : '—', help: TILE_HELP.engagement },
    { key: 'hotspot', label: 'Hotspot CTR', value: data ? `${data.hotspotCtr.toFixed(1)}%` : '—', help: TILE_HELP.hotspot },
    { key: 'views', label: 'Views', value: data ? String(data.views) : '—', help: TILE_HELP.views },
  ];
  return (
    <section className="analytics__kpis analytics__kpis--product" aria-label="Product metrics">
      {tiles.map((t) => (
        <div key={t.key} className="analytics__kpi card" data-tile={t.key}>
          <div className="analytics__kpi-label">
            {t.label}{' '}
            <span className="analytics__info" title={t.help} aria-label={t.help} role="img">
              <IconInfo size={14} />
            </span>
          </div>
          <div className="analytics__kpi-value">{t.value}</div>
        </div>
      ))}
      {isError && <p role="alert">Metrics could not be loaded.</p>}
    </section>
  );
}
