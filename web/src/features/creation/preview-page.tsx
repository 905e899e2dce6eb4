import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { IconCube } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { loadModelViewer } from '../../components/model-viewer/load-model-viewer';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import type { ModelViewerElement } from '../../components/model-viewer/model-viewer-element';
import { sceneParts, setExploded, setSolo, setWireframe, type ScenePart } from '../../components/model-viewer/scene-graph';
import { errorMessage } from '../../lib/api';
import { useGetBlueprintsQuery } from '../../entities/blueprint/blueprints-api';
import { ShareDownloadDialog } from '../../entities/blueprint/share-download-dialog';
import { ActionProblemAlert } from '../../entities/blueprint/action-problem';
import { useBlueprintActions } from '../../entities/blueprint/use-blueprint-actions';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import { useGetJobQuery } from '../../entities/creation/creation-api';
import { processingPath } from '../../entities/creation/creation-rules';
import { PartsPanel } from './parts-panel';
import { RetryButton } from '../../entities/creation/retry-button';
import { BuildWarnings, FidelityBadge, FidelityCaption, FidelityWarning, isLowFidelity } from '../../entities/creation/fidelity';
import { viewsLabel } from '../../entities/creation/more-angles';
import { SpinCheck, SpinLeftOut } from './spin-check';
import { SPIN_PATH, spinViewsLabel } from './spin-rules';
import { PreviewModelDrop } from './preview-model-drop';
import './creation.css';
import { prefersReducedMotion } from '../../lib/reduced-motion';

/** /preview/{jobId} — the finished model with parts, wireframe, exploded and solo views. */
export default function PreviewPage() {
  const { jobId } = useParams();
  if (!jobId) return <Navigate to="/workspace" replace />;
  return (
    <CatalogueGate title="Model Preview">
      <Preview key={jobId} jobId={jobId} />
    </CatalogueGate>
  );
}

function Preview({ jobId }: { jobId: string }) {
  const navigate = useNavigate();
  const { data: job, isLoading, error } = useGetJobQuery(jobId);
  // Fetch the viewer chunk while the job is still loading instead of after it.
  useEffect(() => {
    loadModelViewer().catch(() => undefined);
  }, []);
  const { data: blueprints } = useGetBlueprintsQuery();
  const name = job?.name ?? blueprints?.find((b) => b.jobId === jobId)?.name ?? 'Blueprint';
  const [sharing, setSharing] = useState(false);
  // Teams (issue 51): a share link publishes the model, so it is for who may put a page live
  // without approval; building and giving a product this model are for the owner and editors.
  const access = useWorkspaceRole();

  return (
    <div className="page preview">
      <header className="page__header">
        <div>
          <h1 className="page__title">Model Preview</h1>
          <p className="page__subtitle">{name}</p>
        </div>
        <div className="btn-row">
          {access.canEdit && (
            <button type="button" className="btn btn--secondary" onClick={() => navigate('/workspace/upload')}>
              New Blueprint
            </button>
          )}
          {access.canPublishDirectly ? (
            <button type="button" className="btn btn--primary" onClick={() => setSharing(true)} disabled={!job?.modelURL}>
              Share / Download
            </button>
          ) : (
            <DownloadButton jobId={jobId} name={name} modelURL={job?.modelURL ?? null} />
          )}
        </div>
      </header>
      <ViewOnlyNote access={access} />

      {isLoading ? (
        <LoadingScreen />
      ) : error || !job ? (
        <Alert tone="error">
          {errorMessage(error, 'This blueprint could not be loaded.')} <Link to="/workspace/blueprints">Back to My Blueprints</Link>
        </Alert>
      ) : job.modelURL ? (
        <>
          {access.canEdit ? (
            <PreviewModelDrop jobId={jobId} name={name}>
              <Viewer modelURL={job.modelURL} poster={job.thumbnailURL ?? undefined} name={name} jobParts={job.parts} />
            </PreviewModelDrop>
          ) : (
            <Viewer modelURL={job.modelURL} poster={job.thumbnailURL ?? undefined} name={name} jobParts={job.parts} />
          )}
          <div className="preview__fidelity">
            <FidelityBadge score={job.fidelity} views={job.views} />
            <span className="muted" data-testid="preview-views">
              {job.spin ? spinViewsLabel(job.views, job.spin.rings.length, job.spin.videos) : viewsLabel(job.views)}
            </span>
            <FidelityCaption score={job.fidelity} views={job.views} />
            <BuildWarnings warnings={job.warnings} />
            {/* A spin set's tips are about the turntable, not about taking more photos. */}
            {job.spin ? <SpinCheck score={job.fidelity} views={job.views} videos={job.spin.videos} stats={job.stats} /> : <FidelityWarning score={job.fidelity} views={job.views} />}
            {job.spin && <SpinLeftOut stats={job.stats} views={job.views} videos={job.spin.videos} />}
            {access.canEdit && !job.spin && job.views === 1 && isLowFidelity(job.fidelity) && (
              <Link to={SPIN_PATH} className="btn btn--secondary preview__spin-link">
                Capture a spin set for a faithful model
              </Link>
            )}
          </div>
        </>
      ) : (
        <NoModel status={job.status} message={job.error} jobId={jobId} views={job.views} canEdit={access.canEdit} retryable={job.retryable} />
      )}

      {sharing && job && <ShareDownloadDialog target={{ jobId, name, modelURL: job.modelURL }} onClose={() => setSharing(false)} />}
    </div>
  );
}

