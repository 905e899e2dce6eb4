import { useEffect, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { IconAlert, IconCheck } from '../../components/icons';
import { Logo } from '../../components/logo';
import { useGetJobQuery, useGetTypicalDurationQuery } from '../../entities/creation/creation-api';
import {
  clampProgress,
  estimateSecondsLeft,
  formatEstimate,
  JOB_POLL_MS,
  pollOutcome,
  previewPath,
  PROCESSING_STEPS,
  stepStates,
  typicalDurationSentence,
  type ProgressSample,
} from '../../entities/creation/creation-rules';
import { buildFromLabel } from '../../entities/creation/more-angles';
import { RetryButton } from '../../entities/creation/retry-button';
import { SPIN_STEP_DESCRIPTIONS, SPIN_VIDEO_STEP_DESCRIPTIONS, spinPathFor } from './spin-rules';
import './creation.css';

/**
 * /processing/{jobId} — real progress of the reconstruction, polled every 2 s. A failed build
 * stays on screen with its reason, Retry and a way to a different photo until the merchant
 * chooses; the spec's "failed goes to /workspace" left after a few seconds, before the reason
 * could be read or Retry pressed (merchant walk 4, H7; issue 50 item 8).
 */
export default function ProcessingPage() {
  const { jobId } = useParams();
  if (!jobId) return <Navigate to="/workspace" replace />;
  return <Processing key={jobId} jobId={jobId} />;
}

function Processing({ jobId }: { jobId: string }) {
  const typical = typicalDurationSentence(useGetTypicalDurationQuery().data?.medianSeconds);
  const navigate = useNavigate();
  // /workspace/processing/{jobId} renders inside the workspace shell, which brings its own
  // top bar and <main>; the standalone /processing/{jobId} brings its own.
  const inShell = useLocation().pathname.startsWith('/workspace/');
  const Frame = inShell ? 'section' : 'main';
  const [stopped, setStopped] = useState(false);
  const { data: job, error, fulfilledTimeStamp } = useGetJobQuery(jobId, {
    pollingInterval: stopped ? 0 : JOB_POLL_MS,
    refetchOnMountOrArgChange: true,
  });
  const outcome = pollOutcome(job, error);

  // Progress samples for the time estimate: the first one seen moving, and the latest.
  const [first, setFirst] = useState<ProgressSample | null>(null);
  const [latest, setLatest] = useState<ProgressSample | null>(null);
  useEffect(() => {
    if (!job || !fulfilledTimeStamp) return;
    const sample = { at: fulfilledTimeStamp, progress: clampProgress(job.progress) };
    if (job.status === 'processing') setFirst((f) => f ?? sample);
    setLatest(sample);
  }, [job, fulfilledTimeStamp]);

  useEffect(() => {
    if (outcome.kind === 'wait') return;
    setStopped(true);
    if (outcome.kind === 'preview') navigate(previewPath(jobId), { replace: true });
    else if (outcome.kind === 'home') navigate('/workspace', { replace: true });
    // 'failed': stay. Polling has stopped; the merchant leaves with a button below.
  }, [outcome.kind, jobId, navigate]);

  const progress = clampProgress(job?.status === 'completed' ? 100 : job?.progress);
  const states = stepStates(job?.status, job?.step, progress);
  const sent = job?.spin ? (job.spin.videos ? (job.spin.videos === 1 ? 'your video' : 'your videos') : 'your photos') : job && job.views > 1 ? 'your photos' : 'your photo';
  const estimate = formatEstimate(estimateSecondsLeft(first, latest), job?.status, sent);

  return (
    <div className={inShell ? 'processing processing--in-shell' : 'processing'}>
      {!inShell && (
        <header className="processing__top">
          <Link to="/my-home" className="processing__logo" aria-label="Photo3D dashboard">
            <Logo />
          </Link>
        </header>
      )}
      <Frame className="card processing__card">
        <h1 className="page__title">Processing Your Blueprint</h1>
        <div className="processing__image">
          {job?.imageURL ? <img src={job.imageURL} alt="Your uploaded product photo" /> : <span className="spinner" aria-hidden="true" />}
        </div>
        {job && (
          <p className="muted" data-testid="processing-views">
            {buildFromLabel(job.views, job.spin ? { rings: job.spin.rings.length, videos: job.spin.videos } : null, { failed: job.status === 'failed' })}
          </p>
        )}

        <div className="processing__progress">
          <div className="processing__progress-head">
            <span>{job?.status === 'queued' ? 'Queued' : job?.step ?? 'Starting'}</span>
            <strong data-testid="processing-percent">{progress}%</strong>
          </div>
          <div className="meter" role="progressbar" aria-label="Processing progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress}>
            <div className="meter__bar meter__bar--ok" style={{ width: `${progress}%` }} />
          </div>
        </div>

        <ol className="processing__steps" aria-label="Steps">
          {PROCESSING_STEPS.map((name, i) => (
            <li key={name} className={`processing__step processing__step--${states[i]}`} aria-current={states[i] === 'active' ? 'step' : undefined}>
              <span className="processing__step-icon" aria-hidden="true">
                {states[i] === 'done' ? <IconCheck size={18} /> : states[i] === 'error' ? <IconAlert size={18} /> : i + 1}
              </span>
              <span>{name}</span>
              {job?.spin && <span className="processing__step-note">{(job.spin.videos ? SPIN_VIDEO_STEP_DESCRIPTIONS : SPIN_STEP_DESCRIPTIONS)[name]}</span>}
              <span className="visually-hidden">
                {states[i] === 'done' ? '(done)' : states[i] === 'active' ? '(in progress)' : states[i] === 'error' ? '(failed)' : '(pending)'}
              </span>
            </li>
          ))}
        </ol>

        {outcome.kind === 'failed' ? (
          <Alert tone="error">{outcome.message}</Alert>
        ) : (
          <p className="processing__eta" aria-live="polite">
            {/* The median is of every build here, mostly one-photo ones: a spin set takes far longer. */}
            {typical && !job?.spin && <span data-testid="processing-typical">{typical} </span>}
            <span data-testid="processing-eta">{estimate}</span>
          </p>
        )}

        <div className="btn-row processing__actions">
          <button type="button" className="btn btn--secondary" onClick={() => navigate('/workspace/blueprints')}>
            View All Blueprints
          </button>
          {outcome.kind === 'failed' && (
            <>
              <button type="button" className="btn btn--secondary" onClick={() => navigate('/workspace', { replace: true })}>
                Back to Home
              </button>
              {/* Retry runs the same photo again; a photo the builder cannot use needs another one. */}
              {/* A spin set the builder could not use is shot (or filmed) again, on the spin page. */}
              {/* Photos the builder refused would be refused again: no Retry, and another photo is the way on. */}
              <button
                type="button"
                className={job?.retryable === false ? 'btn btn--primary' : 'btn btn--secondary'}
                onClick={() => navigate(job?.spin ? spinPathFor(job.spin.videos ? 'videos' : 'photos') : '/workspace/upload')}
              >
                {job?.spin ? (job.spin.videos ? 'Film it again' : 'Upload another spin set') : 'Upload a different photo'}
              </button>
              {job?.retryable !== false && <RetryButton jobId={jobId} photos={job?.views} />}
            </>
          )}
        </div>
      </Frame>
    </div>
  );
}
