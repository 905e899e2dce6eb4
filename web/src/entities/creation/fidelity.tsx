import { Alert } from '../../components/alert';
import './fidelity.css';

/**
 * Below this mesh fidelity score a model is flagged with tips. It mirrors the
 * server's reconstruct.FidelityWarnBelow: the score is shape confidence (how well
 * the model re-renders as the photo, capped by how much of its shape one photo
 * leaves to a guess), so every model whose depth or hidden sides were guessed is
 * under it.
 */
export const FIDELITY_WARN_BELOW = 70;

/** What a merchant is told about a low score; mirrors reconstruct.LowFidelityAdvice. */
export const LOW_FIDELITY_ADVICE = 'Add three more photos from the sides and back for an accurate shape.';

/**
 * What a merchant is told about a spin set's low score: its two halves (every other photo of each
 * ring), each rebuilt on its own, disagree, so the photos do not describe one shape.
 */
export const LOW_FIDELITY_ADVICE_SPIN =
  'Its photos disagree about its shape: shoot the spin set again with the camera still, the table turned evenly and the whole product in every photo.';

/** The score from an API answer: an integer 0–100, else null (no score). */
export function parseFidelity(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100 ? v : null;
}

/**
 * The builder's warnings in an answer (a job's `warnings`, a product's `buildWarnings`): its
 * non-empty sentences, [] when absent or malformed.
 */
export function parseWarnings(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((w): w is string => typeof w === 'string' && w.trim() !== '') : [];
}

/**
 * The builder's sentences about a model it built but doubts, beside the model: a photo that cuts
 * the product off at its left, right or top edge gives a model that stops at the frame, and a
 * merchant who is not told would publish it as the whole product.
 */
export function BuildWarnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div className="build-warnings" data-testid="build-warnings">
      {warnings.map((w) => (
        <Alert tone="info" key={w}>
          {w}
        </Alert>
      ))}
    </div>
  );
}

export const isLowFidelity = (score: number | null): boolean => score !== null && score < FIDELITY_WARN_BELOW;

/**
 * What the score measures, in the merchant's words (merchant walk 4, H2): a green score says the
 * model matches the photo, not that the sides no photo shows are right.
 */
export const FIDELITY_MEASURES = 'How closely the model matches your photo. The top, back and underside are estimated: orbit the model before you publish.';

/**
 * What a spin set's score measures: only a spin set (views > 1) has a score among multi-photo
 * builds, and it says how well two halves of it agree, not that every hollow is right.
 */
export const FIDELITY_MEASURES_SPIN =
  "How closely two halves of your spin set, each rebuilt on its own, agree with this model. Hollows no outline shows, such as a bowl's inside, stay filled: orbit the model before you publish.";

/** What a build's score measures: a multi-photo build with a score is a spin set. */
export const fidelityMeasures = (views: number): string => (views > 1 ? FIDELITY_MEASURES_SPIN : FIDELITY_MEASURES);

/** What a merchant is told about a build's low score: a multi-photo build with a score is a spin set. */
export const lowFidelityAdvice = (views: number): string => (views > 1 ? LOW_FIDELITY_ADVICE_SPIN : LOW_FIDELITY_ADVICE);

/** A hand-held multi-photo build has no score (reconstruct/multiview.go says why); its badge says so. */
export const FIDELITY_NOT_MEASURED = 'Mesh fidelity not measured';

const unscoredMultiPhoto = (score: number | null, views: number): boolean => score === null && views > 1;

/** "Mesh fidelity 87%", the spec's wording; marked when low; "not measured" for a multi-photo build. */
export function FidelityBadge({ score, views = 1 }: { score: number | null; views?: number }) {
  if (unscoredMultiPhoto(score, views)) {
    return (
      <span className="status status--processing" data-testid="fidelity" data-low="unknown" title={`Built from ${views} photos: no score yet. Orbit the model before you publish.`}>
        {FIDELITY_NOT_MEASURED}
      </span>
    );
  }
  if (score === null) return null;
  const low = isLowFidelity(score);
  return (
    <span className={`status ${low ? 'status--processing' : 'status--ready'}`} data-testid="fidelity" data-low={low} title={fidelityMeasures(views)}>
      Mesh fidelity {score}%{low && ' (low)'}
    </span>
  );
}

/**
 * The warning and tips under a model a merchant should look at twice: a low score (a spin set's
 * says to shoot it again, a single photo's to add photos), or a hand-held multi-photo build, which
 * has none (a pose that is off by a few degrees carves thin parts such as chair legs away, and no
 * score the builder can compute notices it).
 */
export function FidelityWarning({ score, views = 1 }: { score: number | null; views?: number }) {
  if (unscoredMultiPhoto(score, views)) {
    return (
      <Alert tone="info">
        <strong>Check this model from every side before you publish.</strong> It is built from {views} photos and has no fidelity score: where
        a photo is not taken where the builder expects it, thin parts such as legs and handles are cut away. If a part is missing:
        <ul>
          <li>take the photos a quarter turn apart (front, left, back, right), from the same height and distance;</li>
          <li>keep the whole product in every photo, on the same plain background;</li>
          <li>or build from the front photo alone and compare the two.</li>
        </ul>
      </Alert>
    );
  }
  if (!isLowFidelity(score)) return null;
  if (views > 1) {
    return (
      <Alert tone="info">
        <strong>{LOW_FIDELITY_ADVICE_SPIN}</strong> (mesh fidelity {score}%)
      </Alert>
    );
  }
  return (
    <Alert tone="info">
      <strong>{LOW_FIDELITY_ADVICE}</strong> One photo shows one side, so part of this shape is estimated (mesh fidelity{' '}
      {score}%). For each photo:
      <ul>
        <li>the product alone, whole, with some space around it;</li>
        <li>on a plain background that contrasts with the product, light parts included;</li>
        <li>from a little above, in soft even light without strong reflections;</li>
        <li>round products and boxes are rebuilt from one outline; other shapes need their sides and back.</li>
      </ul>
    </Alert>
  );
}

/** A high score's caption: what it measures, so a green 91 % is not read as "nothing to check". */
export function FidelityCaption({ score, views = 1 }: { score: number | null; views?: number }) {
  if (score === null || isLowFidelity(score)) return null;
  return (
    <p className="muted fidelity__caption" data-testid="fidelity-caption">
      {fidelityMeasures(views)}
    </p>
  );
}
