import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import { errorMessage } from '../../lib/api';
import { apiURL, downloadFile } from '../../lib/download';
import { BUILD_FAILED_TEXT, parsePublication, type ProductDetail } from '../../entities/product/product-rules';
import { useLockPublicationMutation, useProductChecksQuery, usePublishProductPageMutation, useSetPresetsMutation } from '../../entities/product/configurator-api';
import { PageOptionsFields, type PageOptions } from '../../entities/product/page-options-fields';
import { ApprovalNotice } from '../../entities/team/publish-approval';
import { usePublishOrRequestMutation } from '../../entities/team/team-api';
import { useCurrentUserId, useCurrentWorkspace } from '../../entities/team/use-workspace';
import { abilitiesOf } from '../../entities/team/team-rules';
import { currentOrbit, type ConfigViewerElement } from '../../entities/product/configurator';
import { environmentFor } from '../../public-viewer/environments';
import { COPIED_MS, SAVED_MS, useFlag } from '../../lib/use-flag';
import { priceLabel, viewsLabel } from '../../entities/creation/more-angles';
import { BuildWarnings, FidelityBadge, FidelityCaption, FidelityWarning } from '../../entities/creation/fidelity';
import { useRebuildProductMutation } from '../../entities/product/add-product-api';
import { CHECK_LABELS, CHECK_ORDER, embedCodeFor, LIVE_TITLE, lockSummary, modalSteps, MSG_SHARING_NEEDS_PRO, VERSIONING_NOTE, type BuildState } from '../../entities/product/add-product-rules';
import type { Failure } from './photo-steps';
import { FailureAlert } from './photo-steps';

interface BuildModalProps {
  product: ProductDetail;
  state: BuildState;
  progress: number;
  onKeepEditing: () => void;
  onHide: () => void;
  onRetried: () => void;
}

/** "Building your 3D": the build's real state and progress, Retry build on failure (spec §2, §4). */
export function BuildModal({ product: p, state, progress, onKeepEditing, onHide, onRetried }: BuildModalProps) {
  const [rebuild, { isLoading }] = useRebuildProductMutation();
  const [failure, setFailure] = useState<Failure | null>(null);
  const steps = modalSteps(state);
  const retry = async () => {
    setFailure(null);
    const res = await rebuild(p.id);
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown };
      return setFailure({ message: errorMessage(res.error, BUILD_FAILED_TEXT), needsCredits: err.status === 402 });
    }
    onRetried();
  };
  return (
    <Dialog title="Building your 3D" onClose={onKeepEditing}>
      <ol className="build-steps" data-testid="build-steps" data-state={state}>
        {steps.map((s) => (
          <li key={s.key} className={`build-step build-step--${s.status}`} data-status={s.status}>
            <strong>{s.label}</strong>
            <span className="muted">
              {s.key === 'processing' && state === 'failed' ? p.failureReason || BUILD_FAILED_TEXT : s.hint}
            </span>
            {s.key === 'processing' && state === 'processing' && (
              <div className="meter" role="progressbar" aria-label="Build progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress}>
                <div className="meter__bar meter__bar--ok" style={{ width: `${progress}%` }} />
              </div>
            )}
          </li>
        ))}
      </ol>
      {state === 'processing' && <p className="muted">{progress}% done</p>}
      {p.views > 0 && (
        <p className="muted" data-testid="build-views">
          {viewsLabel(p.views)}
        </p>
      )}
      <FailureAlert failure={failure} />
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" onClick={onHide}>
          Hide status
        </button>
        {state === 'failed' && (
          <button type="button" className="btn btn--secondary" onClick={retry} disabled={isLoading} title={priceLabel(p.views)}>
            Retry build
          </button>
        )}
        {state === 'ready' ? (
          <button type="button" className="btn btn--primary" onClick={onKeepEditing}>
            Jump back in
          </button>
        ) : (
          <button type="button" className="btn btn--primary" onClick={onKeepEditing}>
            Keep editing
          </button>
        )}
      </div>
    </Dialog>
  );
}

