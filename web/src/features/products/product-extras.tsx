import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconMail } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { apiURL, downloadFile } from '../../lib/download';
import { useGetJobQuery } from '../../entities/creation/creation-api';
import { buildProgress, buildState, publishingURL } from '../../entities/product/add-product-rules';
import { useDeleteLeadMutation, useProductLeadsQuery, type Lead } from '../../entities/product/configurator-api';
import type { ProductDetail } from '../../entities/product/product-rules';

/** The running build's real state and progress (the job's), shown on the product page. */
export function BuildStatus({ product: p }: { product: ProductDetail }) {
  const jobId = p.status === 'processing' ? (p.jobId ?? '') : '';
  const { data: job } = useGetJobQuery(jobId, { skip: !jobId, pollingInterval: jobId ? 2000 : 0 });
  if (p.status !== 'processing') return null;
  const state = buildState(p, job);
  const progress = buildProgress(p, job);
  return (
    <div className="build-status" role="status" data-testid="build-status" data-state={state}>
      <span>{state === 'queued' ? 'Queued — waiting for a worker' : `Processing — transforming image into 3D (${progress}%)`}</span>
      {state === 'processing' && (
        <div className="meter" role="progressbar" aria-label="Build progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress}>
          <div className="meter__bar meter__bar--ok" style={{ width: `${progress}%` }} />
        </div>
      )}
    </div>
  );
}

/** One captured lead, with its delete button for a role that edits the catalogue. */
function LeadRow({ lead: l, product: p, canEdit }: { lead: Lead; product: ProductDetail; canEdit: boolean }) {
  const [remove] = useDeleteLeadMutation();
  const variantName = (id: string) => p.config.variants.find((v) => v.id === id)?.name ?? 'Deleted variant';
  return (
    <li className="config-item config-item--link">
      <span className="link-short">{l.email}</span>
      {l.variantId && <span className="badge">{variantName(l.variantId)}</span>}
      {l.createdAt && (
        <time className="muted" dateTime={l.createdAt}>
          {relativeTime(l.createdAt)}
        </time>
      )}
      {canEdit && (
        <button type="button" className="btn btn--ghost btn--sm" onClick={() => void remove({ productId: p.id, leadId: l.id })} aria-label={`Delete ${l.email}`}>
          Delete
        </button>
      )}
    </li>
  );
}

/** A further page of leads (after cursor), and its own "Show more" while more remain. */
function MoreLeads({ product: p, cursor, canEdit }: { product: ProductDetail; cursor: string; canEdit: boolean }) {
  const { data, isLoading, error } = useProductLeadsQuery({ id: p.id, cursor });
  const [more, setMore] = useState(false);
  if (isLoading) return <li className="muted">Loading…</li>;
  if (error) return <li>{<Alert tone="error">{errorMessage(error, 'The leads could not be loaded.')}</Alert>}</li>;
  return (
    <>
      {data?.items.map((l) => <LeadRow key={l.id} lead={l} product={p} canEdit={canEdit} />)}
      {data?.nextCursor && (more ? <MoreLeads product={p} cursor={data.nextCursor} canEdit={canEdit} /> : <ShowMore onClick={() => setMore(true)} />)}
    </>
  );
}

function ShowMore({ onClick }: { onClick: () => void }) {
  return (
    <li>
      <button type="button" className="btn btn--secondary btn--sm" onClick={onClick}>
        Show more leads
      </button>
    </li>
  );
}

/**
 * Emails shoppers left on the public page (stored outside the event log), newest first and a
 * page at a time, with a CSV export of all of them. Deleting a lead, and the way to the
 * publishing options, are for the roles that edit (issue 51: a reviewer reads and exports).
 */
export function LeadsPanel({ product: p, canEdit = true }: { product: ProductDetail; canEdit?: boolean }) {
  const { data, isLoading, error } = useProductLeadsQuery({ id: p.id }, { refetchOnMountOrArgChange: true });
  const leads = data?.items ?? [];
  const [more, setMore] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="leads-title">
      <div className="section-head">
        <h2 id="leads-title" className="section-title">
          Leads
        </h2>
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          disabled={leads.length === 0}
          onClick={() =>
            downloadFile(apiURL(`/products/${encodeURIComponent(p.id)}/leads.csv`), 'leads.csv', 'text/csv').catch(() => setProblem('The leads could not be downloaded.'))
          }
        >
          Download CSV
        </button>
      </div>
      {isLoading ? (
        <p className="muted">Loading…</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The leads could not be loaded.')}</Alert>
      ) : leads.length === 0 ? (
        <EmptyState variant="inline" testId="leads-empty" icon={<IconMail />} title="No leads yet" text="Turn on Require email capture when you publish to collect shoppers' emails.">
          {canEdit && (
            <Link to={publishingURL(p.id)} className="btn btn--secondary btn--sm">
              Publishing options
            </Link>
          )}
        </EmptyState>
      ) : (
        <ul className="config-list" data-testid="leads">
          {leads.map((l) => (
            <LeadRow key={l.id} lead={l} product={p} canEdit={canEdit} />
          ))}
          {data?.nextCursor && (more ? <MoreLeads product={p} cursor={data.nextCursor} canEdit={canEdit} /> : <ShowMore onClick={() => setMore(true)} />)}
        </ul>
      )}
      {problem && <Alert tone="error">{problem}</Alert>}
    </section>
  );
}
