import { DropProblems, SpinDropZone, useObjectURLs } from './spin-parts';
import { formatDuration, VIDEO_ACCEPT_ATTRIBUTE, VIDEO_MAX_COUNT, videoHeightLabel } from './spin-video-rules';

interface Props {
  videos: readonly File[];
  /** Each video's length in seconds once the browser read it; null when it cannot. */
  durations: ReadonlyMap<File, number | null>;
  uploaded: ReadonlyMap<File, string>;
  dropProblems: readonly string[];
  busy: boolean;
  onAdd: (files: File[]) => void;
  onMove: (index: number, d: -1 | 1) => void;
  onRemove: (index: number) => void;
  onDuration: (file: File, seconds: number | null) => void;
}

/**
 * The spin page's video mode: a drop zone for one to three turntable videos, and a row per video
 * with a still, its name, its length and the camera height its place in the list stands for
 * (lowest first: the server makes ring k from video k), which the merchant can reorder.
 */
export function SpinVideos({ videos, durations, uploaded, dropProblems, busy, onAdd, onMove, onRemove, onDuration }: Props) {
  const urls = useObjectURLs(videos);
  const full = videos.length >= VIDEO_MAX_COUNT;

  return (
    <>
      <SpinDropZone
        accept={VIDEO_ACCEPT_ATTRIBUTE}
        testId="spin-video-input"
        busy={busy}
        onFiles={onAdd}
        title={videos.length === 0 ? 'Drop your turntable videos here, or click to choose them' : full ? 'Three videos: remove one to add another' : 'Drop another video, or click to add it'}
        hint={`MP4, MOV or WebM, up to 150 MB each; one video per camera height, up to ${VIDEO_MAX_COUNT}`}
      />
      <DropProblems problems={dropProblems} />

      {videos.length > 0 && (
        <ol className="spin__videos" aria-label="Your videos, lowest camera first">
          {videos.map((f, i) => {
            const seconds = durations.get(f);
            const url = urls.get(f);
            const done = uploaded.has(f);
            return (
              <li key={`${i}-${f.name}`} className="spin__video" data-testid="spin-video" data-uploaded={done}>
                {url ? (
                  // A still of the video (its first moments); the row's text names it.
                  <video
                    className="spin__video-still"
                    src={`${url}#t=0.1`}
                    preload="metadata"
                    muted
                    playsInline
                    aria-hidden="true"
                    onLoadedMetadata={(e) => onDuration(f, readDuration(e.currentTarget.duration))}
                    onError={() => onDuration(f, null)}
                    data-testid="spin-video-still"
                  />
                ) : (
                  <span className="spin__video-still" aria-hidden="true" />
                )}
                <div className="spin__video-text">
                  <strong className="spin__video-height" data-testid="spin-video-height">
                    {videoHeightLabel(i)}
                  </strong>
                  <span className="spin__video-name" title={f.name}>
                    {f.name}
                  </span>
                  <span className="muted spin__video-length" data-testid="spin-video-length">
                    {seconds === undefined ? 'Reading its length…' : seconds === null ? 'Length not readable here; the server checks it' : formatDuration(seconds)}
                  </span>
                  {done && <span className="spin__video-done">Uploaded</span>}
                </div>
                <span className="spin__video-actions">
                  <button type="button" className="spin__thumb-btn" onClick={() => onMove(i, -1)} disabled={busy || i === 0} aria-label={`Move ${f.name} up`}>
                    ↑
                  </button>
                  <button
                    type="button"
                    className="spin__thumb-btn"
                    onClick={() => onMove(i, 1)}
                    disabled={busy || i === videos.length - 1}
                    aria-label={`Move ${f.name} down`}
                  >
                    ↓
                  </button>
                  <button type="button" className="spin__thumb-btn" onClick={() => onRemove(i)} disabled={busy} aria-label={`Remove ${f.name}`}>
                    ×
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}

/** A length the browser reports: a WebM straight from a recorder says Infinity (unknown), not a length. */
function readDuration(d: number): number | null {
  return Number.isFinite(d) && d > 0 ? d : null;
}
