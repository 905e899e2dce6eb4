import { Alert } from '../../components/alert';
import { isLowFidelity } from '../../entities/creation/fidelity';

/**
 * Under a model built from a spin set: what to check, and what to change in the capture when a
 * part is missing. A carved model has no fidelity score, or a low one when the turntable's
 * cameras were not found; the one-photo and four-photo tips (add photos, a quarter turn apart)
 * do not apply to a turntable capture.
 */
export function SpinCheck({ score, views }: { score: number | null; views: number }) {
  if (score !== null && !isLowFidelity(score)) return null;
  return (
    <Alert tone="info">
      <strong>Check this model from every side before you publish.</strong> It is carved from the outlines of {views} photos
      {score === null ? ' and has no fidelity score' : ` (mesh fidelity ${score}%)`}: hollows no outline shows, such as a bowl's
      inside, stay filled. If a part is missing or misshapen, shoot the spin set again:
      <ul>
        <li>keep the camera still during each turn, and turn the table by even steps;</li>
        <li>keep the whole product in every photo, on the same plain backdrop;</li>
        <li>check that the rings' photo counts and camera heights match how you shot them.</li>
      </ul>
    </Alert>
  );
}
