import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { PageOptionsFields } from '../product/page-options-fields';
import { relativeTime } from '../../lib/format';
import { useApprovalsQuery, usePublishOrRequestMutation, useWithdrawApprovalMutation, type Approval, type Role } from './team-api';
import { actorName, canDecide, canWithdraw } from './team-rules';
import './team.css';

/** The product's pending publish request, if any (GET /api/approvals?productId=&state=pending). */
export function usePendingApproval(productId: string, skip = false): Approval | null {
  const { data } = useApprovalsQuery({ productId, state: 'pending' }, { skip: skip || !productId, refetchOnMountOrArgChange: true });
  return data?.find((a) => a.status === 'pending' && a.productId === productId) ?? data?.find((a) => a.status === 'pending') ?? null;
}

/** "Awaiting approval" beside the product's state badge. */
export function AwaitingApprovalBadge() {
  return (
    <span className="badge badge--pending" data-testid="product-awaiting">
      Awaiting approval
    </span>
  );
}

/**
 * On the product page while a publish request waits (issue 51): who asked and when, instead of
 * claiming the page is live; Withdraw for who asked (and the owner); a way to the decision for
 * owners and reviewers.
 */
export function ApprovalNotice({ approval: a, userId, role, live }: { approval: Approval; userId: string | undefined; role: Role | undefined; live: boolean }) {
  const [withdraw, { isLoading, error }] = useWithdrawApprovalMutation();
  return (
    <section className="approval-notice" role="status" aria-label="Awaiting approval" data-testid="approval-notice">
      <div>
        <p className="approval-notice__title">Awaiting approval</p>
        <p className="muted">
          {actorName(a.requestedBy)} asked <time dateTime={a.requestedAt}>{relativeTime(a.requestedAt)}</time> to publish version {a.pageVersion}. The page
          goes live when the owner or a reviewer approves it; until then {live ? 'shoppers see the page as it was' : 'the page is not live'}.
        </p>
        {error && <Alert tone="error">{errorMessage(error, 'The request could not be withdrawn.')}</Alert>}
      </div>
      <div className="btn-row">
        {role && canDecide(role) && (
          <Link className="btn btn--secondary btn--sm" to="/workspace/approvals">
            Review
          </Link>
        )}
        {canWithdraw(a, userId, role) && (
          <button type="button" className="btn btn--ghost btn--sm" disabled={isLoading} onClick={() => void withdraw(a.id)}>
            {isLoading ? 'Withdrawing…' : 'Withdraw'}
          </button>
        )}
      </div>
    </section>
  );
}

/**
 * An editor's Publish in a workspace that requires approval: the page's two options, then a
 * request the owner or a reviewer decides. A 202 answer closes the dialog; the product page
 * then shows the request. Should the workspace no longer require approval, the same call
 * publishes at once (200/201) and the page shows it live.
 */
export function RequestApprovalDialog({
  productId,
  initial,
  onClose,
}: {
  productId: string;
  initial?: { requireEmail: boolean; allowDeepLinks: boolean };
  onClose: (outcome: 'requested' | 'published' | 'cancelled') => void;
}) {
  const [choice, setChoice] = useState(initial ?? { requireEmail: false, allowDeepLinks: false });
  const [send, { isLoading, error }] = usePublishOrRequestMutation();
  const submit = async () => {
    const res = await send({ productId, ...choice });
    if ('data' in res && res.data) onClose(res.data.status === 'awaiting_approval' ? 'requested' : 'published');
  };
  return (
    <Dialog title="Request approval to publish" onClose={() => !isLoading && onClose('cancelled')}>
      <p className="muted">This workspace requires approval before anything goes live. The owner and the reviewers are asked; the page goes live when one of them approves it.</p>
      <PageOptionsFields value={choice} onChange={setChoice} disabled={isLoading} className="approval-dialog__toggles" />
      {error && <Alert tone="error">{errorMessage(error, 'The request could not be sent. Please try again.')}</Alert>}
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" disabled={isLoading} onClick={() => onClose('cancelled')}>
          Cancel
        </button>
        <button type="button" className="btn btn--primary" disabled={isLoading} onClick={() => void submit()}>
          {isLoading ? 'Sending…' : 'Request approval'}
        </button>
      </div>
    </Dialog>
  );
}
