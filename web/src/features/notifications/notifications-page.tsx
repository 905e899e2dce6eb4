import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconBell } from '../../components/icons';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import {
  useGetNotificationsQuery,
  useMarkAllNotificationsReadMutation,
  useMarkNotificationReadMutation,
} from './notifications-api';

/** /workspace/notifications — every workspace update the server has for this user. */
export default function NotificationsPage() {
  const { data, isLoading, error } = useGetNotificationsQuery();
  const [markRead] = useMarkNotificationReadMutation();
  const [markAll, { isLoading: markingAll }] = useMarkAllNotificationsReadMutation();
  const items = data?.items ?? [];

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Notifications</h1>
          <p className="page__subtitle">Your builds, published pages, captured leads and plan.</p>
        </div>
        {items.length > 0 && (
          <button type="button" className="btn btn--secondary" onClick={() => markAll()} disabled={!data?.unreadCount || markingAll}>
            Mark all as read
          </button>
        )}
      </header>
      {isLoading ? (
        <LoadingScreen />
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'Notifications could not be loaded.')}</Alert>
      ) : items.length === 0 ? (
        <EmptyState testId="notifications-empty" icon={<IconBell />} title="No new notifications right now." text="Finished builds, captured leads and published pages are announced here.">
          <Link to="/workspace/products" className="btn btn--secondary">
            Go to your products
          </Link>
        </EmptyState>
      ) : (
        <ul className="card notification-page-list">
          {items.map((n) => (
            <li key={n.id} className={n.readAt ? 'notification-row' : 'notification-row notification-row--unread'}>
              <div className="notification-row__body">
                <p className="notification__title">{n.title}</p>
                <p className="notification__message">{n.message}</p>
                <time className="notification__time" dateTime={n.createdAt}>{relativeTime(n.createdAt)}</time>
              </div>
              <div className="notification-row__actions">
                {n.link && (
                  <Link to={n.link} onClick={() => !n.readAt && markRead(n.id)}>
                    Open
                  </Link>
                )}
                {!n.readAt && (
                  <button type="button" className="link-btn" onClick={() => markRead(n.id)}>
                    Mark as read
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
