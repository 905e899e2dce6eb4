/** Shown when the viewer script cannot be loaded (spec §8). */
export const MODEL_VIEWER_LOAD_ERROR = 'Failed to load model-viewer';

let pending: Promise<void> | null = null;

/**
 * Loads @google/model-viewer (and three.js) on first use. The dynamic import keeps
 * the ~300 KB viewer chunk out of every page that does not show 3D; a failed load is
 * forgotten so the next attempt retries.
 */
export function loadModelViewer(): Promise<void> {
  if (typeof customElements !== 'undefined' && customElements.get('model-viewer')) return Promise.resolve();
  pending ??= import('@google/model-viewer')
    .then(() => customElements.whenDefined('model-viewer'))
    .then(() => undefined)
    .catch((e: unknown) => {
      pending = null;
      throw new Error(MODEL_VIEWER_LOAD_ERROR, { cause: e });
    });
  return pending;
}
