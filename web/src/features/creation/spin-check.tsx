import { Alert } from '../../components/alert';
import { isLowFidelity } from '../../entities/creation/fidelity';

/**
 * Under a model built from a spin set: what to check, and what to change in the capture when a
 * part is missing. A carved model has no fidelity score, or a low one when the turntable's
 * cameras were not found; the one-photo and four-photo tips (add photos, a quarter turn apart)
 * do not apply to a turntable capture. `videos` (the job's spin.videos) says it was cut from
 * turntable videos: the tips are then about filming.
 */
export function SpinCheck({ score, views, videos }: { score: number | null; views: number; videos?: number }) {
  if (score !== null && !isLowFidelity(score)) return null;
  const fromVideos = !!videos;
  return (
    <Alert tone="info">
      <strong>Check this model from every side before you publish.</strong> It is carved from the outlines of {views}{' '}
      {fromVideos ? `frames of your ${videos === 1 ? 'video' : 'videos'}` : 'photos'}
      {score === null ? ' and has no fidelity score' : ` (mesh fidelity ${score}%)`}: hollows no outline shows, such as a bowl's
      inside, stay filled. If a part is missing or misshapen, {fromVideos ? 'film the turntable again' : 'shoot the spin set again'}:
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
 * The photos a spin build left out of the carve (stats.spin.dropped: numbered from 1 in the order
 * sent), in order; none when the stats have no such list.
 */
export function spinLeftOut(stats: Record<string, unknown> | null): number[] {
  const dropped = (stats?.spin as { dropped?: unknown } | null | undefined)?.dropped;
  if (!Array.isArray(dropped)) return [];
  return dropped
    .map((d) => (d && typeof d === 'object' ? (d as { photo?: unknown }).photo : undefined))
    .filter((p): p is number => typeof p === 'number' && Number.isInteger(p) && p >= 1)
    .sort((a, b) => a - b);
}

/** "4", "4 and 5", "4, 5, 23 and 24". */
function listNumbers(ns: number[]): string {
  return ns.length === 1 ? `${ns[0]}` : `${ns.slice(0, -1).join(', ')} and ${ns[ns.length - 1]}`;
}

/**
 * Which photos of a spin set the model was carved without, and why (the worker leaves out a photo
 * whose outline disagrees with the others, since carving with it would cut away what they show).
 * A merchant who knows which photos failed can check them, and reshoot just those. A build from
 * videos names no frame numbers: the merchant never saw the frames.
 */
export function SpinLeftOut({ stats, views, videos }: { stats: Record<string, unknown> | null; views: number; videos?: number }) {
  const left = spinLeftOut(stats);
  if (!left.length) return null;
  const n = left.length;
  const what = videos ? 'frames' : 'photos';
  const who = videos
    ? `${n} of the ${views} frames taken from your ${videos === 1 ? 'video' : 'videos'} ${n === 1 ? 'was' : 'were'}`
    : `${n === 1 ? 'Photo' : 'Photos'} ${listNumbers(left)} ${n === 1 ? 'was' : 'were'}`;
  return (
    <p className="muted" data-testid="spin-left-out">
      {who} left out of the model: {n === 1 ? 'its outline disagrees' : 'their outlines disagree'} with the other {what} (a shadow, a
      reflection or the turntable taken for the product, or part of the product lost against the backdrop). The model is carved from
      the other {views - n}.
    </p>
  );
}
