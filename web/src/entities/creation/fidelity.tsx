import { Alert } from '../../components/alert';

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

/** The score from an API answer: an integer 0–100, else null (no score). */
export function parseFidelity(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100 ? v : null;
}

export const isLowFidelity = (score: number | null): boolean => score !== null && score < FIDELITY_WARN_BELOW;

/**
 * What the score measures, in the merchant's words (merchant walk 4, H2): a green score says the
 * model matches the photo, not that the sides no photo shows are right.
 */
export const FIDELITY_MEASURES = 'How closely the model matches your photo. The top, back and underside are estimated: orbit the model before you publish.';

/** A multi-photo build has no score (reconstruct/multiview.go says why); its badge says so. */
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
    <span className={`status ${low ? 'status--processing' : 'status--ready'}`} data-testid="fidelity" data-low={low} title={FIDELITY_MEASURES}>
      Mesh fidelity {score}%{low && ' (low)'}
    </span>
  );
}

/**
 * The warning and tips under a model a merchant should look at twice: a low score, or a
 * multi-photo build, which has none (a pose that is off by a few degrees carves thin parts such
 * as chair legs away, and no score the builder can compute notices it).
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
export function FidelityCaption({ score }: { score: number | null }) {
  if (score === null || isLowFidelity(score)) return null;
  return (
    <p className="muted fidelity__caption" data-testid="fidelity-caption">
      {FIDELITY_MEASURES}
    </p>
  );
}
