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
