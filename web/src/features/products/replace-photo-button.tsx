import { useRef, useState } from 'react';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { useUploadProductPhotoMutation } from '../../entities/product/add-product-api';
import type { ActionProblem } from '../../entities/blueprint/use-blueprint-actions';
import { rebuildProblem, type ProductDetail } from '../../entities/product/product-rules';
import { useReplaceProductPhotoMutation } from '../../entities/product/products-api';

/**
 * Replace photo (issue 29 item 17): choose a new photo for this product, confirm, and it is
 * uploaded and the product rebuilt from it with one AI credit. Variants, hotspots and buy
 * links stay. Refusals (no credit, a build running, a bad file) go to the page's alert.
 */
export function ReplacePhotoButton({ product: p, onProblem }: { product: ProductDetail; onProblem: (problem: ActionProblem | null) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [upload, { isLoading: uploading }] = useUploadProductPhotoMutation();
  const [replace, { isLoading: replacing }] = useReplaceProductPhotoMutation();
  const busy = uploading || replacing;
  // A draft has no model yet: its photo is swapped without a build or a credit (issue 50 P12).
  const draft = p.status === 'draft';

  const start = async () => {
    const f = file;
    setFile(null);
    if (!f) return;
    onProblem(null);
    const up = await upload(f);
    if ('error' in up && up.error) return onProblem({ message: errorMessage(up.error, 'The photo could not be uploaded. Please try again.'), upgrade: false });
    if (!up.data) return;
    const res = await replace({ id: p.id, uploadId: up.data.uploadId });
    if ('error' in res && res.error) onProblem(rebuildProblem(res.error));
  };

  return (
    <>
      <button
        type="button"
        className="btn btn--secondary btn--sm"
        disabled={busy || p.status === 'processing'}
        title={
          p.status === 'processing'
            ? 'A build is running.'
            : draft
              ? 'Choose a new photo for this draft; nothing is built until Generate 3D.'
              : 'Choose a new photo; the 3D model is built again from it (one AI credit).'
        }
        onClick={() => {
          onProblem(null);
          input.current?.click();
        }}
      >
        {busy ? 'Replacing…' : 'Replace photo'}
      </button>
      <input
        ref={input}
        type="file"
        accept="image/png,image/jpeg,image/webp"
        hidden
        data-testid="replace-photo-input"
        onChange={(e) => {
          const f = e.target.files?.[0] ?? null;
          e.target.value = '';
          if (f) setFile(f);
        }}
      />
      {file && (
        <Dialog title={draft ? 'Replace the photo?' : 'Replace the photo and rebuild?'} onClose={() => setFile(null)} role="alertdialog">
          <p className="muted">
            {draft
              ? `The draft “${p.name}” takes ${file.name} as its photo. Nothing is built and no credit is used until you choose Generate 3D.`
              : `“${p.name}” is built again from ${file.name}. This uses one AI credit; its variants, hotspots and buy links stay, and the product shows Processing 3D… until the new model is ready.`}
          </p>
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--ghost" onClick={() => setFile(null)}>
              Cancel
            </button>
            <button type="button" className="btn btn--primary" onClick={() => void start()}>
              {draft ? 'Replace photo' : 'Replace and rebuild'}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
