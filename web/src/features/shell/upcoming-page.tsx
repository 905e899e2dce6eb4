import { Link } from 'react-router';

/**
 * Products, Galleries and Analytics are in the sidebar by the spec but are
 * built in later releases. Rather than bouncing a merchant to the landing page
 * (the unknown-path rule), these routes say so plainly and point to where their
 * 3D models already live. No sample data is shown.
 */
export function UpcomingPage({ title }: { title: string }) {
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">{title}</h1>
        </div>
      </header>
      <div className="empty-state card">
        <p>{title} are not available in this release yet.</p>
        <p>
          Your 3D models are in <Link to="/workspace/blueprints">My Blueprints</Link>, where you can preview, download
          and share them, or <Link to="/workspace/upload">upload a new photo</Link>.
        </p>
      </div>
    </div>
  );
}

export default function ProductsUpcomingPage() {
  return <UpcomingPage title="Products" />;
}

export function GalleriesUpcomingPage() {
  return <UpcomingPage title="Galleries" />;
}

export function AnalyticsUpcomingPage() {
  return <UpcomingPage title="Analytics" />;
}
