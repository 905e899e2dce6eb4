import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import {
  useStartSpinSetMutation,
  useStartSpinVideosMutation,
  useUploadSpinPhotoMutation,
  useUploadSpinVideoMutation,
  type SpinRing,
} from '../../entities/creation/creation-api';
import { ACCEPT_ATTRIBUTE, MSG_PROCESS_FAILED, processingPath, validateImageFile } from '../../entities/creation/creation-rules';
import { creditsFor, priceLabel } from '../../entities/creation/more-angles';
import { useGetSubscriptionQuery } from '../../entities/subscription/subscription-api';
import { SpinCoverage } from './spin-coverage';
import { SpinGuide } from './spin-guide';
import { DropProblems, SpinDropZone, usePhotoThumbnails } from './spin-parts';
import {
  buildLabel,
  creditsLeftLabel,
  DEFAULT_RINGS,
  layoutFor,
  ringRanges,
  sortByName,
  spinSetProblems,
  SPIN_MAX_ELEVATION,
  SPIN_MAX_RINGS,
  uploadingLabel,
  type SpinMode,
} from './spin-rules';
import {
  addVideos,
  spinVideoProblems,
  videoBuildLabel,
  videoContentTypeOf,
  videoCredits,
  videoPriceLabel,
  videoStartingLabel,
  videoUploadingLabel,
} from './spin-video-rules';
import { SpinVideos } from './spin-videos';
import { prefetchProcessingPage } from './prefetch-processing';
import { EditorsGate } from '../../entities/team/view-only';
import './creation.css';
import './spin.css';

interface Failure {
  message: string;
  needsCredits: boolean;
  /** What happens next, after the message (an upload failure keeps every photo). */
  hint?: string;
}

type Phase = { kind: 'idle' } | { kind: 'uploading'; done: number; total: number } | { kind: 'starting' };

/** The two ways in, as the choice at the top of the page offers them. */
const MODES: { value: SpinMode; label: string; hint: string }[] = [
  { value: 'photos', label: 'Photos', hint: '8 to 72 photos, one full turn per camera height' },
  { value: 'videos', label: 'Videos', hint: 'One video per camera height, 1 to 3, each a full turn' },
];

type UploadResult = { data: { url: string } } | { error: unknown };
type StartResult = { data: { jobId: string } } | { error: unknown };

/**
 * /workspace/upload/spin — create a model from a 360° spin set or turntable videos (issue 48 §5,
 * "Create from a spin set or video"): the capture guide, then either the rings and many photos
 * at once (sorted by name, grouped by ring, with their coverage) or one to three videos, lowest
 * camera first; the price; then every file through the upload flow and one build from all of them.
 */
export default function SpinPage() {
  return (
    <EditorsGate title="Create from a spin set or video" back={{ to: '/workspace/blueprints', label: '← Back to My Blueprints' }}>
      <Spin />
    </EditorsGate>
  );
}

