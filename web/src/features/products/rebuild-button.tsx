import { useState } from 'react';
import { Dialog } from '../../components/dialog';
import type { ActionProblem } from '../../entities/blueprint/use-blueprint-actions';
import { rebuildProblem, type ProductDetail } from '../../entities/product/product-rules';
import { useRebuildProductMutation } from '../../entities/product/products-api';
import { creditsFor } from '../../entities/creation/more-angles';

/**
 * Rebuild (Retry build after a failure): a new build of the product's photo (every
 * angle of its last build), attached to the same product. It spends one AI credit per
 * photo, so it asks first, saying how many;
 * the server's refusals (no credit left, a build still running) go to the
 * page's problem alert, worded by the server, with the upgrade link when
 * credit is the problem.
 */
export function RebuildButton({ product: p, onProblem }: { product: ProductDetail; onProblem: (problem: ActionProblem | null) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [rebuild, { isLoading }] = useRebuildProductMutation();
  // A draft (photo saved without a build) is built for the first time: Generate 3D.
  const draft = p.status === 'draft';
  const label = draft ? 'Generate 3D' : p.status === 'error' ? 'Retry build' : 'Rebuild 3D';
  const buildable = draft ? !!p.photoURL : !!p.jobId;
  // A draft has one photo; a rebuild keeps every photo of the last build, and pays for each.
  const credits = creditsFor(p.views);
  const price = credits === 1 ? 'one AI credit' : `${credits} AI credits, one per photo`;
  const source = credits === 1 ? 'its photo' : `its ${credits} photos`;

  const start = async () => {
    setConfirming(false);
    onProblem(null);
    const res = await rebuild(p.id);
    if ('error' in res && res.error) onProblem(rebuildProblem(res.error));
  };

  return (
    <>
      <button
        type="button"
        className={draft ? 'btn btn--primary btn--sm' : 'btn btn--secondary btn--sm'}
        disabled={isLoading || p.status === 'processing' || !buildable}
        title={p.status === 'processing' ? 'A build is running.' : draft ? `Builds the 3D model from the photo (${price}).` : `Builds the 3D model again from ${source} (${price}).`}
        onClick={() => {
          onProblem(null);
          setConfirming(true);
        }}
      >
        {isLoading ? 'Starting…' : label}
      </button>
      {confirming && (
        <Dialog title={`${label}?`} onClose={() => setConfirming(false)} role="alertdialog">
          <p className="muted">
            The 3D model of “{p.name}” is built {draft ? '' : 'again '}from {source}. This uses {price}, and the product shows Processing 3D… until the new model is ready.
          </p>
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--ghost" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button type="button" className="btn btn--primary" onClick={start}>
              {label}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
