import { useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { IconBell } from '../../components/icons';
import { moveMenuFocus, useDismiss } from '../../components/use-dismiss';
import { relativeTime } from '../../lib/format';
import { useMenu } from '../../lib/ui-slice';
import {
  NOTIFICATION_POLL_MS,
  useGetNotificationsQuery,
  useMarkAllNotificationsReadMutation,
  useMarkNotificationReadMutation,
  type Notification,
} from './notifications-api';

/** Bell with unread badge and the 'Workspace updates' dropdown; polls every 30 s. */
export function NotificationBell() {
  const { data } = useGetNotificationsQuery(undefined, { pollingInterval: NOTIFICATION_POLL_MS, skipPollingIfUnfocused: true });
  const [markRead] = useMarkNotificationReadMutation();
  const [markAll, { isLoading: markingAll }] = useMarkAllNotificationsReadMutation();
  const { open, setOpen, close } = useMenu('notifications');
  const box = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const navigate = useNavigate();
  useDismiss(open, box, trigger, close);

  const unread = data?.unreadCount ?? 0;
  const items = data?.items ?? [];

  function onItem(n: Notification) {
    if (!n.readAt) void markRead(n.id);
    if (n.link) {
      close();
      navigate(n.link);
    }
  }

  return (
    <div className="menu" ref={box}>
      <button
        ref={trigger}
        type="button"
        className="icon-btn bell"
        aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls="notifications-menu"
        onClick={() => setOpen(!open)}
      >
        <IconBell />
        {unread > 0 && <span className="bell__badge" aria-hidden="true">{unread > 99 ? '99+' : unread}</span>}
      </button>
      {open && (
        <div id="notifications-menu" className="menu__panel notifications-panel" role="menu" aria-label="Workspace updates" onKeyDown={moveMenuFocus}>
          <div className="menu__header menu__header--row">
            <h2 className="menu__title">Workspace updates</h2>
            <button type="button" role="menuitem" className="link-btn" onClick={() => markAll()} disabled={!unread || markingAll}>
              Mark all as read
            </button>
          </div>
          {items.length === 0 ? (
            <EmptyState variant="menu" icon={<IconBell />} title="No new notifications right now." text="Builds, leads and published pages are announced here." />
          ) : (
            <ul className="notifications-list">
              {items.slice(0, 8).map((n) => (
                <li key={n.id}>
                  <button type="button" role="menuitem" className={n.readAt ? 'notification' : 'notification notification--unread'} onClick={() => onItem(n)}>
                    <span className="notification__title">{n.title}</span>
                    <span className="notification__message">{n.message}</span>
                    <time className="notification__time" dateTime={n.createdAt}>{relativeTime(n.createdAt)}</time>
                    {!n.readAt && <span className="visually-hidden"> (unread)</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div className="menu__footer">
            <Link to="/workspace/notifications" role="menuitem" className="menu__item" onClick={close}>
              View all notifications
            </Link>
          </div>
        </div>
      )}
    </div>
  );
}
