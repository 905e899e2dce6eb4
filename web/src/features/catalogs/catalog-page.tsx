import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { IconBox } from '../../components/icons';
import { Pagination, StatusIcon } from '../../components/list/list-controls';
import { EmptyState } from '../../components/empty-state';
import { useClampPage, useListQuery } from '../../components/list/use-list-query';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { ProductCard } from '../../entities/product/product-card';
import { PageStateBadge } from '../../entities/product/page-state-badge';
import { firstTag, PRODUCT_STATUS_LABEL } from '../../entities/product/product-rules';
import { useListProductsQuery } from '../../entities/product/products-api';
import { productCountText } from '../../entities/catalog/catalog-rules';
import { useGetCatalogQuery } from '../../entities/catalog/catalogs-api';
import { useViewMode, ViewToggle } from './view-toggle';
import { AddProductsDialog } from './add-products-dialog';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';

/** /workspace/catalog/{id} — one catalog's products in grid or list view. */
export default function CatalogPage() {
  return (
    <CatalogueGate title="Catalog">
      <CatalogView />
    </CatalogueGate>
  );
}

function CatalogView() {
  // Teams (issue 51): adding products is for the owner and editors.
  const access = useWorkspaceRole();
  const { catalogId = '' } = useParams();
  const { data: catalog, isLoading, error } = useGetCatalogQuery(catalogId, { skip: !catalogId });
  const { query, change } = useListQuery();
  const { data: products, isLoading: loadingProducts } = useListProductsQuery({ ...query, catalogId }, { skip: !catalog });
  const [mode, setMode] = useViewMode();
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<string | null>(null);
  const items = products?.items ?? [];
  const total = products?.total ?? 0;
  useClampPage(products, query, change);

  const back = (
    <Link to="/workspace/catalogs" className="back-link">
      ← Back to Catalogs
    </Link>
  );
  if (isLoading) return <LoadingScreen />;
  if (error || !catalog) {
    const notFound = (error as { status?: unknown } | undefined)?.status === 404;
    return (
      <div className="page">
        {back}
        <Alert tone="error">{notFound ? 'This catalog does not exist or is not in your workspace.' : errorMessage(error, 'This catalog could not be loaded.')}</Alert>
      </div>
    );
  }
  return (
    <div className="page catalog">
      {back}
      <header className="page__header">
        <div>
          <h1 className="page__title">
            {catalog.name} {catalog.isDefault && <span className="badge">Default</span>}
          </h1>
          <p className="page__subtitle">{catalog.description || productCountText(catalog.productCount)}</p>
        </div>
        <div className="catalog__actions">
          {access.canEdit && (
            <button type="button" className="btn btn--primary" onClick={() => (setAdded(null), setAdding(true))}>
              Add products
            </button>
          )}
          <ViewToggle mode={mode} onChange={setMode} />
        </div>
      </header>
      <ViewOnlyNote access={access} />
      {added && (
        <div data-testid="catalog-added">
          <Alert tone="success">{added}</Alert>
        </div>
      )}
      {adding && (
        <AddProductsDialog
          catalog={catalog}
          onClose={() => setAdding(false)}
          onDone={(summary) => {
            setAdding(false);
            setAdded(summary);
          }}
        />
      )}
      {loadingProducts ? (
        <LoadingScreen />
      ) : items.length === 0 ? (
        <EmptyState
          testId="catalog-empty"
          icon={<IconBox />}
          title="No Products Yet"
          text={access.canEdit ? 'Add products you already have (they move here from their catalog), or make a new one.' : 'Products the owner and editors put in this catalog appear here.'}
        >
          {access.canEdit && (
            <>
              <button type="button" className="btn btn--primary" onClick={() => (setAdded(null), setAdding(true))}>
                Add products
              </button>
              <Link to="/workspace/add-product" className="btn btn--secondary">
                New product
              </Link>
            </>
          )}
        </EmptyState>
      ) : mode === 'grid' ? (
        <ul className="card-grid" aria-label="Products">
          {items.map((p) => (
            <li key={p.id}>
              <ProductCard product={p} />
            </li>
          ))}
        </ul>
      ) : (
        <ul className="list-rows" aria-label="Products">
          {items.map((p) => (
            <li key={p.id}>
              <article className="card list-row" data-testid="product-card">
                <StatusIcon status={p.status} label={PRODUCT_STATUS_LABEL[p.status]} />
                <span className="list-row__thumb" aria-hidden="true">
                  {p.thumbnailURL ? <img src={p.thumbnailURL} alt="" loading="lazy" data-testid="list-thumb" /> : <IconBox size={22} />}
                </span>
                <div className="list-row__main">
                  <Link to={`/workspace/product/${encodeURIComponent(p.id)}`} className="item-card__name">
                    {p.name}
                  </Link>
                  <p className="item-card__tag">{firstTag(p.tags)}</p>
                </div>
                <PageStateBadge live={p.live} testId="product-page-state" />
                {p.updatedAt && <span className="muted">{relativeTime(p.updatedAt)}</span>}
              </article>
            </li>
          ))}
        </ul>
      )}
      {total > 0 && <Pagination query={query} total={total} onChange={change} />}
    </div>
  );
}
