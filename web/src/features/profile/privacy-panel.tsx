import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { clearAuth } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedOut } from '../../lib/session';
import { GoogleButton, googleClientId } from '../auth/google-button';
import { useDeleteAccountMutation } from './privacy-api';

/** Where the app lands after the account is deleted; the sign-in page shows the notice. */
export const ACCOUNT_DELETED_PATH = '/login?accountDeleted=1';

/** Profile → Your data: delete the account (issue 31). */
export function PrivacyPanel({ clientId = googleClientId }: { clientId?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="card form profile-form" aria-labelledby="privacy-title">
      <h2 id="privacy-title" className="section-title">
        Your data
      </h2>
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
