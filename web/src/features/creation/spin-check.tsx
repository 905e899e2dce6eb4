import { Alert } from '../../components/alert';
import { isLowFidelity } from '../../entities/creation/fidelity';

/**
 * Under a model built from a spin set: what to check, and what to change in the capture when a
 * part is missing. A carved model has no fidelity score, or a low one when the turntable's
 * cameras were not found; the one-photo and four-photo tips (add photos, a quarter turn apart)
 * do not apply to a turntable capture. `videos` (the job's spin.videos) says it was cut from
 * turntable videos: the tips are then about filming. `stats` (the job's) says where the photos
 * disagree with the model's colours: a hollow the carve filled, named when it lowered the score.
 */
export function SpinCheck({ score, views, videos, stats = null }: { score: number | null; views: number; videos?: number; stats?: Record<string, unknown> | null }) {
  if (score !== null && !isLowFidelity(score)) return null;
  const fromVideos = !!videos;
  const filled = spinFilledShare(stats);
  return (
    <Alert tone="info">
      <strong>Check this model from every side before you publish.</strong> It is carved from the outlines of {views}{' '}
      {fromVideos ? `frames of your ${videos === 1 ? 'video' : 'videos'}` : 'photos'}
      {score === null ? ' and has no fidelity score' : ` (mesh fidelity ${score}%)`}: hollows no outline shows, such as a bowl's
      inside, stay filled.
      {filled !== null && (
        <span data-testid="spin-filled">
          {' '}
          Here the {fromVideos ? 'frames show' : 'photos show'} other colours than the model on {filled}% of its surface: a hollow, such as a dish's
          inside or a car's open windows, was filled there.
        </span>
      )}{' '}
      If a part is missing or misshapen, {fromVideos ? 'film the turntable again' : 'shoot the spin set again'}:
      {fromVideos ? (
        <ul>
          <li>keep the phone still on its stand, and turn the table slowly and evenly, one full turn and a little more;</li>
          <li>keep the whole product in frame all the way round, on the same plain backdrop;</li>
          <li>film each height in one take, without zooming or cutting, and list the videos lowest camera first.</li>
        </ul>
      ) : (
        <ul>
          <li>keep the camera still during each turn, and turn the table by even steps;</li>
          <li>keep the whole product in every photo, on the same plain backdrop;</li>
          <li>check that the rings' photo counts and camera heights match how you shot them.</li>
        </ul>
      )}
    </Alert>
  );
}

/**
 * The share of a spin model's surface, in whole percent, where its photos disagree about its colour
 * (stats.spin.surfaceDisagreement, 0–1): a hollow the carve filled. Null under 4 % (matte products
 * the photos agree on stay under 2 %), or when the stats have no such figure.
 */
export function spinFilledShare(stats: Record<string, unknown> | null): number | null {
  const d = (stats?.spin as { surfaceDisagreement?: unknown } | null | undefined)?.surfaceDisagreement;
  if (typeof d !== 'number' || !Number.isFinite(d) || d < SPIN_FILLED_FROM || d > 1) return null;
  return Math.round(d * 100);
}

/** The surface disagreement from which a spin model's tips name a filled hollow (cap 90 on the server). */
export const SPIN_FILLED_FROM = 0.04;

/** Why a spin build left a photo out (stats.spin.dropped[].kind). */
export type SpinDropKind = 'outline' | 'no-product';

/**
 * The photos a spin build left out of the carve (stats.spin.dropped: numbered from 1 in the order
 * sent), in order, each with why: its outline disagreed with the others ('outline', also what a
 * build from before the kinds reports), or no product could be told from the backdrop in it
 * ('no-product'); none when the stats have no such list.
 */
export function spinLeftOut(stats: Record<string, unknown> | null): { photo: number; kind: SpinDropKind }[] {
  const dropped = (stats?.spin as { dropped?: unknown } | null | undefined)?.dropped;
  if (!Array.isArray(dropped)) return [];
  return dropped
    .map((d) => (d && typeof d === 'object' ? (d as { photo?: unknown; kind?: unknown }) : {}))
    .filter((d): d is { photo: number; kind?: unknown } => typeof d.photo === 'number' && Number.isInteger(d.photo) && d.photo >= 1)
    .map((d) => ({ photo: d.photo, kind: d.kind === 'no-product' ? ('no-product' as const) : ('outline' as const) }))
    .sort((a, b) => a.photo - b.photo);
}

/** "4", "4 and 5", "4, 5, 23 and 24". */
function listNumbers(ns: number[]): string {
  return ns.length === 1 ? `${ns[0]}` : `${ns.slice(0, -1).join(', ')} and ${ns[ns.length - 1]}`;
}

/**
 * Which photos of a spin set the model was carved without, and why (the worker leaves out a photo
 * whose outline disagrees with the others, since carving with it would cut away what they show,
 * and one in which no product could be told from the backdrop). A merchant who knows which photos
 * failed can check them, and reshoot just those. A build from videos names no frame numbers: the
 * merchant never saw the frames.
 */
export function SpinLeftOut({ stats, views, videos }: { stats: Record<string, unknown> | null; views: number; videos?: number }) {
  const left = spinLeftOut(stats);
  if (!left.length) return null;
  const what = videos ? 'frames' : 'photos';
  const who = (ns: number[]) => {
    const n = ns.length;
    return videos
      ? `${n} of the ${views} frames taken from your ${videos === 1 ? 'video' : 'videos'} ${n === 1 ? 'was' : 'were'}`
      : `${n === 1 ? 'Photo' : 'Photos'} ${listNumbers(ns)} ${n === 1 ? 'was' : 'were'}`;
  };
  const outline = left.filter((d) => d.kind === 'outline').map((d) => d.photo);
  const noProduct = left.filter((d) => d.kind === 'no-product').map((d) => d.photo);
  return (
    <p className="muted" data-testid="spin-left-out">
      {outline.length > 0 && (
        <>
          {who(outline)} left out of the model: {outline.length === 1 ? 'its outline disagrees' : 'their outlines disagree'} with the
          other {what} (a shadow, a reflection or the turntable taken for the product, or part of the product lost against the
          backdrop).{' '}
        </>
      )}
      {noProduct.length > 0 && (
        <>
          {who(noProduct)} left out of the model: the product could not be told from the background in{' '}
          {noProduct.length === 1 ? 'it' : 'them'}.{' '}
        </>
      )}
      The model is carved from the other {views - left.length}.
    </p>
  );
}
