import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useUploadProductModelMutation, useWaitProductModelMutation } from '../../entities/product/add-product-api';
import { checkModelFiles, MODEL_ACCEPT, saveCreated, wizardURL } from '../../entities/product/add-product-rules';
import { useCreateProductMutation } from '../../entities/product/products-api';

/** Said when the model file is chosen before the product has a name. */
export const MSG_NAME_FIRST = 'Enter a product name first.';

/**
 * The wizard's other first step (issue 50 item 11): "I have a .glb/.gltf". The product is made
 * for the merchant's own model (a draft with no photo, no credit), the file goes through the same
 * checked own-model upload as the configurator's, and the wizard opens its configurator.
 */
export function OwnModelStart({ name, onLimit }: { name: string; onLimit: (message: string) => void }) {
  const id = useId();
  const navigate = useNavigate();
  const [create, { isLoading: creating }] = useCreateProductMutation();
  const [send, { isLoading: uploading }] = useUploadProductModelMutation();
  const [wait, { isLoading: preparing }] = useWaitProductModelMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const busy = creating || uploading || preparing;

  const start = async (files: File[]) => {
    if (!files.length) return;
    if (!name.trim()) return setProblem(MSG_NAME_FIRST);
    const bad = checkModelFiles(files);
    if (bad) return setProblem(bad);
    setProblem(null);
    const made = await create({ name: name.trim(), ownModel: true });
    if ('error' in made && made.error) {
      if ((made.error as { status?: unknown }).status === 403) return onLimit(errorMessage(made.error, ''));
      return setProblem(errorMessage(made.error, 'The product could not be created.'));
    }
    const productId = made.data?.id ?? '';
    if (!productId) return;
    // Back from the configurator offers this product rather than a second one.
    saveCreated({ id: productId, name: name.trim() });
    const res = await send({ productId, files });
    let failed = 'error' in res && res.error ? errorMessage(res.error, 'This model could not be used.') : '';
    const submission = !failed && res.data?.submission;
    if (submission) {
      const done = await wait({ productId, submissionId: submission.id });
      if ('error' in done && done.error) failed = errorMessage(done.error, 'This model could not be used.');
    }
    // The configurator says what went wrong and offers the file button again.
    navigate(wizardURL('configurator', productId), { state: { wizard: true, ownModelProblem: failed || undefined } });
  };

  return (
    <section className="card wizard__card wizard__own" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="section-title">
        I have a .glb/.gltf
      </h2>
      <p className="muted">Skip the photo: name the product above, then choose your 3D file. It is checked and used as it is; no AI credit is spent.</p>
      <div className="btn-row">
        <label className={busy ? 'btn btn--secondary btn--disabled' : 'btn btn--secondary'}>
          {creating ? 'Creating product…' : uploading ? 'Uploading model…' : preparing ? 'Preparing model…' : 'Choose a .glb or .gltf file'}
          <input
            type="file"
            className="visually-hidden"
            accept={MODEL_ACCEPT}
            multiple
            disabled={busy}
            data-testid="wizard-model-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              void start(files);
            }}
          />
        </label>
      </div>
      {problem && <Alert tone="error">{problem}</Alert>}
    </section>
  );
}
