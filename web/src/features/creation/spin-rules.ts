import { validateImageFile } from '../../entities/creation/creation-rules';
import type { SpinRing } from '../../entities/creation/creation-api';
import { buildFromLabel } from '../../entities/creation/more-angles';

/*
 * Rules of the spin-set page (issue 48 §5): a merchant's 360° turntable capture, 8–72 photos in
 * one to three rings, each ring one full turn from one camera height. The limits are the
 * builder's (docs/reconstruction.md "Spin sets"): it refuses the same sets with a reason, so the
 * page says so before anything is uploaded.
 */

export const SPIN_MIN_PHOTOS = 8;
export const SPIN_MAX_PHOTOS = 72;
export const SPIN_MIN_PER_RING = 4;
export const SPIN_MAX_RINGS = 3;
/** The builder refuses a camera height beyond ±80°. */
export const SPIN_MAX_ELEVATION = 80;
/** Fewer photos per turn than this leave gaps over 30°, and a coarse shape (the guide asks 12–36). */
export const SPIN_GOOD_PER_RING = 12;

/** What the merchant shot: turntable photos, or turntable videos (one per camera height). */
export type SpinMode = 'photos' | 'videos';

/** The page's route. */
export const SPIN_PATH = '/workspace/upload/spin';

/** The page opened on one mode: "/workspace/upload/spin?mode=videos" for a merchant who films (photos are the default). */
export const spinPathFor = (mode: SpinMode) => (mode === 'videos' ? `${SPIN_PATH}?mode=videos` : SPIN_PATH);

/** Camera heights proposed for a new ring: level with the product's middle, then higher. */
const DEFAULT_ELEVATIONS = [0, 30, 60];

/** The layout before any photo is dropped: two rings of 12, at 0° and 30°. */
export const DEFAULT_RINGS: SpinRing[] = [
  { photos: 12, elevation: 0 },
  { photos: 12, elevation: 30 },
];

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Natural order of file names: P2 before P10, case ignored; ties keep a stable, exact order. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** A copy of `files` in the natural order of their names. */
export function sortByName<T extends { name: string }>(files: readonly T[]): T[] {
  return files.slice().sort((x, y) => naturalCompare(x.name, y.name));
}

/**
 * Photos per ring proposed for `total` photos in `rings` rings: as even as possible, the first
 * rings taking one more when it does not divide (24 in 2 → 12 + 12; 25 in 2 → 13 + 12).
 */
export function proposeSplit(total: number, rings: number): number[] {
  const n = Math.max(1, Math.floor(rings));
  const t = Math.max(0, Math.floor(total));
  const base = Math.floor(t / n);
  return Array.from({ length: n }, (_, i) => base + (i < t % n ? 1 : 0));
}

/** The layout with `count` rings for `total` photos: existing heights kept, new rings get the defaults. */
export function layoutFor(total: number, count: number, current: readonly SpinRing[] = DEFAULT_RINGS): SpinRing[] {
  const n = Math.min(SPIN_MAX_RINGS, Math.max(1, Math.floor(count)));
  const split = total > 0 ? proposeSplit(total, n) : Array.from({ length: n }, () => SPIN_GOOD_PER_RING);
  return split.map((photos, i) => ({ photos, elevation: current[i]?.elevation ?? DEFAULT_ELEVATIONS[i] ?? 0 }));
}

/** Index ranges [start, end) of each ring's photos in the ordered list (rings are consecutive). */
export function ringRanges(rings: readonly SpinRing[]): [number, number][] {
  let at = 0;
  return rings.map((r) => {
    const start = at;
    at += Math.max(0, Math.floor(r.photos) || 0);
    return [start, at];
  });
}

/** The ring holding photo `index`, or -1 when the counts end before it. */
export function ringOf(index: number, rings: readonly SpinRing[]): number {
  return ringRanges(rings).findIndex(([s, e]) => index >= s && index < e);
}

interface FileLike {
  name: string;
  type: string;
  size: number;
}

const photos = (n: number) => `${n} ${n === 1 ? 'photo' : 'photos'}`;
const isAre = (n: number) => (n === 1 ? 'is' : 'are');

/**
 * Everything that stops the build, in the merchant's words, before anything is uploaded: each
 * file must be an image the upload page would take; 8–72 photos in all; at least 4 per ring;
 * the ring counts add up to the photos added; heights within ±80°. Empty when it may start
 * (and when no photo is added yet: the drop zone says what to do).
 */
