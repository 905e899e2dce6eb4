import { useEffect } from 'react';

/** Short-lived confirmation announced to screen readers; hides itself after a few seconds. */
export function Toast({ message, tone = 'success', onDone, ms = 4000 }: { message: string | null; tone?: 'success' | 'error'; onDone: () => void; ms?: number }) {
  useEffect(() => {
    if (!message) return;
    const t = window.setTimeout(onDone, ms);
    return () => window.clearTimeout(t);
  }, [message, ms, onDone]);
  if (!message) return null;
  return (
    <div className={`toast toast--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <span>{message}</span>
      <button type="button" className="toast__close" onClick={onDone} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
