import { Alert } from '../../components/alert';

/**
 * Below this mesh fidelity score a model is flagged with tips. It mirrors the
 * server's reconstruct.FidelityWarnBelow (70: about 0.83 silhouette overlap when
 * re-rendered through the photo's camera; good models score 79–96; a model whose
 * depth had to be guessed is always under it).
 */
export const FIDELITY_WARN_BELOW = 70;

/** The score from an API answer: an integer 0–100, else null (no score). */
export function parseFidelity(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100 ? v : null;
}

export const isLowFidelity = (score: number | null): boolean => score !== null && score < FIDELITY_WARN_BELOW;

/** "Mesh fidelity 87%", the spec's wording; marked when low. */
export function FidelityBadge({ score }: { score: number | null }) {
  if (score === null) return null;
  const low = isLowFidelity(score);
  return (
    <span className={`status ${low ? 'status--processing' : 'status--ready'}`} data-testid="fidelity" data-low={low}>
      Mesh fidelity {score}%{low && ' (low)'}
    </span>
  );
}

/** The warning and tips shown under a low-fidelity model. */
export function FidelityWarning({ score }: { score: number | null }) {
  if (!isLowFidelity(score)) return null;
  return (
    <Alert tone="info">
      <strong>This model matches your photo only loosely (mesh fidelity {score}%).</strong> For a closer model, upload a new photo:
      <ul>
        <li>the product alone, whole, with some space around it;</li>
        <li>on a plain background that contrasts with the product;</li>
        <li>from the front and a little above, in soft even light without strong reflections;</li>
        <li>round products and boxes are rebuilt from their outline; for other shapes the depth is estimated.</li>
      </ul>
    </Alert>
  );
}
