import { useEffect, useId, useRef, type KeyboardEvent } from 'react';
import { ActionProblemAlert } from './action-problem';
import { useBlueprintActions, type BlueprintTarget } from './use-blueprint-actions';
import './blueprints.css';

/** Share / Download modal: Download Blueprint, Share Link (copies the link), Cancel. */
export function ShareDownloadDialog({ target, onClose }: { target: BlueprintTarget; onClose: () => void }) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const { download, shareLink, downloading, sharing, copied, problem, links } = useBlueprintActions(target);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    panel.current?.querySelector<HTMLElement>('button')?.focus();
    return () => previous?.focus?.();
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !panel.current) return;
    const items = Array.from(panel.current.querySelectorAll<HTMLElement>('button:not([disabled]), a[href], input'));
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

  return (
    <div className="modal" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={panel} className="modal__panel card" role="dialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <h2 id={titleId} className="section-title">
          Share / Download
        </h2>
        <p className="muted modal__subtitle">{target.name}</p>
        <div className="modal__actions">
          <button type="button" className="btn btn--primary" onClick={download} disabled={downloading}>
            {downloading ? 'Downloading…' : 'Download Blueprint'}
          </button>
          <button type="button" className="btn btn--secondary" onClick={shareLink} disabled={sharing}>
            {copied ? 'Copied' : sharing ? 'Creating link…' : 'Share Link'}
          </button>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
        </div>
        {links?.shareURL && (
          <div className="field modal__link">
            <label htmlFor={`${titleId}-url`}>Share link</label>
            <input id={`${titleId}-url`} readOnly value={links.shareURL} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
          </div>
        )}
        {problem && <ActionProblemAlert problem={problem} onNavigate={onClose} />}
      </div>
    </div>
  );
}
