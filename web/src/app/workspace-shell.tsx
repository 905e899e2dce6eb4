import { ShellLayout } from '../features/shell/shell-layout';
import { workspaceNav } from '../features/shell/shell-rules';
import { NotificationBell } from '../features/notifications/notification-bell';
import { SearchBox } from '../features/search/search-box';
import { useGetSubscriptionQuery } from '../entities/subscription/subscription-api';

/** Composes the shell with the features it shows: plan-aware nav, search, notifications. */
export default function WorkspaceShell() {
  const { data: sub } = useGetSubscriptionQuery();
  return <ShellLayout navItems={workspaceNav(Boolean(sub?.canUseGalleries))} search={<SearchBox />} notifications={<NotificationBell />} />;
}
