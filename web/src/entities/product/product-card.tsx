import { IconBox } from '../../components/icons';
import { ItemCard } from '../../components/list/list-controls';
import { PageStateBadge } from './page-state-badge';
import { formatPrice } from '../../lib/money';
import './product-card.css';
import { firstTag, PRODUCT_STATUS_LABEL, PRODUCT_STATUS_WORD, type Product } from './product-rules';

/**
 * A product card: status icon and word, price when set (issue 50 P11), real thumbnail, name, first tag or a dash, Manage, and its public
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
      meta={
        <span className="item-card__meta">
          <span data-testid="product-status-word">{PRODUCT_STATUS_WORD[p.status]}</span>
          {p.price !== null && p.currency && <span data-testid="product-price">{formatPrice(p.price, p.currency)}</span>}
        </span>
      }
    />
  );
}
