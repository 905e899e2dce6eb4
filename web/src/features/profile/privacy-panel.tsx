import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { clearAuth } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedOut } from '../../lib/session';
import { GoogleButton, googleClientId } from '../../entities/auth/google-button';
import { useDeleteAccountMutation, useGetDataExportQuery, useRequestDataExportMutation, type DataExport } from './privacy-api';

/** Where the app lands after the account is deleted; the sign-in page shows the notice. */
export const ACCOUNT_DELETED_PATH = '/login?accountDeleted=1';

/** Profile → Your data: download a copy and delete the account (issue 31). */
export function PrivacyPanel({ clientId = googleClientId }: { clientId?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="card form profile-form" aria-labelledby="privacy-title">
      <h2 id="privacy-title" className="section-title">
        Your data
      </h2>
      <DownloadData />
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
      {open && <DeleteAccountDialog clientId={clientId} onClose={() => setOpen(false)} />}
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

function DeleteAccountDialog({ clientId, onClose }: { clientId: string; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [deleteAccount, { isLoading }] = useDeleteAccountMutation();
  const dispatch = useAppDispatch();

  async function confirm(body: { password?: string; googleCredential?: string }) {
    setError(null);
    try {
      await deleteAccount(body).unwrap();
      // Every session ended on the server; forget this one and leave.
      clearAuth();
      dispatch(signedOut());
      window.location.assign(ACCOUNT_DELETED_PATH);
    } catch (err) {
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
        <p className="field__help">
          Want a copy of your products, models and leads?{' '}
          <button type="button" className="btn btn--ghost btn--sm" onClick={downloadFirst} disabled={isLoading}>
            Download my data first
          </button>
        </p>
        {error && <Alert tone="error">{error}</Alert>}
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
