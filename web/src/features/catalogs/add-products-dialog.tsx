import { useId, useMemo, useState, type FormEvent } from 'react';
import './catalogs.css';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { DEFAULT_QUERY } from '../../components/list/list-rules';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { moveSummary, type Catalog } from '../../entities/catalog/catalog-rules';
import { useGetCatalogsQuery, useMoveIntoCatalogMutation } from '../../entities/catalog/catalogs-api';
import { useListProductsQuery } from '../../entities/product/products-api';

/** One page holds every product a plan allows (Pro: 50). */
const PICK_PAGE_SIZE = 50;

/**
 * "Add products" on a catalog page (merchant walk 4, P13): tick several of the
 * merchant's products and move them here in one go. A product is in one
 * catalog, so each row says where it is now and the result says what moved.
 */
export function AddProductsDialog({ catalog, onClose, onDone }: { catalog: Catalog; onClose: () => void; onDone: (summary: string) => void }) {
  const id = useId();
  const { data, isLoading, error } = useListProductsQuery({ ...DEFAULT_QUERY, sort: 'name', pageSize: PICK_PAGE_SIZE });
  const { data: catalogs } = useGetCatalogsQuery();
  const [move, { isLoading: moving }] = useMoveIntoCatalogMutation();
  const [picked, setPicked] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const names = useMemo(() => new Map((catalogs?.items ?? []).map((c) => [c.id, c.name])), [catalogs]);
  const elsewhere = (data?.items ?? []).filter((p) => p.catalogId !== catalog.id);

  const toggle = (pid: string, on: boolean) => setPicked((ids) => (on ? [...ids, pid] : ids.filter((x) => x !== pid)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (picked.length === 0) return setProblem('Choose at least one product to add.');
    const res = await move({ id: catalog.id, productIds: picked });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The products could not be added.'));
    onDone(moveSummary(catalog.name, res.data?.moved ?? []));
  };

  return (
    <Dialog title={`Add products to ${catalog.name}`} onClose={onClose}>
      <form className="form add-products" onSubmit={submit}>
        <p className="field__help">A product belongs to one catalog: adding it here moves it out of the catalog it is in now.</p>
        {isLoading ? (
          <LoadingScreen />
        ) : error ? (
          <Alert tone="error">{errorMessage(error, 'Your products could not be loaded.')}</Alert>
        ) : elsewhere.length === 0 ? (
          <p className="muted" data-testid="add-products-none">
            All your products are already in this catalog.
          </p>
        ) : (
          <ul className="add-products__list" aria-label="Products to add">
            {elsewhere.map((p) => (
              <li key={p.id}>
                <label className="add-products__item">
                  <input type="checkbox" checked={picked.includes(p.id)} onChange={(e) => toggle(p.id, e.target.checked)} aria-describedby={`${id}-${p.id}`} />
                  {p.thumbnailURL ? <img src={p.thumbnailURL} alt="" /> : <span className="add-products__blank" />}
                  <span className="add-products__name">{p.name}</span>
                  <span className="muted add-products__from" id={`${id}-${p.id}`}>
                    Now in {names.get(p.catalogId) ?? 'another catalog'}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row btn-row--end">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={moving || picked.length === 0}>
            {moving ? 'Adding…' : picked.length > 1 ? `Add ${picked.length} products` : 'Add product'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