function Spin() {
  const navigate = useNavigate();
  const inputId = useId();
  // "?mode=videos" opens the video mode (a failed video build's "try again" comes back to it).
  const [params] = useSearchParams();
  const [mode, setMode] = useState<SpinMode>(params.get('mode') === 'videos' ? 'videos' : 'photos');
  const [files, setFiles] = useState<File[]>([]);
  const [rings, setRings] = useState<SpinRing[]>(DEFAULT_RINGS);
  // Both modes keep their files while the merchant looks at the other.
  const [videos, setVideos] = useState<File[]>([]);
  const [durations, setDurations] = useState<ReadonlyMap<File, number | null>>(new Map());
  const [dropProblems, setDropProblems] = useState<string[]>([]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  // Each file's stored address once uploaded: a retry after a failure sends only the rest,
  // and removing or reordering files keeps them.
  const uploaded = useRef(new Map<File, string>());
  const [uploadedCount, setUploadedCount] = useState(0);
  const [uploadPhoto] = useUploadSpinPhotoMutation();
  const [uploadVideo] = useUploadSpinVideoMutation();
  const [startSpinSet] = useStartSpinSetMutation();
  const [startSpinVideos] = useStartSpinVideosMutation();
  const { data: sub } = useGetSubscriptionQuery();
  const busy = phase.kind !== 'idle';

  // The failure is shown at the top of the form and brought into view (the button is far below).
  const failureRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!failure) return;
    failureRef.current?.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
    failureRef.current?.focus({ preventScroll: true });
  }, [failure]);

  const thumbs = usePhotoThumbnails(files);
  const ranges = ringRanges(rings);
  const videoMode = mode === 'videos';
  const problems = videoMode ? spinVideoProblems(videos, durations) : spinSetProblems(files, rings);
  const total = files.length;
  /** The files of the mode shown, which the button uploads and builds from. */
  const count = videoMode ? videos.length : total;

  const chooseMode = (next: SpinMode) => {
    if (busy || next === mode) return;
    setMode(next);
    setDropProblems([]);
    setFailure(null);
  };

  const add = (list: FileList | File[] | null | undefined) => {
    const picked = Array.from(list ?? []);
    if (!picked.length) return;
    const refused = picked.map((f) => [f, validateImageFile(f)] as const).filter(([, p]) => p);
    setDropProblems(refused.map(([f, p]) => `${f.name}: ${p}`));
    const ok = sortByName(picked.filter((f) => !validateImageFile(f)));
    if (!ok.length) return;
    // Each batch in the natural order of its names, after the photos already there (a second
    // ring's folder dropped after the first's keeps its place), and a fresh split proposed.
    const next = [...files, ...ok];
    setFiles(next);
    setRings(layoutFor(next.length, rings.length, rings));
    setFailure(null);
  };

  const setRingCount = (count: number) => setRings(layoutFor(total, count, rings));
  const setRing = (i: number, patch: Partial<SpinRing>) => setRings(rings.map((r, k) => (k === i ? { ...r, ...patch } : r)));

  /** Removing a photo takes it from its ring, so the counts still add up. */
  const remove = (index: number) => {
    const ring = ranges.findIndex(([s, e]) => index >= s && index < e);
    setFiles(files.filter((_, k) => k !== index));
    if (ring >= 0) setRing(ring, { photos: rings[ring].photos - 1 });
  };
  const move = (index: number, d: -1 | 1) => {
    const next = files.slice();
    [next[index], next[index + d]] = [next[index + d], next[index]];
    setFiles(next);
  };
  const clear = () => {
    setFiles([]);
    setRings(layoutFor(0, rings.length, rings));
    setDropProblems([]);
    setFailure(null);
  };

  /** Videos dropped or chosen: checked (type, size, at most three) before any is kept. */
  const addVideoFiles = (picked: File[]) => {
    const { videos: next, refused } = addVideos(videos, picked);
    setDropProblems(refused);
    if (next.length !== videos.length) {
      setVideos(next);
      setFailure(null);
    }
  };
  const moveVideo = (index: number, d: -1 | 1) => {
    const next = videos.slice();
    [next[index], next[index + d]] = [next[index + d], next[index]];
    setVideos(next);
  };
  const removeVideo = (index: number) => setVideos(videos.filter((_, k) => k !== index));
  const setDuration = (file: File, seconds: number | null) =>
    setDurations((m) => (m.get(file) === seconds ? m : new Map(m).set(file, seconds)));

  /**
   * Sends every file of `order` not yet stored, one by one, with the count. On a failure it
   * names the file and says the others are kept, and answers false; the files already stored
   * are not sent again by the next try.
   */
  const uploadEach = async (order: readonly File[], send: (f: File) => Promise<UploadResult>, noun: 'photos' | 'videos', retryLabel: string) => {
    for (const f of order) {
      if (uploaded.current.has(f)) continue;
      setPhase({ kind: 'uploading', done: countUploaded(order, uploaded.current), total: order.length });
      const res = await send(f);
      if ('error' in res) {
        const said = (res.error as { message?: string } | undefined)?.message || MSG_PROCESS_FAILED;
        const msg = /[.!?]$/.test(said) ? said : `${said}.`; // "Upload failed with status 500" has no full stop
        const kept = countUploaded(order, uploaded.current);
        setPhase({ kind: 'idle' });
        setUploadedCount(kept);
        setFailure({
          message: `${f.name} was not uploaded: ${msg}`,
          needsCredits: false,
          hint: `Your ${noun} are kept: press “${retryLabel}” to try again${kept ? ` (the ${kept} already uploaded are not sent again)` : ''}.`,
        });
        return false;
      }
      uploaded.current.set(f, res.data.url);
      setUploadedCount(countUploaded(order, uploaded.current));
    }
    return true;
  };

  /** The build's start, once every file is stored: the processing page, or the server's refusal on top of the form. */
  const start = async (request: Promise<StartResult>) => {
    setPhase({ kind: 'starting' });
    const res = await request;
    if ('data' in res) {
      navigate(processingPath(res.data.jobId));
      return;
    }
    setPhase({ kind: 'idle' });
    const err = res.error as { status?: unknown; message?: string } | undefined;
    setFailure({ message: err?.message || MSG_PROCESS_FAILED, needsCredits: err?.status === 402 });
  };

  const submit = async () => {
    if (busy || problems.length || !count) return;
    setFailure(null);
    prefetchProcessingPage();
    if (videoMode) {
      const order = videos.slice();
      const sendVideo = (f: File) => uploadVideo({ file: f, contentType: videoContentTypeOf(f)! }) as Promise<UploadResult>;
      if (!(await uploadEach(order, sendVideo, 'videos', videoBuildLabel(order.length)))) return;
      await start(startSpinVideos({ videoURLs: order.map((f) => uploaded.current.get(f)!) }) as Promise<StartResult>);
      return;
    }
    const order = files.slice();
    const layout = rings.map((r) => ({ photos: r.photos, elevation: r.elevation }));
    if (!(await uploadEach(order, (f) => uploadPhoto(f) as Promise<UploadResult>, 'photos', buildLabel(order.length)))) return;
    await start(startSpinSet({ rings: layout, imageURLs: order.map((f) => uploaded.current.get(f)!) }) as Promise<StartResult>);
  };

  const balance = sub?.aiCreditBalance;
  const price = videoMode ? videoCredits(count) : creditsFor(count);
  const short = typeof balance === 'number' && count > 0 && balance < price;
  const canStart = count > 0 && problems.length === 0 && !busy;

  return (
    <div className="page spin">
      <Link to="/workspace/upload" className="back-link">
        ← Back to Upload &amp; Review
      </Link>
      <header className="page__header">
        <div>
          <h1 className="page__title">Create from a spin set or video</h1>
          <p className="page__subtitle">
            Your 360° turntable photos, 8 to 72 of them, or one to three turntable videos make one faithful 3D model.
          </p>
        </div>
      </header>

      <fieldset className="spin__mode" disabled={busy}>
        <legend className="spin__mode-legend">What did you shoot?</legend>
        <div className="spin__mode-options">
          {MODES.map((m) => (
            <label key={m.value} className={mode === m.value ? 'spin__mode-option spin__mode-option--on' : 'spin__mode-option'}>
              <input
                type="radio"
                name={`${inputId}-mode`}
                value={m.value}
                checked={mode === m.value}
                onChange={() => chooseMode(m.value)}
                aria-describedby={`${inputId}-mode-${m.value}`}
              />
              <span className="spin__mode-name">{m.label}</span>
              <span id={`${inputId}-mode-${m.value}`} className="spin__mode-hint">
                {m.hint}
              </span>
            </label>
          ))}
        </div>
      </fieldset>

      <SpinGuide mode={mode} />

      <section className="card spin__form" aria-labelledby="spin-files-title">
        <h2 id="spin-files-title" className="spin__title">
          {videoMode ? 'Your videos' : 'Your photos'}
        </h2>

        <div ref={failureRef} tabIndex={-1} className="spin__failure" data-testid="spin-failure">
          {failure && (
            <Alert tone="error">
              {failure.message}
              {failure.hint && <> {failure.hint}</>}
              {failure.needsCredits && (
                <>
                  {' '}
                  <Link to="/workspace/subscription">See plans and credits</Link>
                </>
              )}
            </Alert>
          )}
        </div>

        {videoMode ? (
          <SpinVideos
            videos={videos}
            durations={durations}
            uploaded={uploaded.current}
            dropProblems={dropProblems}
            busy={busy}
            onAdd={addVideoFiles}
            onMove={moveVideo}
            onRemove={removeVideo}
            onDuration={setDuration}
          />
        ) : (
          <>
            <SpinDropZone
              accept={ACCEPT_ATTRIBUTE}
              testId="spin-input"
              busy={busy}
              onFiles={add}
              title={total ? 'Drop more photos, or click to add them' : 'Drop your spin set here, or click to choose the photos'}
              hint="JPEG, PNG or WebP, up to 10MB each; sorted by file name"
            />
            <DropProblems problems={dropProblems} />

            <fieldset className="spin__rings" disabled={busy}>
              <legend>Rings (one full turn per camera height)</legend>
              <div className="field spin__ring-count">
                <label htmlFor={`${inputId}-rings`}>Number of rings</label>
                <select id={`${inputId}-rings`} value={rings.length} onChange={(e) => setRingCount(Number(e.target.value))}>
                  {Array.from({ length: SPIN_MAX_RINGS }, (_, i) => (
                    <option key={i + 1} value={i + 1}>
                      {i + 1}
                    </option>
                  ))}
                </select>
              </div>
              {rings.map((r, i) => (
                <div key={i} className="spin__ring-row" data-testid="spin-ring">
                  <span className="spin__ring-name">Ring {i + 1}</span>
                  <div className="field">
                    <label htmlFor={`${inputId}-photos-${i}`}>Photos</label>
                    <input
                      id={`${inputId}-photos-${i}`}
                      type="number"
                      inputMode="numeric"
                      min={0}
                      max={72}
                      value={Number.isFinite(r.photos) ? r.photos : ''}
                      onChange={(e) => setRing(i, { photos: e.target.value === '' ? NaN : Math.floor(Number(e.target.value)) })}
                      aria-label={`Ring ${i + 1} photos`}
                    />
                  </div>
                  <div className="field">
                    <label htmlFor={`${inputId}-elev-${i}`}>Camera height (°)</label>
                    <input
                      id={`${inputId}-elev-${i}`}
                      type="number"
                      inputMode="numeric"
                      min={-SPIN_MAX_ELEVATION}
                      max={SPIN_MAX_ELEVATION}
                      value={Number.isFinite(r.elevation) ? r.elevation : ''}
                      onChange={(e) => setRing(i, { elevation: e.target.value === '' ? NaN : Number(e.target.value) })}
                      aria-label={`Ring ${i + 1} camera height in degrees`}
                    />
                  </div>
                </div>
              ))}
              <p className="field__help">0° is level with the middle of the product; 30° is above it, looking down.</p>
            </fieldset>

            {total > 0 && (
              <div className="spin__groups">
                {rings.map((r, ri) => {
                  const [start, end] = ranges[ri];
                  const inRing = files.slice(start, Math.min(end, total));
                  return (
                    <section key={ri} className="spin__group" aria-label={`Ring ${ri + 1}`} data-testid="spin-group">
                      <div className="spin__group-head">
                        <h3 className="spin__group-title">
                          Ring {ri + 1}
                          <span className="muted"> · {Number.isFinite(r.elevation) ? `${r.elevation}°` : '–'} camera height</span>
                        </h3>
                        <SpinCoverage ring={ri + 1} photos={inRing.length} elevation={r.elevation} />
                      </div>
                      <Thumbs
                        files={files}
                        from={start}
                        to={Math.min(end, total)}
                        thumbs={thumbs}
                        uploaded={uploaded.current}
                        busy={busy}
                        onMove={move}
                        onRemove={remove}
                      />
                    </section>
                  );
                })}
                {ranges.length > 0 && ranges[ranges.length - 1][1] < total && (
                  <section className="spin__group spin__group--extra" aria-label="Not in a ring" data-testid="spin-group">
                    <h3 className="spin__group-title">Not in a ring</h3>
                    <Thumbs
                      files={files}
                      from={ranges[ranges.length - 1][1]}
                      to={total}
                      thumbs={thumbs}
                      uploaded={uploaded.current}
                      busy={busy}
                      onMove={move}
                      onRemove={remove}
                      noReorder
                    />
                  </section>
                )}
              </div>
            )}
          </>
        )}

        {problems.length > 0 && (
          <ul className="form-error spin__problems" role="alert" data-testid="spin-problems">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}

        {count > 0 && (
          <div className="spin__price">
            <p className="spin__price-text" data-testid="build-price">
              {videoMode ? videoPriceLabel(count) : priceLabel(count)}
            </p>
            {creditsLeftLabel(balance) && (
              <p className={short ? 'spin__credits spin__credits--short' : 'muted spin__credits'} data-testid="credits-left">
                {creditsLeftLabel(balance)}
                {short && (
                  <>
                    {' '}
                    Not enough for this build: <Link to="/workspace/subscription">see plans and credits</Link>.
                  </>
                )}
              </p>
            )}
          </div>
        )}

        {phase.kind === 'uploading' && (
          <div className="spin__progress">
            <p aria-live="polite" data-testid="spin-upload-progress">
              {videoMode ? videoUploadingLabel(phase.done, phase.total) : uploadingLabel(phase.done, phase.total)}
            </p>
            <div className="meter" role="progressbar" aria-label="Upload progress" aria-valuemin={0} aria-valuemax={phase.total} aria-valuenow={uploadedCount}>
              <div className="meter__bar meter__bar--ok" style={{ width: `${(100 * uploadedCount) / Math.max(1, phase.total)}%` }} />
            </div>
          </div>
        )}
        {phase.kind === 'starting' && (
          <p className="spin__progress" aria-live="polite" data-testid="spin-upload-progress">
            {videoMode ? videoStartingLabel(count) : `All ${count} photos uploaded. Starting the build…`}
          </p>
        )}

        <div className="btn-row">
          {!videoMode && total > 0 && (
            <button type="button" className="btn btn--ghost" onClick={clear} disabled={busy}>
              Remove all photos
            </button>
          )}
          <button type="button" className="btn btn--primary" onClick={submit} disabled={!canStart} aria-busy={busy}>
            {busy && <span className="spinner spinner--sm" aria-hidden="true" />}
            {videoMode ? (count ? videoBuildLabel(count) : 'Build from your videos') : total ? buildLabel(total) : 'Build from your photos'}
          </button>
        </div>
      </section>
    </div>
  );
}

