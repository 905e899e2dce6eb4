import { useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { viewsLabel } from '../../entities/creation/more-angles';
import { useGetBlueprintsQuery } from '../../entities/blueprint/blueprints-api';
import { MAX_NAME_LENGTH } from '../../entities/product/product-rules';
import { useCreateProductMutation } from '../../entities/product/products-api';

/**
 * Add product from an existing blueprint: pick one of the merchant's ready
 * blueprints and name the product, or go to the photo wizard (/workspace/add-product).
 */
export function AddProductDialog({ onClose, catalogId }: { onClose: () => void; catalogId?: string }) {
  const id = useId();
  const navigate = useNavigate();
  const { data: blueprints = [], isLoading, error } = useGetBlueprintsQuery();
  const ready = blueprints.filter((b) => b.status === 'ready');
  const [picked, setPicked] = useState('');
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // The refusal was the plan's (a limit): said here, with the way to the plans.
  const [planProblem, setPlanProblem] = useState(false);
  const [create, { isLoading: creating }] = useCreateProductMutation();
  const chosen = ready.find((b) => b.id === picked);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setPlanProblem(false);
    if (!chosen) return setProblem('Pick a blueprint for this product.');
    const n = (name.trim() || chosen.name).slice(0, MAX_NAME_LENGTH);
    const res = await create({ name: n, blueprintId: chosen.id, catalogId });
    if ('error' in res && res.error) {
      const status = (res.error as { status?: unknown }).status;
      setPlanProblem(status === 402 || status === 403);
      return setProblem(errorMessage(res.error, 'The product could not be created.'));
    }
    onClose();
    if (res.data?.id) navigate(`/workspace/product/${encodeURIComponent(res.data.id)}`);
  };

  return (
    <Dialog title="Add product" onClose={onClose}>
      <p>
        <Link to="/workspace/add-product" className="btn btn--primary" onClick={onClose}>
          Start from a photo
        </Link>{' '}
        <span className="muted">or make a product from one of your blueprints:</span>
      </p>
      {isLoading ? (
        <LoadingScreen />
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'Your blueprints could not be loaded.')}</Alert>
      ) : ready.length === 0 ? (
        <p className="muted">
          A product starts from a 3D model. <Link to="/workspace/upload">Upload a photo</Link> to build your first blueprint, then add it here.
        </p>
      ) : (
        <form className="form" onSubmit={submit}>
          <fieldset className="blueprint-pick">
            <legend>Blueprint</legend>
            <ul className="blueprint-pick__list">
              {ready.map((b) => (
                <li key={b.id}>
                  <label className={picked === b.id ? 'blueprint-pick__item blueprint-pick__item--on' : 'blueprint-pick__item'}>
                    {b.thumbnailURL ? <img src={b.thumbnailURL} alt="" /> : <span className="blueprint-pick__blank" />}
                    <span className="checkbox">
                      <input type="radio" name={`${id}-bp`} value={b.id} checked={picked === b.id} onChange={() => setPicked(b.id)} aria-describedby={`${id}-meta-${b.id}`} />
                      {b.name}
                    </span>
                    {/* Told apart from a build of the same name (walk 4, H1); the radio's description, not its name. */}
                    <span className="muted blueprint-pick__meta" id={`${id}-meta-${b.id}`} aria-hidden="true">
                      {viewsLabel(b.views)}
                      {b.createdAt && ` · ${relativeTime(b.createdAt)}`}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <div className="field">
            <label htmlFor={`${id}-name`}>Product name</label>
            <input id={`${id}-name`} value={name} maxLength={MAX_NAME_LENGTH} placeholder={chosen?.name ?? 'e.g. Walnut side table'} onChange={(e) => setName(e.target.value)} />
          </div>
          {problem && (
            <Alert tone="error">
              {problem}
              {planProblem && (
                <>
                  {' '}
                  <Link to="/workspace/subscription">See plans</Link>
                </>
              )}
            </Alert>
          )}
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--ghost" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn--primary" disabled={creating || !chosen}>
              {creating ? 'Creating…' : 'Create product'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
