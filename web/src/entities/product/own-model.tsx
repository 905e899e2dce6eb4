import { useCallback, useState, type DragEvent, type ReactNode } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useUploadProductModelMutation, useWaitProductModelMutation } from './add-product-api';
import { checkModelFiles, MODEL_ACCEPT, OWN_MODEL_LABEL } from './add-product-rules';
import './own-model.css';

export interface OwnModel {
  /** Sends the files (already checked here) through POST /products/{id}/model; true when the model is in use. */
  upload: (files: File[]) => Promise<boolean>;
  busy: boolean;
  /** What the button says while it works: "Uploading model…", "Preparing model…", else the caller's label. */
  stage: 'idle' | 'uploading' | 'preparing';
  problem: string | null;
}

/**
 * The merchant's own .glb/.gltf replaces a product's model: uploaded, then prepared (magic bytes,
 * size limits, validated, normalised, thumbnailed) by the server's worker. One path for the
 * wizard's configurator, the product page and a file dropped on a viewer (issue 50 item 11).
 */
export function useOwnModel(productId: string): OwnModel {
  const [send, { isLoading: uploading }] = useUploadProductModelMutation();
  const [wait, { isLoading: preparing }] = useWaitProductModelMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const upload = useCallback(
    async (files: File[]) => {
      if (!files.length) return false;
      const bad = checkModelFiles(files);
      if (bad) {
        setProblem(bad);
        return false;
      }
      setProblem(null);
      const res = await send({ productId, files });
      if ('error' in res && res.error) {
        setProblem(errorMessage(res.error, 'This model could not be used.'));
        return false;
      }
      const submission = res.data?.submission;
      if (!submission) return true;
      const done = await wait({ productId, submissionId: submission.id });
      if ('error' in done && done.error) {
        setProblem(errorMessage(done.error, 'This model could not be used.'));
        return false;
      }
      return true;
    },
    [productId, send, wait],
  );
  return { upload, busy: uploading || preparing, stage: uploading ? 'uploading' : preparing ? 'preparing' : 'idle', problem };
}

/** The file button ("Use my own 3D file") and the problem the last try met. */
export function OwnModelButton({
  own,
  label = OWN_MODEL_LABEL,
  className = 'btn btn--ghost',
  inlineProblem = true,
}: {
  own: OwnModel;
  label?: string;
  className?: string;
  /** false: the caller shows own.problem where it fits (a header row has no room for an alert). */
  inlineProblem?: boolean;
}) {
  return (
    <>
      <label className={own.busy ? `${className} btn--disabled` : className}>
        {own.stage === 'uploading' ? 'Uploading model…' : own.stage === 'preparing' ? 'Preparing model…' : label}
        <input
          type="file"
          className="visually-hidden"
          accept={MODEL_ACCEPT}
          multiple
          disabled={own.busy}
          data-testid="own-model-input"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            void own.upload(files);
          }}
        />
      </label>
      {inlineProblem && own.problem && <Alert tone="error">{own.problem}</Alert>}
    </>
  );
}

/** Whether a drag carries files (a model may be among them; the names are known only on drop). */
function carriesFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}

/**
 * Wraps a viewer so that a .glb/.gltf dropped on it is used as the product's model (spec §2
 * configurator: "the user may drop in an own .glb or .gltf model"). Other drops are left alone.
 */
export function ModelDropZone({ onFiles, busy, children, hint = "Drop a .glb or .gltf file to use it as this product's 3D model" }: { onFiles: (files: File[]) => void; busy: boolean; children: ReactNode; hint?: string }) {
  const [over, setOver] = useState(false);
  return (
    <div
      className={over ? 'model-drop model-drop--over' : 'model-drop'}
      data-testid="model-drop"
      onDragOver={(e) => {
        if (!carriesFiles(e) || busy) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        setOver(false);
        if (!carriesFiles(e)) return;
        // Taken here, so the browser never opens the file in place of the app; a file that is
        // not a model gets the same message as the file button's.
        e.preventDefault();
        if (!busy) onFiles(Array.from(e.dataTransfer?.files ?? []));
      }}
    >
      {children}
      {over && (
        <div className="model-drop__hint" aria-hidden="true">
          {hint}
        </div>
      )}
    </div>
  );
}
