import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { MAX_CATALOG_DESCRIPTION, MAX_CATALOG_NAME, validateCatalogName, type Catalog } from '../../entities/catalog/catalog-rules';
import { useCreateCatalogMutation, useDeleteCatalogMutation, useUpdateCatalogMutation } from '../../entities/catalog/catalogs-api';

/** Create (no catalog given) or rename and describe a catalog. */
export function CatalogFormDialog({ catalog, onClose }: { catalog?: Catalog; onClose: () => void }) {
  const id = useId();
  const [name, setName] = useState(catalog?.name ?? '');
  const [description, setDescription] = useState(catalog?.description ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const [create, { isLoading: creating }] = useCreateCatalogMutation();
  const [update, { isLoading: updating }] = useUpdateCatalogMutation();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const bad = validateCatalogName(name);
    if (bad) return setProblem(bad);
    const body = { name: name.trim(), description: description.trim() };
    const res = catalog ? await update({ id: catalog.id, ...body }) : await create(body);
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The catalog could not be saved.'));
    onClose();
  };
  return (
    <Dialog title={catalog ? 'Rename catalog' : 'New catalog'} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Catalog name</label>
          <input id={`${id}-name`} value={name} maxLength={MAX_CATALOG_NAME} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-desc`}>Description</label>
          <textarea id={`${id}-desc`} value={description} maxLength={MAX_CATALOG_DESCRIPTION} rows={3} onChange={(e) => setDescription(e.target.value)} />
        </div>
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row btn-row--end">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={creating || updating}>
            {catalog ? 'Save' : 'Create catalog'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Confirms deleting a catalog; its products move to the default catalog. */
export function DeleteCatalogDialog({ catalog, onClose, onDeleted }: { catalog: Catalog; onClose: () => void; onDeleted?: () => void }) {
  const [remove, { isLoading }] = useDeleteCatalogMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const confirm = async () => {
    const res = await remove(catalog.id);
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The catalog could not be deleted.'));
    onClose();
    onDeleted?.();
  };
  return (
    <Dialog title={`Delete “${catalog.name}”?`} onClose={onClose} role="alertdialog">
      <p className="muted">Its products are not deleted: they move to your default catalog.</p>
      {problem && <Alert tone="error">{problem}</Alert>}
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn--danger" onClick={confirm} disabled={isLoading}>
          {isLoading ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Dialog>
  );
}
