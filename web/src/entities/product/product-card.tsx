import { IconBox } from '../../components/icons';
import { ItemCard } from '../../components/list/list-controls';
import { PageStateBadge } from './page-state-badge';
import { firstTag, PRODUCT_STATUS_LABEL, type Product } from './product-rules';

/**
 * A product card: status icon, real thumbnail, name, first tag or a dash, Manage, and its public
 * page's state ("Live", or "Offline — needs Pro" after a downgrade). Clicking it opens the detail.
 */
export function ProductCard({ product: p }: { product: Product }) {
  return (
    <ItemCard
      testId="product-card"
      to={`/workspace/product/${encodeURIComponent(p.id)}`}
      name={p.name}
      imageURL={p.thumbnailURL}
      fallback={<IconBox size={40} />}
      tag={firstTag(p.tags)}
      status={p.status}
      statusLabel={PRODUCT_STATUS_LABEL[p.status]}
      badge={<PageStateBadge live={p.live} className="item-card__live" testId="product-page-state" />}
    />
  );
}
