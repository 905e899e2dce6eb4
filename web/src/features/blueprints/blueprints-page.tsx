import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconAlert, IconCheck, IconClock, IconCube, IconUpload } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { FidelityBadge, isLowFidelity, lowFidelityAdvice } from '../../entities/creation/fidelity';
import { buildFromLabel } from '../../entities/creation/more-angles';
import { RetryButton } from '../../entities/creation/retry-button';
import { ActionProblemAlert } from '../../entities/blueprint/action-problem';
import { STATUS_LABEL, otherPhotosPath, validateBlueprintName, type Blueprint } from '../../entities/blueprint/blueprint-rules';
import { useDeleteBlueprintMutation, useGetBlueprintPagesInfiniteQuery, useRenameBlueprintMutation } from '../../entities/blueprint/blueprints-api';
import { useBlueprintActions } from '../../entities/blueprint/use-blueprint-actions';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import type { RoleAbilities } from '../../entities/team/team-rules';
import '../../entities/blueprint/blueprints.css';

/** While any blueprint is still being built, the list refreshes at the job polling pace. */
const LIST_POLL_MS = 2000;

const statusIcon = { ready: IconCheck, processing: IconClock, failed: IconAlert } as const;
const statusClass = { ready: 'status--ready', processing: 'status--processing', failed: 'status--error' } as const;

/** /workspace/blueprints — every model the merchant has made, with its real status. */
export default function BlueprintsPage() {
  return (
    <CatalogueGate title="My Blueprints">
      <Blueprints />
    </CatalogueGate>
  );
}

