import { Link, useNavigate } from 'react-router';
import { LoadingScreen } from '../../components/loading-screen';
import { useGetSubscriptionQuery } from '../../entities/subscription/subscription-api';
import { useCreateGalleryMutation } from './galleries-api';
import { GalleryEditor, type GalleryDraft } from './gallery-editor';
import { ProGate } from './pro-gate';
import { EditorsGate } from '../../entities/team/view-only';
import './galleries.css';

/** /workspace/gallery/create — name, description, products and cover; then opens the new gallery. */
export default function GalleryCreatePage() {
  return (
    <EditorsGate title="New gallery" back={{ to: '/workspace/gallery', label: '← Back to galleries' }}>
      <GalleryCreate />
    </EditorsGate>
  );
}

function GalleryCreate() {
  const navigate = useNavigate();
  const { data: sub, isLoading } = useGetSubscriptionQuery();
  const [create, { isLoading: creating }] = useCreateGalleryMutation();

  const submit = async (d: GalleryDraft) => {
    const g = await create({
      name: d.name,
      description: d.description,
      productIds: d.productIds,
      tags: d.tags,
      ...(d.coverProductId ? { coverProductId: d.coverProductId } : {}),
      ...(d.thumbnailColor ? { thumbnailColor: d.thumbnailColor } : {}),
    }).unwrap();
    navigate(`/workspace/gallery/${encodeURIComponent(g.id)}`, { replace: true });
  };

  return (
    <div className="page page-narrow gallery-create">
      <Link to="/workspace/gallery" className="back-link">
        ← Back to galleries
      </Link>
      <header className="page__header">
        <h1 className="page__title">New gallery</h1>
      </header>
      {isLoading ? (
        <LoadingScreen />
      ) : !sub?.canUseGalleries ? (
        <ProGate sub={sub} />
      ) : (
        <div className="card">
          <GalleryEditor initial={{ name: '', description: '', productIds: [], coverProductId: null, tags: [], thumbnailColor: null }} submitLabel="Create gallery" busy={creating} onSubmit={submit} />
        </div>
      )}
    </div>
  );
}
