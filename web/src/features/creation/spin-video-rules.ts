import { extension, type FileLike } from '../../entities/creation/creation-rules';
import { naturalCompare } from './spin-rules';

/*
 * Rules of the spin page's video mode (issue 48: "Create from a spin set or video"): one
 * turntable video per camera height, each of at least one full turn, 1 to 3 of them, lowest
 * camera first. The server cuts 12 frames from each (one ring per video) and charges for those
 * frames; its limits are repeated here so the page refuses, in the same words, before anything
 * is uploaded. What only decoding can tell (a turn short of 360°, a moving camera) stays the
 * builder's to say.
 */

export const VIDEO_MAX_COUNT = 3;
/** The server's slot for a video: 150 MB. */
export const VIDEO_MAX_BYTES = 157_286_400;
/** Frames the server cuts from each video, one ring of them: also the video's price in AI credits. */
export const FRAMES_PER_VIDEO = 12;
/** A turn shorter than this is a blur between frames; longer than the upper one is not one turn. */
export const VIDEO_MIN_SECONDS = 2;
export const VIDEO_MAX_SECONDS = 60;

export const VIDEO_MIME_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'] as const;
export const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.webm'] as const;
/** The file input's accept list in video mode. */
export const VIDEO_ACCEPT_ATTRIBUTE = [...VIDEO_MIME_TYPES, ...VIDEO_EXTENSIONS].join(',');

/** The server's own words for the same refusals (413 video_too_large, 415 invalid_video_type). */
export const MSG_VIDEO_TYPE = 'Invalid file type. Please select an MP4, MOV or WebM video.';
export const MSG_VIDEO_TOO_LARGE = 'Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.';
export const MSG_VIDEO_EMPTY = 'This video is empty. Please select another one.';
export const MSG_VIDEO_TOO_MANY = `A build takes at most ${VIDEO_MAX_COUNT} videos, one per camera height.`;

/** Which camera height each video stands for, by its place in the list (the server's rings: 0°, 30°, 55°). */
export const VIDEO_HEIGHTS = ['level with the middle of the product', 'a little above (about 30°)', 'well above (about 55°)'] as const;


/**
 * The content type a video is sent as: the browser's when it is one the server takes, else from
 * the extension (a .mov often comes with no type, or with an odd one on some systems); null when
 * it is not an MP4, MOV or WebM video.
 */
export function videoContentTypeOf(file: FileLike): string | null {
  const mime = (file.type || '').toLowerCase();
  if ((VIDEO_MIME_TYPES as readonly string[]).includes(mime)) return mime;
  const unknownMime = mime === '' || mime === 'application/octet-stream';
  if (!unknownMime) return null;
  const ext = extension(file.name);
  if (ext === '.mp4') return 'video/mp4';
  if (ext === '.mov') return 'video/quicktime';
  if (ext === '.webm') return 'video/webm';
  return null;
}

/** The check made when a video is dropped: its type and size. The message to show, or null. */
export function validateVideoFile(file: FileLike): string | null {
  if (!videoContentTypeOf(file)) return MSG_VIDEO_TYPE;
  if (!Number.isFinite(file.size) || file.size > VIDEO_MAX_BYTES) return MSG_VIDEO_TOO_LARGE;
  if (file.size === 0) return MSG_VIDEO_EMPTY;
  return null;
}

/**
 * A drop added to the videos already there: the acceptable ones in the natural order of their
 * names after those, up to three in all; every other file with the reason it was left out.
 */
export function addVideos<T extends FileLike>(current: readonly T[], dropped: readonly T[]): { videos: T[]; refused: string[] } {
  const refused: string[] = [];
  const ok: T[] = [];
  for (const f of dropped.slice().sort((a, b) => naturalCompare(a.name, b.name))) {
    const problem = validateVideoFile(f);
    if (problem) refused.push(`${f.name}: ${problem}`);
    else ok.push(f);
  }
  const room = Math.max(0, VIDEO_MAX_COUNT - current.length);
  for (const f of ok.slice(room)) refused.push(`${f.name}: ${MSG_VIDEO_TOO_MANY}`);
  return { videos: [...current, ...ok.slice(0, room)], refused };
}

/** "12.3 s", "1 min 5 s": a video's length as its row prints it. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/**
 * Why a video's length stops the build, when the browser could read it (undefined: not read yet;
 * null: it cannot, e.g. an HEVC MOV in Chromium, and the server decides). Null when it is fine.
 */
export function durationProblem(name: string, seconds: number | null | undefined): string | null {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return null;
  if (seconds < VIDEO_MIN_SECONDS) {
    return `${name} is only ${formatDuration(seconds)} long: film one full turn of the table, 10 to 20 seconds.`;
  }
  // The server lets a second over pass, for a container's rounding (a 60.4 s phone video).
  if (seconds > VIDEO_MAX_SECONDS + 1) {
    return `${name} is ${formatDuration(seconds)} long: a video may last at most ${VIDEO_MAX_SECONDS} seconds. Film one turn of 10 to 20 seconds.`;
  }
  return null;
}

/** "Video 2 — a little above (about 30°)": what the video at place `index` (from 0) stands for. */
export function videoHeightLabel(index: number): string {
  return `Video ${index + 1} — ${VIDEO_HEIGHTS[index] ?? 'one camera height too many'}`;
}

const videos = (n: number) => `${n} ${n === 1 ? 'video' : 'videos'}`;

/** AI credits a build from `n` videos uses: 12 per video, each giving 12 frames. */
export const videoCredits = (n: number) => FRAMES_PER_VIDEO * Math.max(0, Math.floor(n) || 0);

/** The price before the start: "12 AI credits per video: 24 AI credits". */
export function videoPriceLabel(n: number): string {
  return `${FRAMES_PER_VIDEO} AI credits per video: ${videoCredits(n)} AI credits`;
}

/** "Build from 2 videos". */
export const videoBuildLabel = (n: number) => `Build from ${videos(n)}`;

/** "Uploading video 1 of 2": the video now being sent, counted from 1. */
export function videoUploadingLabel(done: number, total: number): string {
  return `Uploading video ${Math.min(done + 1, total)} of ${total}`;
}

/** "All 2 videos uploaded. Starting the build…". */
export function videoStartingLabel(n: number): string {
  return n === 1 ? 'The video is uploaded. Starting the build…' : `All ${n} videos uploaded. Starting the build…`;
}

/** Everything that stops a video build, in the merchant's words; empty when it may start. */
export function spinVideoProblems(files: readonly FileLike[], durations: ReadonlyMap<FileLike, number | null>): string[] {
  const out: string[] = [];
  for (const f of files) {
    const problem = validateVideoFile(f) ?? durationProblem(f.name, durations.get(f));
    if (problem) out.push(problem.startsWith(f.name) ? problem : `${f.name}: ${problem}`);
  }
  if (files.length > VIDEO_MAX_COUNT) out.push(`${MSG_VIDEO_TOO_MANY} Remove ${files.length - VIDEO_MAX_COUNT}.`);
  return out;
}
