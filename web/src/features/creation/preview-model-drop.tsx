import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { DEFAULT_QUERY } from '../../components/list/list-rules';
import { errorMessage } from '../../lib/api';
import { checkModelFiles } from '../../entities/product/add-product-rules';
import { ModelDropZone, useOwnModel } from '../../entities/product/own-model';
import { useCreateProductMutation, useListProductsQuery } from '../../entities/product/products-api';

/**
 * A .glb/.gltf dropped on Model Preview (/preview/{jobId}) is offered as a product's model (issue
 * 50 item 11): the products built from this blueprint can take it, or a new product is made from
 * the blueprint and takes it. Either way the file goes through the product's own-model upload
 * (magic bytes, size limits, the glTF validator in the worker), never straight into the viewer.
 */
export function PreviewModelDrop({ jobId, name, children }: { jobId: string; name: string; children: ReactNode }) {
  const [files, setFiles] = useState<File[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <ModelDropZone
        busy={!!files}
        hint="Drop a .glb or .gltf file to use it as a product's 3D model"
        onFiles={(f) => {
          const bad = checkModelFiles(f);
          setProblem(bad);
          if (!bad) setFiles(f);
        }}
      >
        {children}
      </ModelDropZone>
      {problem && <Alert tone="error">{problem}</Alert>}
      {files && <UseModelDialog jobId={jobId} name={name} files={files} onClose={() => setFiles(null)} />}
    </>
  );
}

function UseModelDialog({ jobId, name, files, onClose }: { jobId: string; name: string; files: File[]; onClose: () => void }) {
  const navigate = useNavigate();
  // The merchant's newest products (the largest page the list serves): those built from this
  // blueprint are offered.
  const { data, isLoading } = useListProductsQuery({ ...DEFAULT_QUERY, pageSize: 50 });
  const built = (data?.items ?? []).filter((p) => p.jobId === jobId);
  const [target, setTarget] = useState('');
  const [create, { isLoading: creating }] = useCreateProductMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const own = useOwnModel(target);
  const busy = creating || own.busy;
  const file = files.find((f) => /\.(glb|gltf)$/i.test(f.name))?.name ?? files[0]?.name ?? '';

  const use = async (productId: string) => {
    setProblem(null);
    let id = productId;
    if (!id) {
      const res = await create({ name, blueprintId: jobId });
      if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The product could not be created.'));
      id = res.data?.id ?? '';
    }
    setTarget(id);
  };
  // Once the target is chosen the hook is bound to it: send the files, then open the product.
  const { upload } = own;
  useEffect(() => {
    if (!target) return;
    void upload(files).then((ok) => {
      if (ok) navigate(`/workspace/product/${encodeURIComponent(target)}`);
      else setTarget(''); // the problem shows; a choice may be tried again
    });
  }, [target, upload, files, navigate]);

  return (
    <Dialog title="Use this 3D file?" onClose={busy ? () => undefined : onClose}>
      <p className="muted">
        {file} can replace the model of a product. It is checked first (file type, size and a glTF validation); the product keeps its variants,
        hotspots and buy links.
      </p>
      {isLoading ? (
        <p className="muted">Looking for products built from this blueprint…</p>
      ) : (
        <div className="btn-row" data-testid="use-model-choices">
          {built.map((p) => (
            <button key={p.id} type="button" className="btn btn--primary" disabled={busy} onClick={() => void use(p.id)}>
              Use as the model of “{p.name}”
            </button>
          ))}
          <button type="button" className={built.length ? 'btn btn--secondary' : 'btn btn--primary'} disabled={busy} onClick={() => void use('')}>
            Create a product “{name}” with it
          </button>
        </div>
      )}
      {own.stage !== 'idle' && (
        <p className="muted" role="status">
          {own.stage === 'uploading' ? 'Uploading model…' : 'Preparing model…'}
        </p>
      )}
      {(problem || own.problem) && <Alert tone="error">{problem || own.problem}</Alert>}
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" disabled={busy} onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
