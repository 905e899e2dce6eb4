import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api';
import { clearAuth } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedOut } from '../../lib/session';
import { GoogleButton, googleClientId } from '../../entities/auth/google-button';
import { useDeleteAccountMutation, useGetDataExportQuery, useRequestDataExportMutation, type DataExport } from './privacy-api';
import { useWorkspaceRole } from '../../entities/team/use-workspace';

/** Where the app lands after the account is deleted; the sign-in page shows the notice. */
export const ACCOUNT_DELETED_PATH = '/login?accountDeleted=1';

/** Profile → Your data: download a copy and delete the account (issue 31). */
export function PrivacyPanel({ clientId = googleClientId }: { clientId?: string }) {
  const [open, setOpen] = useState(false);
  // Teams (issue 51): the data export is the workspace owner's (GET/POST /api/users/me/export),
  // so a member acting in someone else's workspace is sent to their own.
  const { isOwner } = useWorkspaceRole();
  return (
    <section className="card form profile-form" aria-labelledby="privacy-title">
      <h2 id="privacy-title" className="section-title">
        Your data
      </h2>
      {isOwner ? (
        <DownloadData />
      ) : (
        <div className="security-sessions" data-testid="download-data-elsewhere">
          <h3 className="security__heading">Download my data</h3>
          <p className="field__help">The data export is made in your own workspace: choose it under Current workspace in the sidebar to download your data.</p>
        </div>
      )}
      <div className="security-sessions">
        <h3 className="security__heading">Delete account</h3>
        <p className="field__help">
          Deletes your account and everything in it for good. Your published pages stop working at once.
        </p>
        <div className="btn-row">
          <button type="button" className="btn btn--danger" onClick={() => setOpen(true)}>
            Delete account
          </button>
        </div>
      </div>
      {open && <DeleteAccountDialog clientId={clientId} canExport={isOwner} onClose={() => setOpen(false)} />}
    </section>
  );
}

const exportDate = (iso?: string) => (iso ? new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }) : '');

function exportStatus(e: DataExport | undefined): string {
  switch (e?.status) {
    case 'pending':
      return 'Preparing your data… This can take a few minutes; we will email you and notify you here when it is ready.';
    case 'ready':
      return `Your data is ready. The download is available until ${exportDate(e.expiresAt)}.`;
    case 'expired':
      return 'Your last download has expired. Ask for a new one.';
    case 'failed':
      return 'Your last export could not be built. Please try again.';
    default:
      return '';
  }
}

/** The "Download my data" button, which the delete dialog's "Download my data first" leads to. */
const DOWNLOAD_DATA_ID = 'download-my-data';

/** "Download my data": a ZIP built in the background, downloadable for 7 days. */
function DownloadData() {
  const [pending, setPending] = useState(false);
  const { data, error: loadError } = useGetDataExportQuery(undefined, { pollingInterval: pending ? 2000 : 0 });
  const [requestExport, { isLoading, error }] = useRequestDataExportMutation();
  const status = data?.status;
  if (pending !== (status === 'pending')) setPending(status === 'pending');
  const text = exportStatus(data);
  return (
    <div className="security-sessions">
      <h3 className="security__heading">Download my data</h3>
      <p className="field__help">
        A ZIP with your account, branding, subscription history, products and their settings, photos and 3D models, published pages and
        leads (JSON and CSV).
      </p>
      {text && (
        <Alert tone={status === 'failed' ? 'error' : status === 'ready' ? 'success' : 'info'}>
          {text}
        </Alert>
      )}
      {(error || loadError) && <Alert tone="error">{errorMessage(error ?? loadError, 'Your data export could not be started. Please try again.')}</Alert>}
      <div className="btn-row">
        {status === 'ready' && data?.url && (
          <a className="btn btn--primary" href={data.url} download={data.fileName ?? true}>
            Download ZIP
          </a>
        )}
        <button id={DOWNLOAD_DATA_ID} type="button" className="btn btn--secondary" onClick={() => void requestExport()} disabled={isLoading || status === 'pending'}>
          {status === 'ready' ? 'Prepare a new copy' : 'Download my data'}
        </button>
      </div>
    </div>
  );
}

