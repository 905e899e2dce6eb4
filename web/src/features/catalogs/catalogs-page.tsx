import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { IconFolder } from '../../components/icons';
import { EmptyState } from '../../components/empty-state';
import '../../components/list/list.css';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { CatalogFormDialog, DeleteCatalogDialog } from './catalog-dialogs';
import { productCountText, type Catalog } from '../../entities/catalog/catalog-rules';
import { useGetCatalogsQuery } from '../../entities/catalog/catalogs-api';
import { useViewMode, ViewToggle } from './view-toggle';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';

/** /workspace/catalogs — All Catalogs: totals, grid or list, create, rename, delete. */
export default function CatalogsPage() {
  return (
    <CatalogueGate title="All Catalogs">
      <Catalogs />
    </CatalogueGate>
  );
}

function Catalogs() {
  // Teams (issue 51): creating, renaming and deleting are for the owner and editors.
  const access = useWorkspaceRole();
  const { data, isLoading, error } = useGetCatalogsQuery();
  const [mode, setMode] = useViewMode();
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Catalog | null>(null);
  const [deleting, setDeleting] = useState<Catalog | null>(null);
  const items = data?.items ?? [];

  return (
    <div className="page catalogs">
      <header className="page__header">
        <div>
          <h1 className="page__title">All Catalogs</h1>
          {data && (
            <p className="page__subtitle" data-testid="catalog-totals">
              {data.totalCatalogs} {data.totalCatalogs === 1 ? 'catalog' : 'catalogs'} · {productCountText(data.totalProducts)}
            </p>
          )}
        </div>
        {access.canEdit && (
          <button type="button" className="btn btn--primary" onClick={() => setCreating(true)}>
            New catalog
          </button>
        )}
      </header>
      <ViewOnlyNote access={access} />

      {error && <Alert tone="error">{errorMessage(error, 'Your catalogs could not be loaded.')}</Alert>}

      {isLoading ? (
        <LoadingScreen />
      ) : items.length === 0 && !error ? (
        access.canEdit ? (
          <EmptyState testId="catalogs-empty" icon={<IconFolder />} title="No Catalogs Yet" text="Your default catalog is created with your first product. You can also create one now.">
            <button type="button" className="btn btn--secondary" onClick={() => setCreating(true)}>
              Create your first catalog
            </button>
          </EmptyState>
        ) : (
          <EmptyState testId="catalogs-empty" icon={<IconFolder />} title="No Catalogs Yet" text="Catalogs the owner and editors make appear here." />
        )
      ) : (
        <>
          <div className="list-toolbar">
            <span className="list-toolbar__spacer" />
            <ViewToggle mode={mode} onChange={setMode} />
          </div>
          <ul className={mode === 'grid' ? 'card-grid' : 'list-rows'} aria-label="Catalogs">
            {items.map((c) => (
              <li key={c.id}>
                <article className={mode === 'grid' ? 'card item-card catalog-card' : 'card list-row'} data-testid="catalog-card">
                  <div className={mode === 'grid' ? '' : 'list-row__main'}>
                    <Link to={`/workspace/catalog/${encodeURIComponent(c.id)}`} className="item-card__name">
                      {c.name}
                    </Link>{' '}
                    {c.isDefault && <span className="badge">Default</span>}
                    {c.description && <p className="muted item-card__tag">{c.description}</p>}
                  </div>
                  <p className="item-card__tag" data-testid="catalog-count">
                    {productCountText(c.productCount)}
                    {c.updatedAt && ` · updated ${relativeTime(c.updatedAt)}`}
                  </p>
                  {access.canEdit && (
                    <div className="btn-row">
                      <button type="button" className="btn btn--ghost btn--sm" onClick={() => setRenaming(c)} aria-label={`Rename ${c.name}`}>
                        Rename
                      </button>
                      {!c.isDefault && (
                        <button type="button" className="btn btn--ghost btn--sm" onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>
                          Delete
                        </button>
                      )}
                    </div>
                  )}
                </article>
              </li>
            ))}
          </ul>
        </>
      )}
      {creating && <CatalogFormDialog onClose={() => setCreating(false)} />}
      {renaming && <CatalogFormDialog catalog={renaming} onClose={() => setRenaming(null)} />}
      {deleting && <DeleteCatalogDialog catalog={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}
