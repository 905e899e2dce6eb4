import { Dialog } from '../../components/dialog';
import { ActionProblemAlert } from './action-problem';
import { useBlueprintActions, type BlueprintTarget } from './use-blueprint-actions';
import './blueprints.css';

/** Share / Download modal: Download 3D file (.glb) — the spec's "Download Blueprint", named for what it gives (issue 50 P6) —, Share Link (copies the link), Cancel. */
export function ShareDownloadDialog({ target, onClose }: { target: BlueprintTarget; onClose: () => void }) {
  const { download, shareLink, downloading, sharing, copied, problem, links } = useBlueprintActions(target);
  return (
    <Dialog title="Share / Download" onClose={onClose}>
      <p className="muted modal__subtitle">{target.name}</p>
      <div className="modal__actions">
        <button type="button" className="btn btn--primary" onClick={download} disabled={downloading}>
          {downloading ? 'Downloading…' : 'Download 3D file (.glb)'}
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
          <label htmlFor="share-download-url">Share link</label>
          <input id="share-download-url" readOnly value={links.shareURL} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
        </div>
      )}
      {problem && <ActionProblemAlert problem={problem} onNavigate={onClose} />}
    </Dialog>
  );
}