function DeleteAccountDialog({ clientId, canExport, onClose }: { clientId: string; canExport: boolean; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  // Issue 51: the server refuses (409 workspace_has_members) while the account's own workspace
  // has other members; the owner then transfers it, or confirms deleting it with the account.
  const [hasMembers, setHasMembers] = useState(false);
  const [withWorkspace, setWithWorkspace] = useState(false);
  const [deleteAccount, { isLoading }] = useDeleteAccountMutation();
  const dispatch = useAppDispatch();

  async function confirm(body: { password?: string; googleCredential?: string }) {
    setError(null);
    try {
      await deleteAccount(withWorkspace ? { ...body, deleteWorkspace: true } : body).unwrap();
      // Every session ended on the server; forget this one and leave.
      clearAuth();
      dispatch(signedOut());
      window.location.assign(ACCOUNT_DELETED_PATH);
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'workspace_has_members') setHasMembers(true);
      setError(errorMessage(err, 'Your account could not be deleted. Please try again.'));
    }
  }

  /** Closes the dialog and moves to "Download my data" (after the dialog has given focus back). */
  function downloadFirst() {
    onClose();
    window.setTimeout(() => {
      const button = document.getElementById(DOWNLOAD_DATA_ID);
      button?.scrollIntoView?.({ block: 'center' });
      button?.focus();
    }, 0);
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!password) return setError('Enter your password to confirm.');
    void confirm({ password });
  }

  return (
    <Dialog title="Delete your account?" onClose={onClose} role="alertdialog">
      <form onSubmit={onSubmit} noValidate className="form" aria-label="Delete account">
        <p>This cannot be undone. When you confirm:</p>
        <ul className="privacy-consequences">
          <li>you are signed out everywhere, and your API keys and webhooks stop working;</li>
          <li>your share links and embeds show "This page is no longer available";</li>
          <li>your products, 3D models, photos, leads and analytics are deleted;</li>
          <li>your subscription is cancelled, with no further charges.</li>
        </ul>
        <p className="field__help">We email you when everything is gone. You can sign up again with the same address afterwards.</p>
        {canExport && (
          <p className="field__help">
            Want a copy of your products, models and leads?{' '}
            <button type="button" className="btn btn--ghost btn--sm" onClick={downloadFirst} disabled={isLoading}>
              Download my data first
            </button>
          </p>
        )}
        {error && <Alert tone="error">{error}</Alert>}
        {hasMembers && (
          <div className="field" data-testid="delete-workspace">
            <label className="checkbox">
              <input type="checkbox" checked={withWorkspace} onChange={(e) => setWithWorkspace(e.target.checked)} disabled={isLoading} />
              Delete my workspace too: its other members lose access to everything in it, and we email them why
            </label>
            <p className="field__help">
              Or keep it for them: <Link to="/workspace/team">transfer its ownership</Link> first, then delete your account.
            </p>
          </div>
        )}
        <div className="field">
          <label htmlFor="delete-password">Your password</label>
          <input id="delete-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} disabled={isLoading} />
        </div>
        {clientId && (
          <div className="field">
            <p className="field__help">Signed up with Google? Confirm with Google instead:</p>
            <GoogleButton clientId={clientId} text="signin_with" onCredential={(c) => void confirm({ googleCredential: c })} onError={() => setError('Google sign-in failed. Please try again.')} disabled={isLoading} />
          </div>
        )}
        <div className="btn-row btn-row--end">
          <button type="button" className="btn btn--secondary" onClick={onClose} disabled={isLoading}>
            Cancel
          </button>
          <button type="submit" className="btn btn--danger" disabled={isLoading}>
            {isLoading ? 'Deleting...' : 'Delete my account'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
