import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { IconBox } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import type { ModelViewerElement } from '../../components/model-viewer/model-viewer-element';
import { resetCamera } from '../../components/model-viewer/scene-graph';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { ActionProblemAlert } from '../../entities/blueprint/action-problem';
import { BuildWarnings, FidelityBadge, isLowFidelity, lowFidelityAdvice } from '../../entities/creation/fidelity';
import type { ActionProblem } from '../../entities/blueprint/use-blueprint-actions';
import { useGetCatalogsQuery } from '../../entities/catalog/catalogs-api';
import {
  addTag,
  BUILD_FAILED_TEXT,
  CAMERA_PRESETS,
  MAX_NAME_LENGTH,
  normalizeProductURL,
  screenshotFileName,
  type ProductDetail,
} from '../../entities/product/product-rules';
import { useGetProductQuery, useUpdateProductMutation } from '../../entities/product/products-api';
import { useDescribeProductMutation } from './describe-api';
import { useGetPublicConfigQuery } from '../../entities/auth/auth-api';
import { lockSummary, publishingURL } from '../../entities/product/add-product-rules';
import { EmbedOriginsField } from './embed-origins-field';
import { RebuildButton } from './rebuild-button';
import { ReplacePhotoButton } from './replace-photo-button';
import { ProductTiles } from '../../entities/analytics/product-tiles';
import { Configurator } from '../../entities/product/configurator';
import { BuildStatus, LeadsPanel } from './product-extras';
import { ChannelsPanel } from '../../entities/channels/channels-panel';
import { PageOfflineAlert, PageStateBadge } from '../../entities/product/page-state-badge';
import { COPIED_MS, SAVED_MS, useFlag } from '../../lib/use-flag';
import { ModelDropZone, OwnModelButton, useOwnModel } from '../../entities/product/own-model';
import { ExperimentsPanel } from '../../entities/experiments/experiments-panel';
import { ActivityPanel } from '../../entities/team/product-activity';
import { ApprovalNotice, AwaitingApprovalBadge, RequestApprovalDialog, usePendingApproval } from '../../entities/team/publish-approval';
import { abilitiesOf, publishNeedsApproval, type RoleAbilities } from '../../entities/team/team-rules';
import { useCurrentUserId, useCurrentWorkspace } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import { ChannelsReadOnly, ConfigurationReadOnly, DetailsReadOnly, ExperimentsReadOnly } from './product-read-only';
import { useProductExperimentsQuery } from '../../entities/experiments/experiments-api';
import './products.css';

const BADGE = { ready: 'Ready', processing: 'Processing 3D…', error: 'Failed', draft: 'Draft' } as const;
const BADGE_TONE = { ready: 'status--ready', processing: 'status--processing', error: 'status--error', draft: 'status--draft' } as const;
const POLL_MS = 2000;
function isNotFound(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { status?: unknown }).status === 404;
}

/** /workspace/product/{id} — the product's model, share and embed, its real history and its details. */
export default function ProductDetailPage() {
  return (
    <CatalogueGate title="Product">
      <ProductDetail />
    </CatalogueGate>
  );
}

function ProductDetail() {
  const { productId = '' } = useParams();
  const [poll, setPoll] = useState(false);
  const { data: product, isLoading, error } = useGetProductQuery(productId, { skip: !productId, pollingInterval: poll ? POLL_MS : 0 });
  const processing = product?.status === 'processing';
  useEffect(() => setPoll(processing), [processing]);

  if (isLoading) return <LoadingScreen />;
  if (isNotFound(error) || !productId) {
    return (
      <div className="page">
        <div className="card empty-state not-found" data-testid="product-not-found">
          <IconBox size={40} />
          <h1 className="page__title">Product not found</h1>
          <p className="muted">This product does not exist or is not in your workspace.</p>
          <div>
            <Link to="/workspace/products" className="btn btn--primary">
              Back to products
            </Link>
          </div>
        </div>
      </div>
    );
  }
  if (error || !product) return <div className="page"><Alert tone="error">{errorMessage(error, 'This product could not be loaded.')}</Alert></div>;
  return <ProductDetailView product={product} />;
}

