import { useNavigate } from 'react-router';
import { IconBox } from '../../components/icons';
import { StatusIcon } from '../../components/list/list-controls';
import { firstTag, PRODUCT_STATUS_LABEL, type Product } from './product-rules';

/** A product card: status icon, real thumbnail, name, first tag or a dash, Manage. Clicking it opens the detail. */
export function ProductCard({ product: p }: { product: Product }) {
  const navigate = useNavigate();
  const to = `/workspace/product/${encodeURIComponent(p.id)}`;
  return (
    <article className="card item-card" data-testid="product-card" data-status={p.status} onClick={() => navigate(to)}>
      <div className="item-card__thumb">{p.thumbnailURL ? <img src={p.thumbnailURL} alt="" loading="lazy" /> : <IconBox size={40} />}</div>
      <p className="item-card__name">{p.name}</p>
      <p className="item-card__tag">{firstTag(p.tags)}</p>
      <div className="item-card__foot">
        <StatusIcon status={p.status} label={PRODUCT_STATUS_LABEL[p.status]} />
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          aria-label={`Manage ${p.name}`}
          onClick={(e) => {
            e.stopPropagation();
            navigate(to);
          }}
        >
          Manage
        </button>
      </div>
    </article>
  );
}
