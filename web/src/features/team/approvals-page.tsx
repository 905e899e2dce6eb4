import { useId, useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconCheck } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { useApprovalQuery, useApprovalsQuery, useDecideApprovalMutation, useWithdrawApprovalMutation, type Approval, type Role } from '../../entities/team/team-api';
import { actorName, canDecide, canWithdraw, comparisonRows, STATUS_LABEL, withdrawnWhy } from '../../entities/team/team-rules';
import { useCurrentUserId, useCurrentWorkspace } from '../../entities/team/use-workspace';
import { CatalogueGate } from '../../entities/team/view-only';
import './team.css';

/**
 * /workspace/approvals (issue 51): publish requests waiting for a decision first, each with what
 * would go live next to what is live now; the owner and reviewers approve or reject with a
 * comment, who asked may withdraw. Decided requests follow, with who decided and why.
 */
export default function ApprovalsPage() {
  // An analyst does not see publish requests (GET /api/approvals is refused): say so instead.
  return (
    <CatalogueGate title="Approvals">
      <Approvals />
    </CatalogueGate>
  );
}

function Approvals() {
  const { data, isLoading, error } = useApprovalsQuery({}, { refetchOnMountOrArgChange: true });
  const { workspace } = useCurrentWorkspace();
  const userId = useCurrentUserId();
  const role = workspace?.role;
  const items = data ?? [];
  const pending = items.filter((a) => a.status === 'pending');
  const history = items.filter((a) => a.status !== 'pending');

  return (
    <div className="page approvals-page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Approvals</h1>
          <p className="page__subtitle">
            {role && canDecide(role)
              ? 'Publish requests wait here for you or another reviewer. Compare what would go live with what shoppers see now.'
              : 'Your publish requests and what was decided. The owner or a reviewer approves them.'}
          </p>
        </div>
      </header>
      {isLoading ? (
        <LoadingScreen />
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The requests could not be loaded.')}</Alert>
      ) : (
        <>
          <section aria-labelledby="approvals-pending-title" className="approvals-section">
            <h2 id="approvals-pending-title" className="section-title">
              Waiting for a decision{pending.length ? ` (${pending.length})` : ''}
            </h2>
            {pending.length === 0 ? (
              <EmptyState icon={<IconCheck />} title="Nothing waits for a decision." text="When an editor publishes in a workspace that requires approval, the request appears here." testId="approvals-empty" />
            ) : (
              pending.map((a) => <PendingRequest key={a.id} approval={a} role={role} userId={userId} />)
            )}
          </section>
          <section aria-labelledby="approvals-history-title" className="card approvals-section">
            <h2 id="approvals-history-title" className="section-title">
              History
            </h2>
            {history.length === 0 ? (
              <EmptyState variant="inline" icon={<IconCheck />} title="No decided requests yet" text="Approved, rejected and withdrawn requests are listed here with who decided and why." testId="approvals-history-empty" />
            ) : (
              <ol className="approval-history" aria-label="Decided requests">
                {history.map((a) => (
                  <DecidedRequest key={a.id} approval={a} />
                ))}
              </ol>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function PendingRequest({ approval: listed, role, userId }: { approval: Approval; role: Role | undefined; userId: string | undefined }) {
  const id = useId();
  // The list carries no comparison: the request itself does.
  const { data: full, error: loadError } = useApprovalQuery(listed.id, { skip: !!listed.comparison, refetchOnMountOrArgChange: true });
  const a = listed.comparison ? listed : (full ?? listed);
  const [comment, setComment] = useState('');
  const [decide, { isLoading: deciding, error }] = useDecideApprovalMutation();
  const [withdraw, { isLoading: withdrawing, error: withdrawError }] = useWithdrawApprovalMutation();
  const busy = deciding || withdrawing;
  const title = `${a.productName || 'Product'} · version ${a.pageVersion}`;
  return (
    <article className="card approval" aria-labelledby={`${id}-title`} data-testid="approval-pending">
      <header className="approval__head">
        <div>
          <h3 id={`${id}-title`} className="approval__title">
            {title}
          </h3>
          <p className="muted">
            {actorName(a.requestedBy)} asked <time dateTime={a.requestedAt}>{relativeTime(a.requestedAt)}</time> ·{' '}
            <Link to={`/workspace/product/${encodeURIComponent(a.productId)}`}>Open the product</Link>
          </p>
        </div>
        <span className="badge badge--pending">{STATUS_LABEL.pending}</span>
      </header>
      {a.comparison ? (
        <Comparison approval={a} />
      ) : loadError ? (
        <Alert tone="error">{errorMessage(loadError, 'What would go live could not be loaded.')}</Alert>
      ) : (
        <p className="muted">Loading what would go live…</p>
      )}
      {role && canDecide(role) && (
        <div className="approval__decide">
          <div className="field">
            <label htmlFor={`${id}-comment`}>Comment</label>
            <textarea id={`${id}-comment`} rows={2} maxLength={2000} value={comment} disabled={busy} onChange={(e) => setComment(e.target.value)} placeholder="Why, for who asked (optional)" />
          </div>
          <div className="btn-row">
            <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void decide({ id: a.id, approve: true, comment: comment.trim() })}>
              Approve
            </button>
            <button type="button" className="btn btn--secondary" disabled={busy} onClick={() => void decide({ id: a.id, approve: false, comment: comment.trim() })}>
              Reject
            </button>
          </div>
        </div>
      )}
      {canWithdraw(a, userId, role) && (
        <div className="btn-row">
          <button type="button" className="btn btn--ghost btn--sm" disabled={busy} onClick={() => void withdraw(a.id)}>
            Withdraw request
          </button>
        </div>
      )}
      {error && <Alert tone="error">{errorMessage(error, 'The decision could not be saved.')}</Alert>}
      {withdrawError && <Alert tone="error">{errorMessage(withdrawError, 'The request could not be withdrawn.')}</Alert>}
    </article>
  );
}

/** What would go live next to what is live now, field by field; changed fields are marked. */
function Comparison({ approval: a }: { approval: Approval }) {
  const cmp = a.comparison!;
  const rows = comparisonRows(cmp.next, cmp.live);
  return (
    <div className="approval__scroll">
      <table className="approval-compare" aria-label={`What would go live for ${a.productName || 'the product'}`} data-testid="approval-comparison">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Field</span>
            </th>
            <th scope="col">Live now{cmp.live ? ` (v${cmp.live.version})` : ''}</th>
            <th scope="col">After approval (v{cmp.next.version})</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label} className={r.changed ? 'approval-compare__changed' : undefined} data-changed={r.changed || undefined}>
              <th scope="row">
                {r.label}
                {r.changed && <span className="visually-hidden"> (changed)</span>}
              </th>
              <td>{r.live ? <Lines lines={r.live} /> : <span className="muted">Not live yet</span>}</td>
              <td>
                <Lines lines={r.next} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Lines({ lines }: { lines: string[] }) {
  if (lines.length === 1) return <>{lines[0]}</>;
  return (
    <ul className="approval-compare__lines">
      {lines.map((l, i) => (
        <li key={`${i}-${l}`}>{l}</li>
      ))}
    </ul>
  );
}

function DecidedRequest({ approval: a }: { approval: Approval }) {
  const why = a.status === 'withdrawn' ? withdrawnWhy(a.withdrawReason) : '';
  return (
    <li className="approval-history__item" data-testid="approval-decided" data-status={a.status}>
      <div className="approval-history__body">
        <p className="approval-history__line">
          <Link to={`/workspace/product/${encodeURIComponent(a.productId)}`}>{a.productName || 'Product'}</Link> · version {a.pageVersion} ·{' '}
          <span className={`approval-status approval-status--${a.status}`}>{STATUS_LABEL[a.status]}</span>
          {a.decidedBy && a.status !== 'withdrawn' && <> by {actorName(a.decidedBy)}</>}
        </p>
        <p className="muted approval-history__sub">
          Asked by {actorName(a.requestedBy)} <time dateTime={a.requestedAt}>{relativeTime(a.requestedAt)}</time>
          {a.decidedAt && (
            <>
              {' · decided '}
              <time dateTime={a.decidedAt}>{relativeTime(a.decidedAt)}</time>
            </>
          )}
        </p>
        {a.comment && <p className="approval-history__comment">{a.comment}</p>}
        {why && <p className="muted approval-history__sub">{why}</p>}
      </div>
    </li>
  );
}
