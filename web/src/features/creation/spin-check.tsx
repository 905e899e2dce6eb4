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