/** Download only, for a role that may not publish a share link (a reviewer; an editor under approvals). */
function DownloadButton({ jobId, name, modelURL }: { jobId: string; name: string; modelURL: string | null }) {
  const { download, downloading, problem } = useBlueprintActions({ jobId, name, modelURL });
  return (
    <>
      <button type="button" className="btn btn--primary" onClick={download} disabled={!modelURL || downloading}>
        {downloading ? 'Downloading…' : 'Download 3D file (.glb)'}
      </button>
      {problem && <ActionProblemAlert problem={problem} />}
    </>
  );
}

function NoModel({
  status,
  message,
  jobId,
  views,
  canEdit,
  retryable,
}: {
  status: string;
  message: string | null;
  jobId: string;
  views: number;
  canEdit: boolean;
  retryable: boolean;
}) {
  // A build whose photos were refused is not retried: the same photos would be refused again.
  const retry = status === 'failed' && retryable;
  return (
    <div className="card empty-state preview__empty" data-testid="model-unavailable">
      <IconCube size={48} />
      <p className="preview__empty-title">3D model not available</p>
      {status === 'failed' ? (
        <p>{message ?? 'The build did not finish, so there is no model to show.'}</p>
      ) : status === 'completed' ? (
        <p>The build finished but its model file is missing. Try building it again from the photo.</p>
      ) : (
        <p>
          This blueprint is still being built. <Link to={processingPath(jobId)}>Follow its progress</Link>
        </p>
      )}
      {canEdit && (
        <div className="btn-row">
          {retry && <RetryButton jobId={jobId} photos={views} />}
          <Link to="/workspace/upload" className={retry ? 'btn btn--secondary' : 'btn btn--primary'}>
            Upload a photo
          </Link>
        </div>
      )}
    </div>
  );
}

type Note = string | null;

function Viewer({ modelURL, poster, name, jobParts }: { modelURL: string; poster?: string; name: string; jobParts: ScenePart[] }) {
  const el = useRef<ModelViewerElement | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [graphParts, setGraphParts] = useState<ScenePart[]>([]);
  const parts = jobParts.length ? jobParts : graphParts;
  const [wireframe, setWire] = useState(false);
  const [exploded, setExplode] = useState(false);
  const [solo, setSoloOn] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [note, setNote] = useState<Note>(null);

  const onLoad = useCallback((mv: ModelViewerElement) => {
    setGraphParts(sceneParts(mv));
    setLoaded(true);
  }, []);

  // Each view follows its toggle once the model is in the scene (and again after a reload).
  useEffect(() => {
    if (loaded && el.current) setWireframe(el.current, wireframe);
  }, [loaded, wireframe]);

  useEffect(() => {
    if (!loaded || !el.current) return;
    if (!setExploded(el.current, exploded, { instant: prefersReducedMotion() }) && exploded) {
      setExplode(false);
      setNote('This model has no exploded view.');
    }
  }, [loaded, exploded]);

  const selectedPart = parts.find((p) => p.id === selected) ?? null;
  useEffect(() => {
    if (!loaded || !el.current) return;
    const shown = setSolo(el.current, solo ? selectedPart : null);
    if (solo && selectedPart && shown === 0) {
      setSolo(el.current, null);
      setNote(`“${selectedPart.name}” could not be isolated in this model.`);
    }
  }, [loaded, solo, selectedPart]);

  const toggleSolo = () => {
    setNote(null);
    if (!solo && !selected && parts[0]) setSelected(parts[0].id);
    setSoloOn(!solo);
  };

  return (
    <div className="preview__layout">
      <section className="preview__stage" aria-label="3D model">
        <div className="preview__toggles" role="group" aria-label="View">
          <button type="button" className="btn btn--sm preview__toggle" aria-pressed={wireframe} onClick={() => setWire(!wireframe)} disabled={!loaded}>
            Wireframe View
          </button>
          <button
            type="button"
            className="btn btn--sm preview__toggle"
            aria-pressed={exploded}
            onClick={() => {
              setNote(null);
              setExplode(!exploded);
            }}
            disabled={!loaded}
          >
            Exploded View
          </button>
          <button type="button" className="btn btn--sm preview__toggle" aria-pressed={solo} onClick={toggleSolo} disabled={!loaded || parts.length === 0}>
            Solo Mode
          </button>
        </div>
        <ModelViewer ref={el} className="preview__viewer" src={modelURL} poster={poster} alt={`3D model of ${name}`} onLoad={onLoad} shadowIntensity={1} />
        {note && <p className="preview__note" role="status">{note}</p>}
      </section>
      <PartsPanel parts={parts} selectedId={selected} onSelect={(id) => setSelected(id)} loading={!loaded} />
    </div>
  );
}
