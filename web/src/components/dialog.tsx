import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import './dialog.css';

/**
 * A modal dialog: focus moves in on open and back on close, Tab stays inside,
 * Escape and a click on the backdrop close it.
 */
/**
 * The keyboard and focus rules every modal shares: focus moves in on open (to
 * `initial`, else the panel's first control) and back where it was on close,
 * Tab stays inside the panel, Escape calls onEscape. Returns the panel's
 * keydown handler.
 */
export function useModalFocus(panel: RefObject<HTMLDivElement | null>, onEscape: () => void, initial?: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    (initial?.current ?? panel.current?.querySelector<HTMLElement>('input, select, textarea, button'))?.focus();
    return () => previous?.focus?.();
    // Only on open and close: the refs are stable.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onEscape();
      return;
    }
    if (e.key !== 'Tab' || !panel.current) return;
    const items = Array.from(panel.current.querySelectorAll<HTMLElement>('button:not([disabled]), a[href], input, select, textarea'));
    if (!items.length) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
}

export function Dialog({ title, onClose, children, role = 'dialog' }: { title: string; onClose: () => void; children: ReactNode; role?: 'dialog' | 'alertdialog' }) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const onKeyDown = useModalFocus(panel, onClose);
  return (
    <div className="modal" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={panel} className="modal__panel card" role={role} aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <h2 id={titleId} className="section-title">
          {title}
        </h2>
        {children}
      </div>
    </div>
  );
}
