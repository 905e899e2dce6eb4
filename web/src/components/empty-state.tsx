import type { ReactNode } from 'react';
import './empty-state.css';

/**
 * The one empty state of the app (issue 29 item 18): an inline SVG icon, a title, a
 * one-line explanation and the next action (a button or link passed as children), so every
 * list a new merchant sees empty — products, catalogs, galleries, leads, analytics,
 * notifications, channels, API keys, webhooks, search — reads the same way instead of a
 * blank area or a bare "No data".
 *
 * `page` is a card of its own (a whole list screen); `inline` sits inside a card or panel
 * that already has its frame (leads, keys, webhooks, a chart); `menu` is inline without the
 * dashed frame, for a popover (search results, the notification bell).
 */
export function EmptyState({
  icon,
  title,
  text,
  children,
  variant = 'page',
  testId,
}: {
  /** An icon from components/icons (drawn inline, no font needed). */
  icon: ReactNode;
  title: string;
  /** One line: why it is empty, or what will appear here. */
  text?: ReactNode;
  /** The next action: a button or a link. */
  children?: ReactNode;
  variant?: 'page' | 'inline' | 'menu';
  testId?: string;
}) {
  return (
    <div className={variant === 'page' ? 'card empty-state' : `empty-state empty-state--inline empty-state--${variant}`} data-testid={testId}>
      <span className="empty-state__icon" aria-hidden="true">
        {icon}
      </span>
      <p className="empty-state__title">{title}</p>
      {text && <p className="empty-state__text">{text}</p>}
      {children && <div className="empty-state__actions">{children}</div>}
    </div>
  );
}
