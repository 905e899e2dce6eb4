import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { IconUpload } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import { ACCEPT_ATTRIBUTE, MSG_PROCESS_FAILED } from '../../entities/creation/creation-rules';
import { useMakeCutoutMutation, useUploadProductPhotoMutation, type Cutout, type CutoutOptions } from '../../entities/product/add-product-api';
import { canAct, checkWizardPhoto, type PhotoDraft } from '../../entities/product/add-product-rules';

export interface Failure {
  message: string;
  needsCredits: boolean;
}

export function FailureAlert({ failure }: { failure: Failure | null }) {
  if (!failure) return null;
  return (
    <Alert tone="error">
      {failure.message}
      {failure.needsCredits && (
        <>
          {' '}
          <Link to="/workspace/subscription">See plans and credits</Link>
        </>
      )}
    </Alert>
  );
}

interface InitProps {
  draft: PhotoDraft;
  onDraft: (d: PhotoDraft) => void;
  busy: boolean;
  failure: Failure | null;
  onRemoveBackground: () => void;
  onGenerate: () => void;
  onSaveDraft: () => void;
}

/** init: the product name and one photo, uploaded at once through the upload API. */
export function InitStep({ draft, onDraft, busy, failure, onRemoveBackground, onGenerate, onSaveDraft }: InitProps) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [upload, { isLoading: uploading }] = useUploadProductPhotoMutation();
  const disabled = busy || uploading || !canAct(draft.name, draft.uploadId);

  const choose = async (files: FileList | null | undefined) => {
    if (!files?.length) return;
    const bad = checkWizardPhoto(files);
    if (bad) {
      setProblem(bad);
      return;
    }
    setProblem(null);
    const file = files[0];
    const res = await upload(file);
    if ('error' in res && res.error) {
      onDraft({ ...draft, uploadId: '', photoURL: '', fileName: '' });
      setProblem(errorMessage(res.error, MSG_PROCESS_FAILED));
      return;
    }
    if (res.data) onDraft({ ...draft, uploadId: res.data.uploadId, photoURL: res.data.previewURL || res.data.url, fileName: file.name });
    if (input.current) input.current.value = '';
  };

  const onDrop = (e: DragEvent<HTMLElement>) => {
    e.preventDefault();
    setDragging(false);
    if (!uploading) void choose(e.dataTransfer?.files);
  };

  return (
    <section className="card wizard__card" aria-label="Name and photo">
      <div className="field">
        <label htmlFor={`${id}-name`}>Product name</label>
        <input id={`${id}-name`} value={draft.name} maxLength={100} placeholder="e.g. Walnut side table" onChange={(e) => onDraft({ ...draft, name: e.target.value })} />
      </div>
      <input
        ref={input}
        id={`${id}-file`}
        className="visually-hidden"
        type="file"
        accept={ACCEPT_ATTRIBUTE}
        onChange={(e) => void choose(e.target.files)}
        disabled={uploading || busy}
        data-testid="wizard-photo-input"
      />
      <label
        htmlFor={`${id}-file`}
        className={dragging ? 'card upload__drop upload__drop--over wizard__drop' : 'card upload__drop wizard__drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        {draft.photoURL ? (
          <img className="wizard__photo" src={draft.photoURL} alt={`Photo ${draft.fileName}`} />
        ) : (
          <>
            <IconUpload size={36} />
            <span className="upload__drop-title">Drop a photo here, or click to choose one</span>
          </>
        )}
        <span className="muted">{uploading ? 'Uploading…' : draft.fileName ? `${draft.fileName} — click to choose another` : '.jpeg .jpg .png .webp, one file, up to 10MB'}</span>
      </label>
      {problem && <Alert tone="error">{problem}</Alert>}
      <FailureAlert failure={failure} />
      <div className="btn-row">
        <button type="button" className="btn btn--secondary" disabled={disabled} onClick={onRemoveBackground}>
          Remove background
        </button>
        <button type="button" className="btn btn--primary" disabled={disabled} onClick={onGenerate}>
          Generate 3D now
        </button>
        <button type="button" className="btn btn--ghost" disabled={disabled} onClick={onSaveDraft}>
          Save as draft
        </button>
      </div>
    </section>
  );
}

interface VerifyProps {
  draft: PhotoDraft;
  options: CutoutOptions;
  onOptions: (o: CutoutOptions) => void;
  busy: boolean;
  failure: Failure | null;
  onGenerate: () => void;
  onDifferentPhoto: () => void;
  onBack: () => void;
}

/**
 * verify: the original beside the server's background-removed cutout. Each toggle asks the
 * worker's segmenter again; the cutout shown is the one the server made for these options.
 */
export function VerifyStep({ draft, options, onOptions, busy, failure, onGenerate, onDifferentPhoto, onBack }: VerifyProps) {
  const [make, { isLoading }] = useMakeCutoutMutation();
  const [cutout, setCutout] = useState<Cutout | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const asked = useRef(0);

  useEffect(() => {
    if (!draft.uploadId) return;
    const n = ++asked.current;
    setProblem(null);
    void make({ uploadId: draft.uploadId, ...options }).then((res) => {
      // Only the answer to the latest toggles counts.
      if (n !== asked.current) return;
      if ('error' in res && res.error) return setProblem(errorMessage(res.error, MSG_PROCESS_FAILED));
      if (res.data) setCutout(res.data);
    });
  }, [draft.uploadId, options.cleanEdges, options.keepShadow, make]); // eslint-disable-line react-hooks/exhaustive-deps

  const current = cutout && cutout.cleanEdges === options.cleanEdges && cutout.keepShadow === options.keepShadow;
  return (
    <section className="card wizard__card" aria-label="Check the background removal">
      <div className="wizard__compare">
        <figure>
          <img src={draft.photoURL} alt="Original photo" />
          <figcaption>Original</figcaption>
        </figure>
        <figure className="wizard__cutout" aria-busy={isLoading || !current}>
          {cutout ? (
            <img
              src={cutout.url}
              alt="Photo with the background removed"
              data-testid="cutout"
              data-clean-edges={String(cutout.cleanEdges)}
              data-keep-shadow={String(cutout.keepShadow)}
              className={current ? undefined : 'wizard__stale'}
            />
          ) : (
            <div className="wizard__pending" role="status">
              <span className="spinner" aria-hidden="true" /> Removing background…
            </div>
          )}
          <figcaption>{isLoading ? 'Updating…' : 'Background removed'}</figcaption>
        </figure>
      </div>
      <div className="wizard__toggles">
        <label className="checkbox">
          <input type="checkbox" checked={options.cleanEdges} onChange={(e) => onOptions({ ...options, cleanEdges: e.target.checked })} />
          Clean edges
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={options.keepShadow} onChange={(e) => onOptions({ ...options, keepShadow: e.target.checked })} />
          Restore ground shadow
        </label>
      </div>
      {problem && <Alert tone="error">{problem}</Alert>}
      <FailureAlert failure={failure} />
      <div className="btn-row">
        <button type="button" className="btn btn--ghost" onClick={onBack} disabled={busy}>
          Back
        </button>
        <button type="button" className="btn btn--secondary" onClick={onDifferentPhoto} disabled={busy}>
          Upload a different photo
        </button>
        <button type="button" className="btn btn--primary" onClick={onGenerate} disabled={busy || !canAct(draft.name, draft.uploadId)}>
          Generate 3D
        </button>
      </div>
    </section>
  );
}
