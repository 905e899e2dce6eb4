import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { IconGallery } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { useDeleteGalleryMutation, useGetGalleryQuery, useSetGalleryProductsMutation, useUpdateGalleryMutation } from './galleries-api';
import { GalleryEditor, type GalleryDraft } from './gallery-editor';
import { GalleryShare } from './gallery-share';
import { galleryCounts, NOT_SHOWN_LABEL, type GalleryDetail } from './gallery-rules';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { CatalogueGate, ViewOnlyNote } from '../../entities/team/view-only';
import type { RoleAbilities } from '../../entities/team/team-rules';
import './galleries.css';

/** /workspace/gallery/{id} — the gallery's cover and products; edit, reorder, choose the cover, delete. */
export default function GalleryDetailPage() {
  return (
    <CatalogueGate title="Gallery">
      <GalleryDetail />
    </CatalogueGate>
  );
}

function GalleryDetail() {
  // Teams (issue 51): editing, deleting and publishing follow the role.
  const access = useWorkspaceRole();
  const { galleryId = '' } = useParams();
  const { data: g, isLoading, error } = useGetGalleryQuery(galleryId, { skip: !galleryId });
  const back = (
    <Link to="/workspace/gallery" className="back-link">
      ← Back to galleries
    </Link>
  );
  if (isLoading) return <LoadingScreen />;
  if (error || !g) {
    const notFound = (error as { status?: unknown } | undefined)?.status === 404;
    return (
      <div className="page">
        {back}
        <div className="card empty-state" data-testid="gallery-not-found">
          <IconGallery size={40} />
          <p className="empty-state__title">{notFound ? 'Gallery not found' : 'This gallery could not be loaded'}</p>
          <p className="muted">{notFound ? 'This gallery does not exist or is not in your workspace.' : errorMessage(error, 'Please try again.')}</p>
        </div>
      </div>
    );
  }
  return (
    <div className="page gallery-detail">
      {back}
      <GalleryView key={g.updatedAt} gallery={g} access={access} />
    </div>
  );
}

function GalleryView({ gallery: g, access }: { gallery: GalleryDetail; access: RoleAbilities }) {
  const navigate = useNavigate();
  const [update, { isLoading: updating }] = useUpdateGalleryMutation();
  const [setProducts, { isLoading: setting }] = useSetGalleryProductsMutation();
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState(false);
  const cover = g.products.find((p) => p.id === g.coverProductId) ?? g.products[0];

  const submit = async (d: GalleryDraft) => {
    setSaved(false);
    const tagsChanged = d.tags.join('\n') !== g.tags.join('\n');
    const colorChanged = d.thumbnailColor !== null && d.thumbnailColor !== g.thumbnailColor;
    if (d.name !== g.name || d.description !== g.description || tagsChanged || colorChanged)
      await update({ id: g.id, name: d.name, description: d.description, ...(tagsChanged ? { tags: d.tags } : {}), ...(colorChanged ? { thumbnailColor: d.thumbnailColor! } : {}) }).unwrap();
    await setProducts({ id: g.id, productIds: d.productIds, coverProductId: d.coverProductId }).unwrap();
    setSaved(true);
  };

  return (
    <>
      <header className="page__header">
        <div>
          <h1 className="page__title">{g.name}</h1>
          <p className="page__subtitle" data-testid="gallery-counts">
            {galleryCounts(g)}
            {g.updatedAt && ` · updated ${relativeTime(g.updatedAt)}`}
          </p>
          {g.tags.length > 0 && (
            <ul className="gallery-tags" aria-label="Tags">
              {g.tags.map((t) => (
                <li key={t} className="badge">
                  {t}
                </li>
              ))}
            </ul>
          )}
          {g.description && <p className="muted">{g.description}</p>}
        </div>
        {access.canEdit && (
          <button type="button" className="btn btn--danger" onClick={() => setDeleting(true)}>
            Delete gallery
          </button>
        )}
      </header>
      <ViewOnlyNote access={access} />
      {(g.coverURL || cover?.thumbnailURL) && (
        <div className="gallery-cover" data-testid="gallery-cover" style={{ background: g.thumbnailColor }}>
          <img src={g.coverURL ?? cover?.thumbnailURL ?? ''} alt={cover ? `Cover: ${cover.name}` : 'Gallery cover'} />
        </div>
      )}
      {g.products.length > 0 && (
        <ol className="gallery-order" aria-label="Products in this gallery">
          {g.products.map((p) => (
            <li key={p.id} className="card">
              {p.thumbnailURL ? <img src={p.thumbnailURL} alt="" /> : <span className="gallery-pick__blank" />}
              <Link to={`/workspace/product/${encodeURIComponent(p.id)}`} className="gallery-order__name">
                {p.name}
              </Link>
              {!p.live && <span className="badge badge--muted">{NOT_SHOWN_LABEL}</span>}
              {p.id === cover?.id && <span className="badge">Cover</span>}
            </li>
          ))}
        </ol>
      )}
      <GalleryShare gallery={g} canPublish={access.canPublish} canPublishDirectly={access.canPublishDirectly} />
      {access.canEdit && (
        <section className="card" aria-labelledby="edit-gallery">
          <h2 id="edit-gallery" className="section-title">
            Edit gallery
          </h2>
          <GalleryEditor
            initial={{ name: g.name, description: g.description, productIds: g.products.map((p) => p.id), coverProductId: g.coverProductId, tags: g.tags, thumbnailColor: g.thumbnailColor }}
            known={g.products}
            submitLabel="Save gallery"
            busy={updating || setting}
            onSubmit={submit}
          />
          {saved && <Alert tone="success">Saved.</Alert>}
        </section>
      )}
      {deleting && <DeleteGallery gallery={g} onClose={() => setDeleting(false)} onDeleted={() => navigate('/workspace/gallery', { replace: true })} />}
    </>
  );
}

function DeleteGallery({ gallery, onClose, onDeleted }: { gallery: GalleryDetail; onClose: () => void; onDeleted: () => void }) {
  const [remove, { isLoading }] = useDeleteGalleryMutation();
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <Dialog title={`Delete “${gallery.name}”?`} onClose={onClose} role="alertdialog">
      <p className="muted">The gallery goes; its products stay in your catalogue.</p>
      {problem && <Alert tone="error">{problem}</Alert>}
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn--danger"
          disabled={isLoading}
          onClick={async () => {
            const res = await remove(gallery.id);
            if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The gallery could not be deleted.'));
            onDeleted();
          }}
        >
          {isLoading ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Dialog>
  );
}