export function spinSetProblems(files: readonly FileLike[], rings: readonly SpinRing[]): string[] {
  if (files.length === 0) return [];
  const out: string[] = [];
  for (const f of files) {
    const problem = validateImageFile(f);
    if (problem) out.push(`${f.name}: ${problem}`);
  }
  const n = files.length;
  if (n < SPIN_MIN_PHOTOS) out.push(`A spin set needs at least ${SPIN_MIN_PHOTOS} photos; ${photos(n)} ${isAre(n)} added.`);
  if (n > SPIN_MAX_PHOTOS) out.push(`A spin set takes at most ${SPIN_MAX_PHOTOS} photos; ${photos(n)} are added. Remove ${n - SPIN_MAX_PHOTOS}.`);
  if (rings.length < 1 || rings.length > SPIN_MAX_RINGS) out.push(`Use 1 to ${SPIN_MAX_RINGS} rings.`);
  rings.forEach((r, i) => {
    if (!Number.isInteger(r.photos) || r.photos < SPIN_MIN_PER_RING) {
      out.push(`Ring ${i + 1} needs at least ${SPIN_MIN_PER_RING} photos; it has ${Number.isFinite(r.photos) ? r.photos : 0}.`);
    }
    if (!Number.isFinite(r.elevation) || Math.abs(r.elevation) > SPIN_MAX_ELEVATION) {
      out.push(`Ring ${i + 1}: the camera height must be between -${SPIN_MAX_ELEVATION}° and ${SPIN_MAX_ELEVATION}°.`);
    }
  });
  const sum = rings.reduce((s, r) => s + (Number.isFinite(r.photos) ? Math.max(0, Math.floor(r.photos)) : 0), 0);
  if (sum !== n) out.push(`The rings add up to ${photos(sum)}, but ${photos(n)} ${isAre(n)} added: change the counts so they match.`);
  return out;
}

/** Where each photo of a ring of `n` sits on the turn when the steps are even: 360°·i/n. */
export function impliedAzimuths(n: number): number[] {
  const k = Math.max(0, Math.floor(n));
  return Array.from({ length: k }, (_, i) => (360 * i) / k);
}

/** The largest gap between neighbouring angles around the circle, in degrees (360 with fewer than two). */
export function largestGap(angles: readonly number[]): number {
  if (angles.length < 2) return 360;
  const a = angles.map((x) => ((x % 360) + 360) % 360).sort((x, y) => x - y);
  let gap = 360 - a[a.length - 1] + a[0];
  for (let i = 1; i < a.length; i++) gap = Math.max(gap, a[i] - a[i - 1]);
  return gap;
}

/** "30°", "22.5°": a gap as the coverage figure prints it. */
export function formatDegrees(d: number): string {
  return `${Math.round(d * 10) / 10}°`;
}

/** The figure's caption for one ring: "12 photos, largest gap 30°". */
export function coverageCaption(n: number): string {
  return `${photos(n)}, largest gap ${formatDegrees(largestGap(impliedAzimuths(n)))}`;
}

/** "Build from 24 photos". */
export const buildLabel = (n: number) => `Build from ${photos(n)}`;

/** "Uploading 7 of 24": the photo now being sent, counted from 1. */
export function uploadingLabel(done: number, total: number): string {
  return `Uploading ${Math.min(done + 1, total)} of ${total}`;
}

/** What the merchant has left, when the app knows it: "You have 50 AI credits left." (empty when unlimited or unknown). */
export function creditsLeftLabel(balance: number | null | undefined): string {
  if (typeof balance !== 'number' || !Number.isFinite(balance)) return '';
  const b = Math.max(0, Math.floor(balance));
  return `You have ${b} AI ${b === 1 ? 'credit' : 'credits'} left.`;
}

/**
 * "Built from 24 photos in 2 rings"; for a build cut from turntable videos (`videos`, the job's
 * spin.videos) "Built from 2 videos (24 frames)", as the merchant sent videos, not photos.
 */
export function spinViewsLabel(views: number, rings: number, videos?: number): string {
  return buildFromLabel(views, { rings, videos });
}

/** One line under each of the four steps when the build is a spin set: what the step does to it. */
export const SPIN_STEP_DESCRIPTIONS: Record<string, string> = {
  'Analyzing Image': 'Reading and cutting out every photo',
  'Deconstructing Components': "Finding the turntable's cameras",
  'Assembling 3D Model': 'Carving the shape from every silhouette',
  'Finalizing Details': 'Texturing and packing the model',
};

/** The same, for a build cut from turntable videos: its first step also cuts the frames. */
export const SPIN_VIDEO_STEP_DESCRIPTIONS: Record<string, string> = {
  ...SPIN_STEP_DESCRIPTIONS,
  'Analyzing Image': 'Cutting each video into photos, then reading every one',
};
