/** Upload limits and messages (spec §5, §8, §9), used word for word. */
export const MAX_UPLOAD_BYTES = 10_485_760;
export const ACCEPTED_MIME_TYPES = ['image/jpeg', 'image/jpg', 'image/png', 'image/webp'] as const;
export const ACCEPTED_EXTENSIONS = ['.jpeg', '.jpg', '.png', '.webp'] as const;
/** The file input's accept list. */
export const ACCEPT_ATTRIBUTE = [...ACCEPTED_MIME_TYPES, ...ACCEPTED_EXTENSIONS].join(',');

export const MSG_TOO_LARGE = 'File is too large. Please select an image under 10MB.';
export const MSG_INVALID_TYPE = 'Invalid file type. Please select a JPEG, PNG, or WebP image.';
export const MSG_UNREADABLE = 'Unable to upload this file. Please try another image.';
export const MSG_NO_IMAGE_URL = 'Upload succeeded but did not return an image URL.';
export const MSG_PROCESS_FAILED = 'Failed to process image. Please try again.';
export const MSG_NO_CREDITS = 'You have used all your AI credits. Upgrade your plan or buy more credits to create another 3D model.';
export const directUploadFailed = (status: number) => `Upload failed with status ${status}`;
/**
 * Said when several files are dropped at once. The spec's catalogue has no message of its own
 * for it: "one file; … otherwise 'Unable to upload this file. Please try another image.'" (§5),
 * so that one is used, word for word (issue 50 item 16).
 */
export const MSG_ONE_IMAGE = MSG_UNREADABLE;

/**
 * Whether a failed signed upload may be sent again through the content upload (spec §7: "falls
 * back to the content upload if that fails"). Only when the server never judged the photo:
 * network failures and 5xx. A 4xx (413 too large, 415 wrong type, 422 unreadable, 401 signed
 * out) would be refused again, so the same photo is not sent twice.
 */
export function mayFallBack(status: number | string): boolean {
  return status === 'FETCH_ERROR' || (typeof status === 'number' && status >= 500);
}

/** Job polling interval on the processing screen (spec §9). */
export const JOB_POLL_MS = 2000;

/** The four user-visible steps, in order; the server reports them verbatim. */
export const PROCESSING_STEPS = ['Analyzing Image', 'Deconstructing Components', 'Assembling 3D Model', 'Finalizing Details'] as const;
export type ProcessingStep = (typeof PROCESSING_STEPS)[number];

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** What the checks read of a File (a File, or a test's stand-in). */
export interface FileLike {
  name: string;
  type: string;
  size: number;
}

/** A file name's extension, lower case with its dot ('' when it has none). */
export function extension(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i).toLowerCase();
}

/**
 * Client-side check before anything is sent: one JPEG, PNG or WebP image of at most
 * 10 MB. The type comes from the MIME type, or from the extension when the browser
 * reports none (some platforms leave it empty). Returns the message to show, or null.
 */
export function validateImageFile(file: FileLike | null | undefined): string | null {
  if (!file || typeof file.size !== 'number' || !Number.isFinite(file.size)) return MSG_UNREADABLE;
  const mime = (file.type || '').toLowerCase();
  const byMime = (ACCEPTED_MIME_TYPES as readonly string[]).includes(mime);
  const unknownMime = mime === '' || mime === 'application/octet-stream';
  const byExt = (ACCEPTED_EXTENSIONS as readonly string[]).includes(extension(file.name));
  if (!byMime && !(unknownMime && byExt)) return MSG_INVALID_TYPE;
  if (file.size > MAX_UPLOAD_BYTES) return MSG_TOO_LARGE;
  if (file.size === 0) return MSG_UNREADABLE;
  return null;
}

/** The content type sent with the upload: the browser's, else from the extension. */
export function contentTypeOf(file: FileLike): string {
  const mime = (file.type || '').toLowerCase();
  if (mime && mime !== 'application/octet-stream') return mime === 'image/jpg' ? 'image/jpeg' : mime;
  const ext = extension(file.name);
  if (ext === '.jpg' || ext === '.jpeg') return 'image/jpeg';
  if (ext === '.png') return 'image/png';
  if (ext === '.webp') return 'image/webp';
  return 'application/octet-stream';
}