function Blueprints() {
  // Teams (issue 51): uploading, retrying, renaming and deleting are for the owner and editors;
  // a share link publishes, so it is for who may put a page live without approval.
  const access = useWorkspaceRole();
  const navigate = useNavigate();
  const [poll, setPoll] = useState(false);
  const { data, isLoading, error, hasNextPage, fetchNextPage, isFetchingNextPage } = useGetBlueprintPagesInfiniteQuery(undefined, {
    pollingInterval: poll ? LIST_POLL_MS : 0,
  });
  const items = useMemo(() => data?.pages.flatMap((p) => p.items) ?? [], [data]);
  const anyProcessing = items.some((b) => b.status === 'processing');
  useEffect(() => setPoll(anyProcessing), [anyProcessing]);
  const [deleting, setDeleting] = useState<Blueprint | null>(null);

  return (
    <div className="page blueprints">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Blueprints</h1>
          <p className="page__subtitle">3D models made from your photos. Open one to explore it, share it or download it.</p>
        </div>
        {access.canEdit && (
          <button type="button" className="btn btn--primary" onClick={() => navigate('/workspace/upload')}>
            <IconUpload size={18} /> Upload
          </button>
        )}
      </header>
      <ViewOnlyNote access={access} />

      {error && <Alert tone="error">{errorMessage(error, 'Your blueprints could not be loaded.')}</Alert>}

      {isLoading ? (
        <LoadingScreen />
      ) : items.length === 0 && !error ? (
        <EmptyState testId="blueprints-empty" icon={<IconCube />} title="No blueprints found" text="A blueprint is the 3D model built from one product photo.">
          {access.canEdit && (
            <Link to="/workspace/upload" className="btn btn--primary">
              Upload Your First Photo
            </Link>
          )}
        </EmptyState>
      ) : (
        <ul className="blueprint-grid" aria-label="Blueprints">
          {items.map((b) => (
            <li key={b.id}>
              <BlueprintCard blueprint={b} onDelete={() => setDeleting(b)} access={access} />
            </li>
          ))}
        </ul>
      )}

      {hasNextPage && !error && (
        <div className="btn-row blueprints__more">
          <button type="button" className="btn btn--secondary" onClick={() => fetchNextPage()} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}

      {deleting && <ConfirmDelete blueprint={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}

function BlueprintCard({ blueprint: b, onDelete, access }: { blueprint: Blueprint; onDelete: () => void; access: RoleAbilities }) {
  const [renaming, setRenaming] = useState(false);
  const { download, shareLink, downloading, sharing, copied, problem } = useBlueprintActions({ jobId: b.jobId, name: b.name, modelURL: b.modelURL });
  const Icon = statusIcon[b.status];
  const ready = b.status === 'ready';
  return (
    <article className="card blueprint-card" data-testid="blueprint-card" data-status={b.status}>
      <Link to={`/preview/${encodeURIComponent(b.jobId)}`} className="blueprint-card__thumb" aria-label={`Open ${b.name}`}>
        {b.thumbnailURL ? <img src={b.thumbnailURL} alt="" loading="lazy" /> : <IconCube size={40} />}
      </Link>
      {renaming ? (
        <RenameForm blueprint={b} onDone={() => setRenaming(false)} />
      ) : (
        <div className="blueprint-card__head">
          <Link to={`/preview/${encodeURIComponent(b.jobId)}`} className="blueprint-card__name">
            {b.name}
          </Link>
          <span className={`status ${statusClass[b.status]}`} data-testid="blueprint-status">
            <Icon size={16} /> {STATUS_LABEL[b.status]}
          </span>
        </div>
      )}
      {b.createdAt && (
        <p className="blueprint-card__date muted">
          Created {relativeTime(b.createdAt)} · <span data-testid="blueprint-views">{buildFromLabel(b.views, b.spin, { failed: b.status === 'failed' })}</span>
        </p>
      )}
      {b.status === 'failed' && b.error && (
        <p className="blueprint-card__failure muted" data-testid="blueprint-failure">
          {b.error}
        </p>
      )}
      {ready && (b.fidelity !== null || b.views > 1) && (
        <p className="blueprint-card__fidelity">
          <FidelityBadge score={b.fidelity} views={b.views} />
          {isLowFidelity(b.fidelity) && (
            <span className="muted" data-testid="fidelity-advice">
              {' '}
              {lowFidelityAdvice(b.views)}
            </span>
          )}
        </p>
      )}
      <div className="blueprint-card__actions">
        {/* A build whose photos were refused would be refused again: its reason says what to shoot instead. */}
        {access.canEdit && b.status === 'failed' && b.retryable && <RetryButton jobId={b.jobId} className="btn btn--primary btn--sm" />}
        {access.canEdit && b.status === 'failed' && !b.retryable && (
          <Link to={otherPhotosPath(b.spin)} className="btn btn--primary btn--sm">
            {b.spin ? (b.spin.videos ? 'Film it again' : 'Upload another spin set') : 'Upload a different photo'}
          </Link>
        )}
        <button type="button" className="btn btn--secondary btn--sm" onClick={download} disabled={!ready || downloading}>
          {downloading ? 'Downloading…' : 'Download'}
        </button>
        {access.canPublishDirectly && (
          <button type="button" className="btn btn--secondary btn--sm" onClick={shareLink} disabled={!ready || sharing}>
            {copied ? 'Copied' : sharing ? 'Sharing…' : 'Share'}
          </button>
        )}
        {access.canEdit && (
          <>
            <button type="button" className="btn btn--ghost btn--sm" onClick={() => setRenaming(true)} disabled={renaming} aria-label={`Rename ${b.name}`}>
              Rename
            </button>
            <button type="button" className="btn btn--ghost btn--sm blueprint-card__delete" onClick={onDelete} aria-label={`Delete ${b.name}`}>
              Delete
            </button>
          </>
        )}
      </div>
      {problem && <ActionProblemAlert problem={problem} />}
    </article>
  );
}

function RenameForm({ blueprint, onDone }: { blueprint: Blueprint; onDone: () => void }) {
  const id = useId();
  const [name, setName] = useState(blueprint.name);
  const [problem, setProblem] = useState<string | null>(null);
  const [rename, { isLoading }] = useRenameBlueprintMutation();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const bad = validateBlueprintName(name);
    if (bad) {
      setProblem(bad);
      return;
    }
    if (name.trim() === blueprint.name) return onDone();
    const res = await rename({ id: blueprint.id, name: name.trim() });
    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The blueprint could not be renamed.'));
    else onDone();
  };
  return (
    <form className="blueprint-card__rename" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onDone()}>
      <label htmlFor={id} className="visually-hidden">
        Blueprint name
      </label>
      <input id={id} value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoFocus aria-invalid={!!problem} />
      <div className="btn-row">
        <button type="submit" className="btn btn--primary btn--sm" disabled={isLoading}>
          Save
        </button>
        <button type="button" className="btn btn--ghost btn--sm" onClick={onDone}>
          Cancel
        </button>
      </div>
      {problem && <span className="hint hint--error">{problem}</span>}
    </form>
  );
}

function ConfirmDelete({ blueprint, onClose }: { blueprint: Blueprint; onClose: () => void }) {
  const titleId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const [remove, { isLoading }] = useDeleteBlueprintMutation();
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => cancelRef.current?.focus(), []);
  const confirm = async () => {
    const res = await remove(blueprint.id);
    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The blueprint could not be deleted.'));
    else onClose();
  };
  return (
    <div className="modal" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal__panel card" role="alertdialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
        <h2 id={titleId} className="section-title">
          Delete “{blueprint.name}”?
        </h2>
        <p className="muted">The 3D model and its share links stop working. This cannot be undone.</p>
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row btn-row--end">
          <button ref={cancelRef} type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn--danger" onClick={confirm} disabled={isLoading}>
            {isLoading ? 'Deleting…' : 'Delete'}
          </button>
        </div>
      </div>
    </div>
  );
}
