import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { IconGallery, IconSearch } from '../../components/icons';
import { ItemCard, ListToolbar, Pagination } from '../../components/list/list-controls';
import { EmptyState } from '../../components/empty-state';
import { useClampPage, useListQuery } from '../../components/list/use-list-query';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { firstTag } from '../../entities/product/product-rules';
import { useGetSubscriptionQuery } from '../../entities/subscription/subscription-api';
import { hasFilters } from '../../components/list/list-rules';
import type { CSSProperties } from 'react';
import { EMPTY_TITLE, galleryCounts, GALLERY_STATUS_LABEL, NONE_YET_TEXT, NONE_YET_TITLE, type Gallery } from './gallery-rules';
import { useListGalleriesQuery } from './galleries-api';
import { ProGate } from './pro-gate';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import './galleries.css';

/** /workspace/gallery — My Gallery: cards with a real cover, filters, sort and paging in the URL; the Pro gate without gallery access. */
export default function GalleriesPage() {
  return (
    <CatalogueGate title="My Gallery">
      <Galleries />
    </CatalogueGate>
  );
}

function Galleries() {
  // Teams (issue 51): making galleries is for the owner and editors.
  const access = useWorkspaceRole();
  const navigate = useNavigate();
  const { data: sub, isLoading: loadingSub } = useGetSubscriptionQuery();
  const allowed = Boolean(sub?.canUseGalleries);
  const { query, change, clear } = useListQuery();
  const { data, isLoading, isFetching, error } = useListGalleriesQuery(query, { skip: !allowed });
  const items = data?.items ?? [];
  const total = data?.total ?? 0;
  useClampPage(data, query, change);
  const atLimit = typeof sub?.galleryLimit === 'number' && (sub.galleriesUsed ?? total) >= sub.galleryLimit;

  return (
    <div className="page galleries">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Gallery</h1>
          <p className="page__subtitle">Collections of your products to share together.</p>
        </div>
        {allowed && access.canEdit && (
          <button type="button" className="btn btn--primary" onClick={() => navigate('/workspace/gallery/create')} disabled={atLimit} title={atLimit ? `Your plan allows ${sub?.galleryLimit} galleries.` : undefined}>
            Add gallery
          </button>
        )}
      </header>
      {allowed && <ViewOnlyNote access={access} />}
      {loadingSub ? (
        <LoadingScreen />
      ) : !allowed ? (
        <ProGate sub={sub} />
      ) : (
        <>
          <ListToolbar query={query} onChange={change} onClear={clear} searchLabel="Search galleries" />
          {error && <Alert tone="error">{errorMessage(error, 'Your galleries could not be loaded.')}</Alert>}
          {isLoading ? (
            <LoadingScreen />
          ) : items.length === 0 && !error && !hasFilters(query) ? (
            access.canEdit ? (
              <EmptyState testId="galleries-none" icon={<IconGallery />} title={NONE_YET_TITLE} text={NONE_YET_TEXT}>
                <button type="button" className="btn btn--primary" onClick={() => navigate('/workspace/gallery/create')} disabled={atLimit}>
                  Create your first gallery
                </button>
              </EmptyState>
            ) : (
              <EmptyState testId="galleries-none" icon={<IconGallery />} title={NONE_YET_TITLE} text="Galleries the owner and editors make appear here." />
            )
          ) : items.length === 0 && !error ? (
            <EmptyState testId="galleries-empty" icon={<IconSearch />} title={EMPTY_TITLE} text="Try other words or clear the filters.">
              <button type="button" className="btn btn--secondary" onClick={clear}>
                Reset filters
              </button>
            </EmptyState>
          ) : (
            <ul className="card-grid" aria-label="Galleries" aria-busy={isFetching}>
              {items.map((g) => (
                <li key={g.id}>
                  <GalleryCard gallery={g} />
                </li>
              ))}
            </ul>
          )}
          <Pagination query={query} total={total} onChange={change} />
        </>
      )}
    </div>
  );
}

/** The card on the gallery's own tile colour; its icon (no cover yet) in the overlay colour that reads on it. */
function GalleryCard({ gallery: g }: { gallery: Gallery }) {
  return (
    <div className="gallery-card" style={{ '--gallery-tile': g.thumbnailColor, '--gallery-overlay': g.thumbnailOverlay } as CSSProperties} title={galleryCounts(g)}>
    <ItemCard
      testId="gallery-card"
      to={`/workspace/gallery/${encodeURIComponent(g.id)}`}
      name={g.name}
      upper
      imageURL={g.coverURL}
      fallback={<IconGallery size={40} />}
      tag={firstTag(g.tags)}
      status={g.status}
      statusLabel={GALLERY_STATUS_LABEL[g.status]}
    />
    </div>
  );
}
