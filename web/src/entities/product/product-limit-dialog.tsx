import { Link } from 'react-router';
import { Dialog } from '../../components/dialog';
import { useGetSubscriptionQuery, type Subscription } from '../subscription/subscription-api';
import { FREE_PLAN_NOTICE } from './product-rules';

/**
 * Which limit stopped the merchant and what the plan allows: the server's refusal when there
 * is one (403 product_limit), else the same sentence from the plan (the spec's Free notice, or
 * the server's wording for other plans).
 */
export function productLimitMessage(sub: Pick<Subscription, 'productLimit'> | undefined, serverMessage?: string): string {
  if (serverMessage?.trim()) return serverMessage;
  const limit = sub?.productLimit;
  if (typeof limit !== 'number' || limit === 2) return FREE_PLAN_NOTICE;
  return `Your plan is limited to ${limit} products. Delete a product to add another.`;
}

/**
 * Said where the merchant clicked, before anything is left: Add product at the plan's product
 * limit, or the wizard's Generate / Save refused for it, used to jump to My Subscription with
 * no word of why, and the wizard's name and photo went out of view (merchant walk 4, H12;
 * issue 50 item 9). The dialog names the limit and the count, and offers the plans or staying.
 */
export function ProductLimitDialog({ message, draftKept = false, onClose }: { message?: string; draftKept?: boolean; onClose: () => void }) {
  const { data: sub } = useGetSubscriptionQuery();
  const used = sub?.productsUsed;
  const limit = sub?.productLimit;
  return (
    <Dialog title="Product limit reached" role="alertdialog" onClose={onClose}>
      <p data-testid="product-limit-message">{productLimitMessage(sub, message)}</p>
      {typeof used === 'number' && typeof limit === 'number' && (
        <p data-testid="product-limit-count">
          You have {used} of {limit} products. Upgrade your plan, or delete a product you no longer sell.
        </p>
      )}
      {draftKept && <p className="muted">Your product name and photo stay here.</p>}
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          Not now
        </button>
        <Link to="/workspace/subscription" className="btn btn--primary">
          See plans
        </Link>
      </div>
    </Dialog>
  );
}