/** File size as shown under the preview, e.g. "2.35 MB". */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb < 0.01 && bytes > 0 ? '< 0.01' : mb.toFixed(2)} MB`;
}

export function clampProgress(p: unknown): number {
  const n = typeof p === 'number' && Number.isFinite(p) ? p : 0;
  return Math.min(100, Math.max(0, Math.round(n)));
}

/**
 * The active step: the server's step name when it sends one, otherwise derived from
 * progress (25% per step, capped at the last). Completed jobs have every step done
 * (index 4); queued jobs have none started (index 0, not yet active).
 */
export function activeStepIndex(status: JobStatus | undefined, step: string | null | undefined, progress: number): number {
  if (status === 'completed') return PROCESSING_STEPS.length;
  const named = PROCESSING_STEPS.findIndex((s) => s.toLowerCase() === (step ?? '').trim().toLowerCase());
  if (named >= 0) return named;
  return Math.min(Math.floor(clampProgress(progress) / 25), PROCESSING_STEPS.length - 1);
}

export type StepState = 'done' | 'active' | 'pending' | 'error';

/** The state of each of the four steps for the step list. */
export function stepStates(status: JobStatus | undefined, step: string | null | undefined, progress: number): StepState[] {
  const active = activeStepIndex(status, step, progress);
  return PROCESSING_STEPS.map((_, i) => {
    if (i < active) return 'done';
    if (i > active) return 'pending';
    if (status === 'failed') return 'error';
    if (status === 'queued' || status === undefined) return 'pending';
    return 'active';
  });
}

/** What the processing screen does after a poll (spec §4). */
export type PollOutcome = { kind: 'wait' } | { kind: 'preview' } | { kind: 'failed'; message: string } | { kind: 'home' };

/**
 * completed → preview; failed → show the server's message, then home; a fetch error
 * → home; queued or processing → keep polling.
 */
export function pollOutcome(job: { status?: string; error?: string | null } | undefined, fetchError: unknown): PollOutcome {
  if (fetchError) return { kind: 'home' };
  if (!job) return { kind: 'wait' };
  if (job.status === 'completed') return { kind: 'preview' };
  if (job.status === 'failed') {
    const m = typeof job.error === 'string' && job.error.trim() ? job.error : MSG_PROCESS_FAILED;
    return { kind: 'failed', message: m };
  }
  return { kind: 'wait' };
}

/** One observation of the job's progress at a moment (ms). */
export interface ProgressSample {
  at: number;
  progress: number;
}

/**
 * Seconds left, extrapolated from the progress rate observed so far (first sample
 * with progress to the latest). Null until there is a rate to go on.
 */
export function estimateSecondsLeft(first: ProgressSample | null, latest: ProgressSample | null): number | null {
  if (!first || !latest) return null;
  const dp = latest.progress - first.progress;
  const dt = latest.at - first.at;
  if (latest.progress >= 100) return 0;
  if (dp <= 0 || dt < 1000) return null;
  const rate = dp / dt; // percent per ms
  return Math.max(1, Math.round((100 - latest.progress) / rate / 1000));
}

/**
 * What a build usually takes here, from the median of recent real builds
 * (GET /api/jobs/typical-duration); empty before the server has finished one.
 */
export function typicalDurationSentence(medianSeconds: number | null | undefined): string {
  if (medianSeconds == null) return '';
  if (medianSeconds < 1.5) return 'Builds here usually take about a second.';
  if (medianSeconds < 90) return `Builds here usually take about ${Math.round(medianSeconds)} seconds.`;
  const min = Math.round(medianSeconds / 60);
  return `Builds here usually take about ${min} minute${min === 1 ? '' : 's'}.`;
}

/** The live estimate sentence; `what` names what the merchant sent ("your photos", "your videos"). */
export function formatEstimate(seconds: number | null, status: JobStatus | undefined, what = 'your photo'): string {
  if (status === 'queued') return `Waiting for a worker to pick up ${what}…`;
  if (status === 'completed') return 'Done!';
  if (seconds === null) return 'Estimating time left…';
  if (seconds < 10) return 'Almost there — a few seconds left.';
  if (seconds < 60) return `About ${Math.ceil(seconds / 5) * 5} seconds left.`;
  const min = Math.round(seconds / 60);
  return `About ${min} minute${min === 1 ? '' : 's'} left.`;
}

/** Both readings of the creation paths exist (spec §2); we navigate to the short ones. */
export const processingPath = (jobId: string) => `/processing/${encodeURIComponent(jobId)}`;
export const previewPath = (jobId: string) => `/preview/${encodeURIComponent(jobId)}`;
