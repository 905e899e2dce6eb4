import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconAlert, IconBox, IconChart, IconCheck, IconClock, IconCube, IconGallery, IconLightbulb } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { useAppSelector } from '../../lib/hooks';
import { selectAuthUser } from '../../lib/session';
import { greetingName } from '../../lib/user';
import { useGetDashboardQuery, type RecentItem } from './dashboard-api';
import { greeting, isFirstVisit, markVisited, pickMessage } from './dashboard-rules';
import { useWorkspaceRole } from '../../entities/team/use-workspace';

const statusIcon = { error: IconAlert, ready: IconCheck, processing: IconClock, draft: IconClock } as const;
const statusText = { error: 'Needs attention', ready: 'Ready', processing: 'Processing', draft: 'Draft' } as const;
const typeIcon = { blueprint: IconCube, product: IconBox, gallery: IconGallery } as const;
const typeText = { blueprint: 'Blueprint', product: 'Product', gallery: 'Gallery' } as const;

function safeLocalStorage(): Storage | null {
  try {
    return localStorage;
  } catch {
    return null;
  }
}

/** /my-home — greeting, recent work, top products, insights and quick actions. */
export default function DashboardPage() {
  const user = useAppSelector(selectAuthUser);
  const [hello] = useState(() => greeting(new Date().getHours()));
  const [message] = useState(() => pickMessage(isFirstVisit(safeLocalStorage())));
  useEffect(() => markVisited(safeLocalStorage()), []);
  const { data, isLoading, error } = useGetDashboardQuery();
  // Teams (issue 51): adding products is for the owner and editors; an analyst sees no catalogue.
  const access = useWorkspaceRole();

  return (
    <div className="page dashboard">
      <header className="dashboard__hero">
        <h1 className="page__title">
          {hello}, {greetingName(user)}
        </h1>
        <p className="page__subtitle">{message}</p>
      </header>

      {error && <Alert tone="error">{errorMessage(error, 'Your dashboard could not be loaded.')}</Alert>}

      <section aria-labelledby="recent-title" className="dashboard__section">
        <h2 id="recent-title" className="section-title">Resume where you left off...</h2>
        {isLoading ? (
          <LoadingScreen />
        ) : data && data.recent.length > 0 ? (
          <ul className="recent-grid">
            {data.recent.slice(0, 5).map((item) => (
              <li key={`${item.type}-${item.id}`}>
                <RecentCard item={item} />
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState testId="resume-empty" icon={<IconClock />} title="Nothing to resume yet" text="Products, galleries and blueprints you work on will appear here.">
            {access.canEdit && (
              <Link to="/workspace/add-product" className="btn btn--primary">
                Add your first product
              </Link>
            )}
          </EmptyState>
        )}
      </section>

      <div className="dashboard__columns">
        <section aria-labelledby="top-title" className="card dashboard__section">
          <h2 id="top-title" className="section-title">Top Products</h2>
          {data && data.topProducts.length > 0 ? (
            <ol className="top-list">
              {data.topProducts.map((p) => (
                <li key={p.id}>
                  <Link to={p.path} className="top-list__item">
                    <span>{p.label}</span>
                    <span className="muted">{p.metric}</span>
                  </Link>
                </li>
              ))}
            </ol>
          ) : (
            <EmptyState variant="inline" icon={<IconChart />} title="No shopper activity yet" text="Once your products are viewed, the most engaging ones appear here.">
              {access.canSee && (
                <Link to="/workspace/products" className="btn btn--secondary btn--sm">
                  {access.canPublish ? 'Share a product' : 'See the products'}
                </Link>
              )}
            </EmptyState>
          )}
        </section>
        <section aria-labelledby="insights-title" className="card dashboard__section">
          <h2 id="insights-title" className="section-title">Insights &amp; Actions</h2>
          {data && data.insights.length > 0 ? (
            <ul className="insights">
              {data.insights.map((i) => (
                <li key={i.id} className="insight">
                  <IconLightbulb size={18} />
                  <div>
                    <p className="insight__title">{i.path ? <Link to={i.path}>{i.title}</Link> : i.title}</p>
                    <p className="muted">{i.message}</p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No recommendations right now. They appear as your products collect views and interactions.</p>
          )}
        </section>
      </div>

      <section aria-labelledby="quick-title" className="dashboard__section">
        <h2 id="quick-title" className="section-title">Quick Actions</h2>
        <div className="quick-actions">
          {access.canSee && (
            <>
              <Link to="/workspace/products" className="quick-action card">
                <IconBox /> <span>Products</span>
              </Link>
              <Link to="/workspace/gallery" className="quick-action card">
                <IconGallery /> <span>Gallery</span>
              </Link>
            </>
          )}
          <Link to="/workspace/analytics" className="quick-action card">
            <IconChart /> <span>Analytics</span>
          </Link>
        </div>
      </section>
    </div>
  );
}

function RecentCard({ item }: { item: RecentItem }) {
  const StatusIcon = statusIcon[item.status] ?? IconClock;
  const TypeIcon = typeIcon[item.type] ?? IconCube;
  return (
    <Link to={item.path} className={`card recent-card recent-card--${item.status}`}>
      <span className="recent-card__type">
        <TypeIcon size={18} /> {typeText[item.type] ?? item.type}
      </span>
      <span className="recent-card__label">{item.label}</span>
      <span className="recent-card__meta">
        <span className={`status status--${item.status}`}>
          <StatusIcon size={16} /> {statusText[item.status] ?? item.status}
        </span>
        <time dateTime={item.updatedAt}>{relativeTime(item.updatedAt)}</time>
      </span>
    </Link>
  );
}
