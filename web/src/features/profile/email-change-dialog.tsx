import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Dialog } from '../../components/dialog';
import { errorMessage } from '../../lib/api';
import { validateLogin } from '../../entities/auth/auth-rules';
import { useRequestEmailChangeMutation } from '../../entities/auth/email-change-api';

/** The note under the read-only Email field: what the address is for and how it changes. */
export const EMAIL_NOTE = 'You sign in with this address. To change it, use Change email: we send a confirmation link to the new address, and the change happens when you open it.';

/**
 * Profile → Change email: the new address and the current password. The server mails a
 * link to the new address; until it is opened the account signs in with the current one.
 */
export function EmailChangeDialog({ current, onClose }: { current: string; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [request, { data, isLoading }] = useRequestEmailChangeMutation();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (email.trim().toLowerCase() === current.toLowerCase()) return setError('This is already your sign-in email.');
    const invalid = validateLogin(email, password); // the address, then the password, as sign-in checks them
    if (invalid) return setError(invalid);
    try {
      await request({ email: email.trim(), password }).unwrap();
      setPassword('');
    } catch (err) {
      setError(errorMessage(err, 'The confirmation link could not be sent. Please try again.'));
    }
  }

  return (
    <Dialog title="Change your sign-in email" onClose={onClose}>
      {data ? (
        <div className="form">
          <Alert tone="success">{data.message}</Alert>
          <p className="field__help">
            We will also tell {current} once the change is made. Did not get the mail? Check the address and ask again; a new link replaces the
            old one.
          </p>
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={onSubmit} noValidate className="form" aria-label="Change email">
          <p className="field__help">Your current sign-in email is {current}. It stays until you open the link we send to the new address.</p>
          {error && <Alert tone="error">{error}</Alert>}
          <div className="field">
            <label htmlFor="email-change-new">New email address</label>
            <input id="email-change-new" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={isLoading} />
          </div>
          <div className="field">
            <label htmlFor="email-change-password">Current password</label>
            <input id="email-change-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} disabled={isLoading} />
          </div>
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--secondary" onClick={onClose} disabled={isLoading}>
              Cancel
            </button>
            <button type="submit" className="btn btn--primary" disabled={isLoading}>
              {isLoading ? 'Sending...' : 'Send confirmation link'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
