import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { IconBox, IconSearch } from '../../components/icons';
import { ListToolbar, Pagination } from '../../components/list/list-controls';
import { EmptyState } from '../../components/empty-state';
import { hasFilters, PRODUCT_STATUS_FILTERS } from '../../components/list/list-rules';
import { useClampPage, useListQuery } from '../../components/list/use-list-query';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { useGetSubscriptionQuery } from '../../entities/subscription/subscription-api';
import { AddProductDialog } from './add-product-dialog';
import { ProductCard } from '../../entities/product/product-card';
import { atProductLimit, EMPTY_TEXT, EMPTY_TITLE, FIRST_PRODUCT_TEXT, FIRST_PRODUCT_TITLE, FREE_PLAN_NOTICE, hiddenByPlanText } from '../../entities/product/product-rules';
import { useListProductsQuery } from '../../entities/product/products-api';
import { ProductLimitDialog } from '../../entities/product/product-limit-dialog';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import './products.css';

/** While a product is still being built the list refreshes at the job polling pace (spec §9). */
const POLL_MS = 2000;

/** /workspace/products — My Products: filtered, sorted and paged by the server; the state lives in the URL. */
export default function ProductsPage() {
  return (
    <CatalogueGate title="My Products">
      <Products />
    </CatalogueGate>
  );
}

function Products() {
  // Teams (issue 51): only the owner and editors add products; a reviewer reads the list.
  const access = useWorkspaceRole();
  const { query, change, clear } = useListQuery();
  const [poll, setPoll] = useState(false);
  const { data, isLoading, isFetching, error } = useListProductsQuery(query, { pollingInterval: poll ? POLL_MS : 0 });
  const { data: sub } = useGetSubscriptionQuery();
  const [adding, setAdding] = useState(false);
  // At the limit, Add product says which limit and what the plan allows before the plans page.
  const [atLimit, setAtLimit] = useState(false);
  const items = data?.items ?? [];
  const total = data?.total ?? 0;
  const anyProcessing = items.some((p) => p.status === 'processing');
  useEffect(() => setPoll(anyProcessing), [anyProcessing]);

  useClampPage(data, query, change);

  const onAdd = () => {
    if (atProductLimit(sub?.productLimit, sub?.productsUsed)) setAtLimit(true);
    else setAdding(true);
  };

  return (
    <div className="page products">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Products</h1>
          <p className="page__subtitle">
            Everything you sell in 3D. <Link to="/workspace/catalogs">All Catalogs</Link>
          </p>
        </div>
        {access.canEdit && (
          <button type="button" className="btn btn--primary" onClick={onAdd}>
            Add product
          </button>
        )}
      </header>
      <ViewOnlyNote access={access} />

      {(sub?.effectivePlan === 'free' || (data?.hiddenByPlan ?? 0) > 0) && (
        <Alert tone="info">
          <span data-testid="free-plan-notice">
            {FREE_PLAN_NOTICE} {hiddenByPlanText(data?.hiddenByPlan ?? 0)}
          </span>{' '}
          <Link to="/workspace/subscription">See plans</Link>
        </Alert>
      )}

      <ListToolbar query={query} onChange={change} onClear={clear} searchLabel="Search products" statuses={PRODUCT_STATUS_FILTERS} />

      {error && <Alert tone="error">{errorMessage(error, 'Your products could not be loaded.')}</Alert>}

      {isLoading ? (
        <LoadingScreen />
      ) : items.length === 0 && !error ? (
        hasFilters(query) ? (
          <EmptyState testId="products-empty" icon={<IconSearch />} title={EMPTY_TITLE} text={EMPTY_TEXT}>
            <button type="button" className="btn btn--secondary" onClick={clear}>
              Reset filters
            </button>
          </EmptyState>
        ) : access.canEdit ? (
          <EmptyState testId="products-empty" icon={<IconBox />} title={FIRST_PRODUCT_TITLE} text={FIRST_PRODUCT_TEXT}>
            <button type="button" className="btn btn--primary" onClick={onAdd}>
              Add product
            </button>
          </EmptyState>
        ) : (
          <EmptyState testId="products-empty" icon={<IconBox />} title="No products in this workspace yet" text="Products the owner and editors add appear here." />
        )
      ) : (
        <ul className="card-grid" aria-label="Products" aria-busy={isFetching}>
          {items.map((p) => (
            <li key={p.id}>
              <ProductCard product={p} />
            </li>
          ))}
        </ul>
      )}

      <Pagination query={query} total={total} onChange={change} />
      {adding && <AddProductDialog onClose={() => setAdding(false)} />}
      {atLimit && <ProductLimitDialog onClose={() => setAtLimit(false)} />}
    </div>
  );
}