function ProductDetailView({ product: p }: { product: ProductDetail }) {
  // One public page per product: its own publication (variants, hotspots, buy buttons,
  // gate), published from the wizard's Publish step where its options are chosen.
  const pub = p.publication;
  const publication: PublicationLinks | null = pub?.shareURL
    ? { shareURL: pub.shareURL, embedCode: pub.embedCode || null, qrURL: pub.qrURL || null, id: pub.publicationId, embedOrigins: pub.embedOrigins }
    : null;
  const publishURL = publishingURL(p.id);
  const [copied, flashCopied] = useFlag(COPIED_MS);
  const [problem, setProblem] = useState<ActionProblem | null>(null);
  const [panel, setPanel] = useState<'details' | 'configurator' | 'experiments' | 'activity'>(() => {
    const tab = new URLSearchParams(window.location.search).get('tab');
    return tab === 'configurator' || tab === 'experiments' || tab === 'activity' ? tab : 'details';
  });
  // Teams (issue 51): an editor's Publish in a workspace that requires approval is a request the
  // owner or a reviewer decides; while one waits the page says so instead of claiming it is live.
  const { workspace } = useCurrentWorkspace({ fresh: true });
  const userId = useCurrentUserId();
  const needsApproval = publishNeedsApproval(workspace);
  // What the role may change: a reviewer reads the page without a control the server would refuse.
  const access = abilitiesOf(workspace);
  const pending = usePendingApproval(p.id, workspace?.role === 'analyst');
  const [requesting, setRequesting] = useState(false);
  const requestApproval = () => setRequesting(true);
  // "Use my own 3D file" here too, not only in the wizard (issue 50 item 11): the button, and a
  // .glb/.gltf dropped on the viewer or the configurator, through the same checked upload.
  const own = useOwnModel(p.id);
  const dropModel = (files: File[]) => void own.upload(files);

  return (
    <div className="page product-detail">
      <Link to="/workspace/products" className="back-link product-detail__back">
        ← Back to products
      </Link>
      <header className="page__header">
        <div>
          <h1 className="page__title">{p.name}</h1>
          <div className="product-detail__meta">
            <span className={`status ${BADGE_TONE[p.status]}`} data-testid="product-status">
              {BADGE[p.status]}
            </span>
            <PageStateBadge live={!!publication} testId="product-live" />
            {pending && <AwaitingApprovalBadge />}
            {access.canEdit && (
              <>
                <RebuildButton product={p} onProblem={setProblem} />
                <ReplacePhotoButton product={p} onProblem={setProblem} />
                {p.status !== 'processing' && <OwnModelButton own={own} className="btn btn--secondary btn--sm" inlineProblem={false} />}
              </>
            )}
            {p.updatedAt && (
              <span className="muted">
                Updated <time dateTime={p.updatedAt}>{relativeTime(p.updatedAt)}</time>
              </span>
            )}
            {p.tags.length > 0 && (
              <ul className="tag-list" aria-label="Tags">
                {p.tags.map((t) => (
                  <li key={t} className="badge">
                    {t}
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
        {publication ? (
          <div className="btn-row">
            {needsApproval && (
              // The live page is pinned under approvals: the edits since reach shoppers once approved.
              <button type="button" className="btn btn--secondary" onClick={requestApproval}>
                Request approval
              </button>
            )}
            <button
              type="button"
              className="btn btn--primary"
              onClick={async () => {
                try {
                  await navigator.clipboard.writeText(publication.shareURL);
                  flashCopied();
                } catch {
                  /* the link is shown below to copy by hand */
                }
              }}
            >
              {copied ? 'Copied' : 'Copy share link'}
            </button>
          </div>
        ) : !access.canPublish ? null : p.modelURL && needsApproval ? (
          <button type="button" className="btn btn--primary" onClick={requestApproval}>
            Publish
          </button>
        ) : p.modelURL ? (
          <Link className="btn btn--primary" to={publishURL}>
            Publish
          </Link>
        ) : (
          <button type="button" className="btn btn--primary" disabled title="Publish once the 3D model is ready.">
            Publish
          </button>
        )}
      </header>
      <ViewOnlyNote access={access} />
      <PageOfflineAlert live={!!publication} />
      {pending && <ApprovalNotice approval={pending} userId={userId} role={workspace?.role} live={!!publication} />}
      {requesting && (
        <RequestApprovalDialog
          productId={p.id}
          initial={pub ? { requireEmail: pub.requireEmail, allowDeepLinks: pub.allowDeepLinks } : undefined}
          onClose={() => setRequesting(false)}
        />
      )}
      {publication?.shareURL && (
        <div className="field">
          <label htmlFor="product-share-url">Share link</label>
          <input id="product-share-url" readOnly value={publication.shareURL} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
        </div>
      )}
      {pub?.locked && (
        // Edits made here while the page is locked do not reach shoppers: say so where they are made.
        <p className="muted" data-testid="product-lock-note">
          {lockSummary(pub).status} {access.canEdit && lockSummary(pub).hint} {access.canPublishDirectly && <Link to={publishURL}>Manage the lock</Link>}
        </p>
      )}
      {problem && <ActionProblemAlert problem={problem} />}
      {own.problem && <Alert tone="error">{own.problem}</Alert>}
      {p.status === 'error' && <Alert tone="error">{p.failureReason || BUILD_FAILED_TEXT}</Alert>}

      <BuildStatus product={p} />
      <ProductTiles productId={p.id} />
      <div className="tabs" role="tablist" aria-label="Product panels">
        {/* "Overview", so that "Product Details" names only the side panel (issue 50 P23). */}
        <button type="button" role="tab" aria-selected={panel === 'details'} onClick={() => setPanel('details')}>
          Overview
        </button>
        <button type="button" role="tab" aria-selected={panel === 'configurator'} onClick={() => setPanel('configurator')}>
          Configurator
        </button>
        <button type="button" role="tab" aria-selected={panel === 'experiments'} onClick={() => setPanel('experiments')}>
          Experiments
        </button>
        <button type="button" role="tab" aria-selected={panel === 'activity'} onClick={() => setPanel('activity')}>
          Activity
        </button>
      </div>
      {panel === 'activity' ? (
        <ActivityPanel productId={p.id} />
      ) : panel === 'experiments' ? (
        <ExperimentsTab product={p} access={access} />
      ) : panel === 'configurator' ? (
        access.canEdit ? (
          <ModelDropZone onFiles={dropModel} busy={own.busy}>
            <Configurator product={p} />
          </ModelDropZone>
        ) : (
          <ConfigurationReadOnly product={p} />
        )
      ) : (
        <div className="product-detail__layout">
          <div className="product-detail__viewer">
            {access.canEdit ? (
              <ModelDropZone onFiles={dropModel} busy={own.busy || p.status === 'processing'}>
                <ViewerPanel product={p} publication={publication} publishURL={publishURL} onPublish={needsApproval ? requestApproval : undefined} canPublish />
              </ModelDropZone>
            ) : (
              <ViewerPanel product={p} publication={publication} publishURL={publishURL} canPublish={access.canPublish} />
            )}
            <Timeline product={p} />
            <LeadsPanel product={p} canEdit={access.canEdit} />
            {access.canEdit ? (
              <ChannelsPanel productId={p.id} ready={p.status === 'ready' && !!p.modelURL} />
            ) : (
              <ChannelsReadOnly productId={p.id} ready={p.status === 'ready' && !!p.modelURL} />
            )}
          </div>
          {access.canEdit ? (
            <DetailsPanel product={p} onConfigurator={() => setPanel('configurator')} />
          ) : (
            <DetailsReadOnly product={p} onConfigurator={() => setPanel('configurator')} />
          )}
        </div>
      )}
    </div>
  );
}

/**
 * The Experiments tab by role (issue 51): the owner, and an editor where approval is not required,
 * get the whole panel. Under approvals an editor cannot start (or resume) one (403
 * approval_required), so while none is open they read the past ones; an open one they may still
 * pause, stop or make a default. A reviewer reads them all.
 */
function ExperimentsTab({ product: p, access }: { product: ProductDetail; access: RoleAbilities }) {
  const gated = access.canPublish && !access.canPublishDirectly;
  const { data } = useProductExperimentsQuery(p.id, { skip: !gated });
  if (access.canPublishDirectly) return <ExperimentsPanel product={p} />;
  if (gated) {
    if (!data) return <p className="muted">Loading…</p>;
    if (data.items.some((e) => e.state !== 'stopped')) return <ExperimentsPanel product={p} canResume={false} />;
    return (
      <ExperimentsReadOnly
        product={p}
        note={
          <p className="role-note" role="note" data-testid="experiments-approval-note">
            This workspace requires approval before anything goes live, so experiments are started by the owner.
          </p>
        }
      />
    );
  }
  return <ExperimentsReadOnly product={p} />;
}

interface PublicationLinks {
  shareURL: string;
  embedCode: string | null;
  qrURL: string | null;
  id?: string;
  embedOrigins?: string[];
}

function ViewerPanel({
  product: p,
  publication,
  publishURL,
  onPublish,
  canPublish,
}: {
  product: ProductDetail;
  publication: PublicationLinks | null;
  publishURL: string;
  /** Publish here (a request for approval) instead of the wizard's Publish step. */
  onPublish?: () => void;
  /** The role publishes (owner, editor): Publish and the embed's allowed sites are shown. */
  canPublish: boolean;
}) {
  const [tab, setTab] = useState<'3d' | 'ar'>('3d');
  const viewer = useRef<ModelViewerElement | null>(null);
  const [embedOpen, setEmbedOpen] = useState(false);
  const [copied, flashCopied] = useFlag(COPIED_MS);
  const [shotError, setShotError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const tabId = useId();

  const preset = (orbit: string) => {
    const el = viewer.current;
    if (!el) return;
    el.autoRotate = false;
    // model-viewer stops 22.5° short of the pole by default; Top-Down needs the pole.
    el.setAttribute('min-camera-orbit', 'auto 0deg auto');
    el.cameraOrbit = orbit;
  };

  const screenshot = async () => {
    setShotError(null);
    const el = viewer.current;
    if (!el) return;
    try {
      const blob = await el.toBlob({ mimeType: 'image/png' });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = screenshotFileName(p.name);
      document.body.appendChild(a);
      a.click();
      a.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch {
      setShotError('The screenshot could not be taken. Try again once the model has loaded.');
    }
  };

  // Embed shows the code of the product's page; it never publishes on its own.
  const embed = () => setEmbedOpen(!embedOpen);

  const copyEmbed = async () => {
    if (!publication?.embedCode) return;
    try {
      await navigator.clipboard.writeText(publication.embedCode);
      flashCopied();
    } catch {
      /* the code stays selectable in the box */
    }
  };

  if (!p.modelURL) {
    return (
      <div className="card empty-state product-detail__photo">
        {p.photoURL ? <img src={p.photoURL} alt={`Photo of ${p.name}`} /> : <IconBox size={40} />}
        <p className="muted">
          {p.status === 'processing'
            ? 'The 3D model is being built from this photo. It appears here when it is ready.'
            : p.status === 'draft'
              ? 'This draft has no 3D model yet. Generate 3D builds it from this photo.'
              : 'This product has no 3D model yet.'}
        </p>
      </div>
    );
  }

  return (
    <section className="card" aria-label="Viewer">
      <div className="tabs" role="tablist" aria-label="Viewer mode">
        <button type="button" role="tab" id={`${tabId}-3d`} aria-selected={tab === '3d'} aria-controls={`${tabId}-panel`} onClick={() => setTab('3d')}>
          3D View
        </button>
        <button type="button" role="tab" id={`${tabId}-ar`} aria-selected={tab === 'ar'} aria-controls={`${tabId}-panel`} onClick={() => setTab('ar')}>
          AR Preview
        </button>
      </div>
      <div id={`${tabId}-panel`} role="tabpanel" aria-labelledby={`${tabId}-${tab}`} className="product-detail__viewer">
        <ModelViewer
          ref={viewer}
          src={p.modelURL}
          poster={p.thumbnailURL ?? undefined}
          alt={`3D model of ${p.name}`}
          // A still model: presets, Reset and Screenshot act on a steady view, and the page stays light while editing.
          autoRotate={false}
          ar={tab === 'ar'}
          onLoad={() => setLoaded(true)}
        >
          {tab === 'ar' && (
            <button slot="ar-button" type="button" className="btn btn--primary btn--sm ar-button">
              View in your space
            </button>
          )}
        </ModelViewer>
        <BuildWarnings warnings={p.buildWarnings} />
        {tab === '3d' ? (
          <>
            <div className="viewer-tools">
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => viewer.current && resetCamera(viewer.current)}>
                Reset
              </button>
              <button type="button" className="btn btn--secondary btn--sm" onClick={screenshot} disabled={!loaded}>
                Screenshot
              </button>
              <button type="button" className="btn btn--secondary btn--sm" onClick={embed} aria-expanded={embedOpen}>
                Embed
              </button>
              <span className="list-toolbar__spacer" />
              {CAMERA_PRESETS.map((c) => (
                <button key={c.label} type="button" className="btn btn--ghost btn--sm" onClick={() => preset(c.orbit)}>
                  {c.label}
                </button>
              ))}
            </div>
            {shotError && <Alert tone="error">{shotError}</Alert>}
            {embedOpen && !publication?.embedCode && (
              <div className="card card--inset" data-testid="embed-unpublished">
                <p className="muted">
                  The embed shows this product's public page, which is not published yet.
                  {canPublish ? ' Publish it first, choosing the email gate and deep links.' : ' It is published by the owner or an editor.'}
                </p>
                {canPublish && <PublishLink className="btn btn--primary btn--sm" to={publishURL} onPublish={onPublish} />}
              </div>
            )}
            {embedOpen && publication?.embedCode && (
              <div className="field">
                <label htmlFor={`${tabId}-embed`}>Embed code</label>
                <textarea id={`${tabId}-embed`} className="embed-code" readOnly value={publication.embedCode} onFocus={(e) => e.currentTarget.select()} />
                <div>
                  <button type="button" className="btn btn--secondary btn--sm" onClick={copyEmbed}>
                    {copied ? 'Copied' : 'Copy code'}
                  </button>
                </div>
                {canPublish && publication.id && <EmbedOriginsField publicationId={publication.id} origins={publication.embedOrigins ?? []} />}
              </div>
            )}
          </>
        ) : (
          <div className="ar-preview">
            {publication?.qrURL ? (
              <>
                <img src={publication.qrURL} alt="QR code that opens this product on your phone" />
                <p className="muted">Scan with your phone to place {p.name} in your space. On a phone, use View in your space.</p>
              </>
            ) : (
              <>
                <p className="muted">To open this product on a phone, publish its page. The QR code appears here once it is live.</p>
                {canPublish && <PublishLink className="btn btn--secondary btn--sm" to={publishURL} onPublish={onPublish} />}
              </>
            )}
          </div>
        )}
      </div>
    </section>
  );
}

/** Publish: the wizard's Publish step, or (under approvals) the request dialog. */
function PublishLink({ className, to, onPublish }: { className: string; to: string; onPublish?: () => void }) {
  return onPublish ? (
    <button type="button" className={className} onClick={onPublish}>
      Publish
    </button>
  ) : (
    <Link className={className} to={to}>
      Publish
    </Link>
  );
}

function Timeline({ product: p }: { product: ProductDetail }) {
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title" className="section-title">
        Blueprint Timeline
      </h2>
      {p.timeline.length === 0 ? (
        <p className="muted">No history yet.</p>
      ) : (
        <ol className="timeline" data-testid="timeline">
          {p.timeline.map((e, i) => (
            <li key={`${e.kind}-${i}`} data-kind={e.kind}>
              <span>
                {e.label || e.kind}
                {e.fidelity !== null ? (
                  <>
                    {' · '}
                    <FidelityBadge score={e.fidelity} views={e.views} />
                  </>
                ) : (
                  e.detail && <span className="muted"> · {e.detail}</span>
                )}
                {isLowFidelity(e.fidelity) && (
                  <span className="muted timeline__tip" data-testid="timeline-fidelity-tip">
                    {lowFidelityAdvice(e.views)}
                  </span>
                )}
              </span>
              {e.at && (
                <time className="muted" dateTime={e.at} title={new Date(e.at).toLocaleString()}>
                  {relativeTime(e.at)}
                </time>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function DetailsPanel({ product: p, onConfigurator }: { product: ProductDetail; onConfigurator: () => void }) {
  const id = useId();
  const [name, setName] = useState(p.name);
  const [url, setUrl] = useState(p.productURL);
  const [description, setDescription] = useState(p.description);
  const [tags, setTags] = useState(p.tags);
  const [catalogId, setCatalogId] = useState(p.catalogId);
  const [tagInput, setTagInput] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, flashSaved] = useFlag(SAVED_MS);
  const [update, { isLoading: saving }] = useUpdateProductMutation();
  const { data: catalogs } = useGetCatalogsQuery();
  const aiOn = useGetPublicConfigQuery().data?.aiDescriptions === true;
  const [describe, { isLoading: writing }] = useDescribeProductMutation();
  const [aiWritten, setAiWritten] = useState(false);

  // Generate with AI (issue 29 item 17): fills the field for the merchant to read and save.
  const generate = async () => {
    setProblem(null);
    const res = await describe(p.id);
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The AI writer could not write a description just now.'));
    if (res.data) {
      setDescription(res.data);
      setAiWritten(true);
    }
  };

  // A fresh server copy (another tab, a rename elsewhere) replaces the form.
  useEffect(() => {
    setName(p.name);
    setUrl(p.productURL);
    setDescription(p.description);
    setTags(p.tags);
    setCatalogId(p.catalogId);
  }, [p.name, p.productURL, p.description, p.tags, p.catalogId]);

  const onAddTag = () => {
    const r = addTag(tags, tagInput);
    if ('error' in r) return setProblem(r.error);
    setProblem(null);
    setTags(r.tags);
    setTagInput('');
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    if (!name.trim()) return setProblem('Give the product a name.');
    const u = normalizeProductURL(url);
    if ('error' in u) return setProblem(u.error);
    const res = await update({ id: p.id, name: name.trim(), productUrl: u.url, description, tags, ...(catalogId && catalogId !== p.catalogId ? { catalogId } : {}) });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The details could not be saved.'));
    setUrl(u.url);
    flashSaved();
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <div className="tabs" role="tablist" aria-label="Side panel">
        <button type="button" role="tab" aria-selected="true" id={`${id}-title`}>
          Product Details
        </button>
      </div>
      <form className="form" onSubmit={save} role="tabpanel" aria-labelledby={`${id}-title`}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} value={name} maxLength={MAX_NAME_LENGTH} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-url`}>Product URL</label>
          <input id={`${id}-url`} type="text" inputMode="url" value={url} maxLength={2048} placeholder="https://shop.example.com/item" onChange={(e) => setUrl(e.target.value)} />
        </div>
        <div className="field">
          <div className="field__label-row">
            <label htmlFor={`${id}-desc`}>Description</label>
            {aiOn && (
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => void generate()} disabled={writing}>
                {writing ? 'Writing…' : 'Generate with AI'}
              </button>
            )}
          </div>
          <textarea id={`${id}-desc`} value={description} maxLength={2000} rows={4} onChange={(e) => setDescription(e.target.value)} />
          {aiWritten && <p className="muted" data-testid="ai-note">Written by AI from this product's details. Check it, then Save Details.</p>}
        </div>
        <fieldset className="field">
          <legend>Tags</legend>
          <ul className="tag-list" aria-label="Product tags">
            {tags.map((t) => (
              <li key={t} className="badge tag-chip">
                {t}
                <button type="button" aria-label={`Remove tag ${t}`} onClick={() => setTags(tags.filter((x) => x !== t))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
          <div className="btn-row">
            <label htmlFor={`${id}-tag`} className="visually-hidden">
              New tag
            </label>
            <input
              id={`${id}-tag`}
              value={tagInput}
              placeholder="New tag"
              onChange={(e) => setTagInput(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  onAddTag();
                }
              }}
            />
            <button type="button" className="btn btn--ghost btn--sm" onClick={onAddTag}>
              + Add Tag
            </button>
          </div>
        </fieldset>
        {catalogs && catalogs.items.length > 0 && (
          <div className="field">
            <label htmlFor={`${id}-catalog`}>Catalog</label>
            <select id={`${id}-catalog`} value={catalogId} onChange={(e) => setCatalogId(e.target.value)}>
              {catalogs.items.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                  {c.isDefault ? ' (default)' : ''}
                </option>
              ))}
            </select>
          </div>
        )}
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row btn-row--end">
          {saved && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
          {/* Spec §2: the Product Details panel leads back to the configurator. */}
          <button type="button" className="btn btn--ghost" onClick={onConfigurator}>
            Back to Configurator
          </button>
          <button type="submit" className="btn btn--primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save Details'}
          </button>
        </div>
      </form>
    </section>
  );
}