/** preview: the server's checklist and the default camera angle taken from the current view. */
export function PreviewStep({ product: p, onPublish, onBack }: { product: ProductDetail; onPublish: () => void; onBack: () => void }) {
  const { data: checks, isFetching, error, refetch } = useProductChecksQuery(p.id, { refetchOnMountOrArgChange: true });
  const [savePresets, { isLoading: saving }] = useSetPresetsMutation();
  const [saved, flashSaved] = useFlag(SAVED_MS);
  const [problem, setProblem] = useState<string | null>(null);
  const viewer = useRef<ConfigViewerElement | null>(null);
  const [loaded, setLoaded] = useState(false);
  const presets = p.config.presets;

  useEffect(() => {
    const el = viewer.current;
    if (!el || !loaded) return;
    el.setAttribute('environment-image', environmentFor(presets.lighting));
    el.setAttribute('camera-orbit', presets.cameraOrbit);
  }, [loaded, presets.lighting, presets.cameraOrbit]);

  const saveAngle = async () => {
    const el = viewer.current;
    if (!el) return;
    setProblem(null);
    const res = await savePresets({ productId: p.id, ...presets, cameraOrbit: currentOrbit(el) });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The camera angle could not be saved.'));
    flashSaved();
    void refetch();
  };

  const byKey = new Map((checks ?? []).map((c) => [c.key, c]));
  return (
    <section className="wizard__preview" aria-label="Preview">
      <div className="wizard__preview-viewer">
        {p.modelURL ? (
          <ModelViewer ref={viewer} src={p.modelURL} alt={`3D model of ${p.name}`} autoRotate={false} ar={false} onLoad={() => setLoaded(true)} />
        ) : (
          <p className="muted">The model appears here when it is ready.</p>
        )}
        <button type="button" className="btn btn--secondary btn--sm" onClick={saveAngle} disabled={!loaded || saving}>
          {saved ? 'Saved.' : 'Use this view as the default camera angle'}
        </button>
      </div>
      <div className="card">
        {p.views > 0 && (
          <div className="wizard__fidelity">
            <p>
              <FidelityBadge score={p.readyMetric} views={p.views} />{' '}
              <span className="muted" data-testid="preview-views">
                {viewsLabel(p.views)}
              </span>
            </p>
            <FidelityCaption score={p.readyMetric} views={p.views} />
            <BuildWarnings warnings={p.buildWarnings} />
            <FidelityWarning score={p.readyMetric} views={p.views} />
          </div>
        )}
        <h2 className="section-title">Checklist</h2>
        {error ? (
          <Alert tone="error">{errorMessage(error, 'The checklist could not be loaded.')}</Alert>
        ) : (
          <ul className="checklist" aria-busy={isFetching} data-testid="checklist">
            {CHECK_ORDER.map((key) => {
              const c = byKey.get(key);
              return (
                <li key={key} data-check={key} data-ok={c ? String(c.ok) : 'unknown'} className={c?.ok ? 'checklist__item checklist__item--ok' : 'checklist__item'}>
                  <span aria-hidden="true">{!c ? '…' : c.ok ? '✓' : '✗'}</span>
                  <span>
                    {CHECK_LABELS[key]}
                    {c?.detail && <span className="muted"> — {c.detail}</span>}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row">
          <button type="button" className="btn btn--ghost" onClick={onBack}>
            Back to edit
          </button>
          <button type="button" className="btn btn--primary" onClick={onPublish}>
            Publish
          </button>
        </div>
      </div>
    </section>
  );
}


/** Where a change of the options stands: the server's answer decides "Saved" (issue 29 item 6). */
type SaveState = 'idle' | 'saving' | 'saved' | 'failed';

/**
 * publish: first the page's options (email gate, deep links), then "Publish now" makes it live
 * with them, so the page is never public without the gate the merchant wanted (issue 29 item 6).
 * Once live: the link, embed code, QR, version lock, and the options, which change at once on
 * screen (optimistic), say "Saved" when the server has them and roll back when it refuses.
 */
export function PublishStep({ product: p, onDone, onBack }: { product: ProductDetail; onDone: () => void; onBack?: () => void }) {
  const id = useId();
  // Going live is a request when the workspace requires approval and the merchant is an editor
  // (issue 51): the server answers 202 with the request, and this step says so.
  const [publishOrRequest, { isLoading: goingLive, data: outcome }] = usePublishOrRequestMutation();
  const [publish, { isLoading: changing, data: changed }] = usePublishProductPageMutation();
  const isLoading = goingLive || changing;
  const { workspace } = useCurrentWorkspace();
  // Under approvals an editor changes a live page only through a request (issue 51): its options
  // would become a request the toggles do not show, and the lock is refused (403 approval_required).
  const direct = abilitiesOf(workspace).canPublishDirectly;
  const userId = useCurrentUserId();
  const answered = changed ?? (outcome?.status === 'published' ? parsePublication(outcome.publication) : null);
  const [lock, { isLoading: locking }] = useLockPublicationMutation();
  const [problem, setProblem] = useState<Failure | null>(null);
  // The plan refused sharing (403): say why, and offer Back and Done instead of a dead end.
  const [refused, setRefused] = useState(false);
  const [copied, flashCopied] = useFlag(COPIED_MS);
  const [codeCopied, flashCodeCopied] = useFlag(COPIED_MS);
  const [showCode, setShowCode] = useState(false);
  const pub = p.publication ?? answered ?? null;
  // Before going live: what the merchant chose. After: what the screen shows while a change is
  // on its way (null: the server's values), and the last values the server confirmed.
  const [choice, setChoice] = useState<PageOptions>({ requireEmail: false, allowDeepLinks: false });
  const [pending, setPending] = useState<PageOptions | null>(null);
  const [confirmed, setConfirmed] = useState<PageOptions | null>(null);
  const [saveState, setSaveState] = useState<SaveState>('idle');
  const latest = useRef(0);

  const goLive = async () => {
    setProblem(null);
    const res = await publishOrRequest({ productId: p.id, ...choice });
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown };
      setRefused(err.status === 403);
      setProblem({ message: errorMessage(res.error, 'The product could not be published. Please try again.'), needsCredits: err.status === 402 || err.status === 403 });
    }
  };

  const change = async (next: PageOptions) => {
    const n = ++latest.current;
    setProblem(null);
    setPending(next);
    setSaveState('saving');
    const res = await publish({ productId: p.id, ...next });
    if (n !== latest.current) return; // a later change is on its way; its answer decides
    setPending(null);
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown };
      setSaveState('failed');
      setProblem({ message: errorMessage(res.error, 'The change could not be saved. Please try again.'), needsCredits: err.status === 402 || err.status === 403 });
      return;
    }
    setConfirmed({ requireEmail: res.data.requireEmail, allowDeepLinks: res.data.allowDeepLinks });
    setSaveState('saved');
  };

  const copy = async (text: string, flash: () => void) => {
    try {
      await navigator.clipboard.writeText(text);
      flash();
    } catch {
      /* the text stays selectable */
    }
  };

  if (!pub && outcome?.status === 'awaiting_approval') {
    return (
      <section className="card wizard__card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`} className="page__title">
          {p.name || 'Your product'} is waiting for approval
        </h2>
        <ApprovalNotice approval={outcome.approval} userId={userId} role={workspace?.role} live={false} />
        <div className="btn-row btn-row--end">
          <button type="button" className="btn btn--primary" onClick={onDone}>
            Done
          </button>
        </div>
      </section>
    );
  }

  if (!pub) {
    return (
      <section className="card wizard__card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`} className="page__title">
          Publish {p.name || 'your product'}
        </h2>
        <p className="muted">Choose how your page works, then publish it. You can change these later.</p>
        <PageOptionsFields value={choice} onChange={setChoice} disabled={isLoading} className="wizard__toggles" />
        {refused && (
          <p className="wizard__refused" data-testid="publish-refused">
            <strong>{MSG_SHARING_NEEDS_PRO}</strong> Your product is saved; you can publish it once your plan allows sharing.
          </p>
        )}
        <FailureAlert failure={problem} />
        <div className="btn-row btn-row--end">
          {onBack && (
            <button type="button" className="btn btn--ghost" onClick={onBack}>
              Back
            </button>
          )}
          <button type="button" className={refused ? 'btn btn--secondary' : 'btn btn--ghost'} onClick={onDone}>
            Done
          </button>
          <button type="button" className="btn btn--primary" disabled={isLoading} onClick={() => void goLive()}>
            {isLoading ? (
              <>
                <span className="spinner spinner--sm" aria-hidden="true" /> Publishing…
              </>
            ) : (
              'Publish now'
            )}
          </button>
        </div>
      </section>
    );
  }
  const shown: PageOptions = pending ?? confirmed ?? { requireEmail: pub.requireEmail, allowDeepLinks: pub.allowDeepLinks };
  const code = embedCodeFor(pub);
  const lockText = lockSummary(pub);
  // Locking always freezes what shoppers see now (and, while locked, publishes the edits made
  // meanwhile); never the latest version by number, which can be older than the page.
  const setLock = async (locked: boolean) => {
    setProblem(null);
    const res = await lock({ productId: p.id, publicationId: pub.publicationId, lock: locked });
    if ('error' in res && res.error) setProblem({ message: errorMessage(res.error, locked ? 'The page could not be locked.' : 'The page could not be unlocked.'), needsCredits: false });
  };
  return (
    <section className="card wizard__card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="page__title">
        {LIVE_TITLE}
      </h2>
      {/* Open page and a visible QR code, as on the gallery's share screen (issue 50 P9). */}
      <div className="wizard__live">
        <div className="field wizard__live-link">
          <label htmlFor={`${id}-link`}>Share link</label>
          <div className="link-input">
            <input id={`${id}-link`} readOnly value={pub.shareURL} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
            <button type="button" className="btn btn--secondary btn--sm" onClick={() => void copy(pub.shareURL, flashCopied)}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
          </div>
          <div className="btn-row">
            <a className="btn btn--primary btn--sm" href={pub.shareURL} target="_blank" rel="noreferrer">
              Open page
            </a>
          </div>
        </div>
        {pub.qrURL && <img className="wizard__qr" src={pub.qrURL} width={140} height={140} alt="QR code that opens this product page on your phone" />}
      </div>
      <div className="btn-row">
        <button type="button" className="btn btn--secondary btn--sm" onClick={() => setShowCode((v) => !v)} aria-expanded={showCode}>
          {showCode ? 'Hide embed code' : 'Show embed code'}
        </button>
        <button type="button" className="btn btn--secondary btn--sm" onClick={() => void copy(code, flashCodeCopied)}>
          {codeCopied ? 'Copied' : 'Copy embed code'}
        </button>
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          disabled={!pub.publicationId}
          // Through the API on the app's own base (with the session), not the public link's
          // host: the app may be open on another host name than PUBLIC_BASE_URL (issue 29 item 10).
          onClick={() =>
            downloadFile(apiURL(`/publications/${encodeURIComponent(pub.publicationId)}/qr.png`), `${pub.slug || 'product'}-qr.png`, 'image/png').catch(() =>
              setProblem({ message: 'The QR code could not be downloaded.', needsCredits: false }),
            )
          }
        >
          Download QR
        </button>
      </div>
      {showCode && <textarea className="embed-code" readOnly value={code} aria-label="Embed code" onFocus={(e) => e.currentTarget.select()} />}
      {!direct && (
        <p className="role-note" role="note" data-testid="publish-needs-approval">
          This workspace requires approval before anything goes live: the page&apos;s options, its lock and your edits reach shoppers through{' '}
          <Link to={`/workspace/product/${encodeURIComponent(p.id)}`}>Request approval on the product page</Link>. Email capture is{' '}
          {shown.requireEmail ? 'on' : 'off'}; deep links to variants are {shown.allowDeepLinks ? 'on' : 'off'}.
        </p>
      )}
      {direct && (
        <div className="wizard__toggles">
          <label className="checkbox">
            <input type="checkbox" checked={shown.requireEmail} onChange={(e) => void change({ ...shown, requireEmail: e.target.checked })} />
            Require email capture
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={shown.allowDeepLinks} onChange={(e) => void change({ ...shown, allowDeepLinks: e.target.checked })} />
            Allow deep links to variants
          </label>
          <span className="muted" role="status" data-testid="publish-save-state" data-state={saveState}>
            {saveState === 'saving' ? 'Saving…' : saveState === 'saved' ? 'Saved' : saveState === 'failed' ? 'Not saved' : ''}
          </span>
        </div>
      )}
      <p className="muted" data-testid="versioning-note">
        {VERSIONING_NOTE} <span data-testid="lock-status">{lockText.status}</span>
      </p>
      {direct && (
        <>
          <p className="muted" data-testid="lock-hint">
            {lockText.hint}
          </p>
          <div className="btn-row">
            <button type="button" className="btn btn--ghost btn--sm" disabled={locking || !pub.publicationId} onClick={() => void setLock(!pub.locked)}>
              {pub.locked ? 'Unlock the page' : 'Lock the page as it is now'}
            </button>
            {pub.locked && pub.pendingEdits && (
              <button type="button" className="btn btn--secondary btn--sm" disabled={locking || !pub.publicationId} onClick={() => void setLock(true)}>
                Publish my edits
              </button>
            )}
          </div>
        </>
      )}
      <FailureAlert failure={problem} />
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--primary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