function countUploaded(order: readonly File[], uploaded: Map<File, string>): number {
  return order.reduce((n, f) => n + (uploaded.has(f) ? 1 : 0), 0);
}

interface ThumbsProps {
  files: readonly File[];
  from: number;
  to: number;
  thumbs: Map<File, string>;
  uploaded: Map<File, string>;
  busy: boolean;
  onMove: (index: number, d: -1 | 1) => void;
  onRemove: (index: number) => void;
  noReorder?: boolean;
}

/** The photos of one ring in shooting order; each can move within its ring or be removed. */
function Thumbs({ files, from, to, thumbs, uploaded, busy, onMove, onRemove, noReorder }: ThumbsProps) {
  const items = [];
  for (let i = from; i < to; i++) {
    const f = files[i];
    const url = thumbs.get(f);
    const done = uploaded.has(f);
    items.push(
      <li key={`${i}-${f.name}`} className="spin__thumb" data-testid="spin-thumb" data-uploaded={done}>
        {/* The name is printed under it. */}
        {url ? <img src={url} alt="" loading="lazy" /> : <span className="spin__thumb-blank" aria-hidden="true" />}
        <span className="spin__thumb-name" title={f.name}>
          {i - from + 1}. {f.name}
        </span>
        {done && <span className="visually-hidden">(uploaded)</span>}
        <span className="spin__thumb-actions">
          {!noReorder && (
            <>
              <button type="button" className="spin__thumb-btn" onClick={() => onMove(i, -1)} disabled={busy || i === from} aria-label={`Move ${f.name} earlier`}>
                ←
              </button>
              <button type="button" className="spin__thumb-btn" onClick={() => onMove(i, 1)} disabled={busy || i === to - 1} aria-label={`Move ${f.name} later`}>
                →
              </button>
            </>
          )}
          <button type="button" className="spin__thumb-btn" onClick={() => onRemove(i)} disabled={busy} aria-label={`Remove ${f.name}`}>
            ×
          </button>
        </span>
      </li>,
    );
  }
  return <ol className="spin__thumbs">{items}</ol>;
}
