import { Link } from 'react-router';

/**
 * Analytics is in the sidebar by the spec but is built in a later release.
 * Rather than bouncing a merchant to the landing page (the unknown-path rule),
 * the route says so plainly and points to the products. No sample data is shown.
 */
export default function AnalyticsUpcomingPage() {
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Analytics</h1>
        </div>
      </header>
      <div className="empty-state card">
        <p>Analytics are not available in this release yet.</p>
        <p>
          Shopper numbers appear here once analytics ship. Meanwhile, manage <Link to="/workspace/products">your products</Link> and{' '}
          <Link to="/workspace/gallery">galleries</Link>.
        </p>
      </div>
    </div>
  );
}
