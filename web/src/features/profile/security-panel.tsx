import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { MIN_PASSWORD_LENGTH } from '../../entities/auth/auth-rules';
import { PasswordStrength } from '../../entities/auth/password-strength';
import { useChangePasswordMutation, useSignOutEverywhereMutation } from './security-api';

type Status = { tone: 'success' | 'error'; text: string } | null;

/** Profile → Security: change the password and sign out every other device. */
export function SecurityPanel() {
  const [changePassword, { isLoading: changing }] = useChangePasswordMutation();
  const [signOutEverywhere, { isLoading: signingOut }] = useSignOutEverywhereMutation();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [pwStatus, setPwStatus] = useState<Status>(null);
  const [sessionStatus, setSessionStatus] = useState<Status>(null);

  async function onChangePassword(e: FormEvent) {
    e.preventDefault();
    setPwStatus(null);
    if (!current || !next) return setPwStatus({ tone: 'error', text: 'Enter your current password and a new one.' });
    if (next.length < MIN_PASSWORD_LENGTH) return setPwStatus({ tone: 'error', text: `The new password needs at least ${MIN_PASSWORD_LENGTH} characters.` });
    if (next !== confirm) return setPwStatus({ tone: 'error', text: 'The new passwords do not match.' });
    try {
      await changePassword({ currentPassword: current, newPassword: next }).unwrap();
      setCurrent('');
      setNext('');
      setConfirm('');
      setPwStatus({ tone: 'success', text: 'Password changed. Every other device has been signed out.' });
    } catch (err) {
      setPwStatus({ tone: 'error', text: errorMessage(err, 'Your password could not be changed. Please try again.') });
    }
  }

  async function onSignOutEverywhere() {
    setSessionStatus(null);
    try {
      await signOutEverywhere().unwrap();
      setSessionStatus({ tone: 'success', text: 'Signed out everywhere else. This device stays signed in.' });
    } catch (err) {
      setSessionStatus({ tone: 'error', text: errorMessage(err, 'Could not sign out your other devices. Please try again.') });
    }
  }

  return (
    <section className="card form profile-form" aria-labelledby="security-title">
      <h2 id="security-title" className="section-title">
        Security
      </h2>
      <form onSubmit={onChangePassword} noValidate aria-label="Change password" className="form">
        <h3 className="security__heading">Change password</h3>
        {pwStatus && <Alert tone={pwStatus.tone}>{pwStatus.text}</Alert>}
        <div className="field">
          <label htmlFor="pw-current">Current password</label>
          <input id="pw-current" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} disabled={changing} />
        </div>
        <div className="form__grid">
          <div className="field">
            <label htmlFor="pw-new">New password</label>
            <input id="pw-new" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} disabled={changing} aria-describedby="pw-new-help" />
            <PasswordStrength password={next} id="pw-new-help" />
          </div>
          <div className="field">
            <label htmlFor="pw-confirm">Confirm new password</label>
            <input id="pw-confirm" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} disabled={changing} />
          </div>
        </div>
        <div className="btn-row btn-row--end">
          <button type="submit" className="btn btn--primary" disabled={changing}>
            {changing ? 'Changing...' : 'Change password'}
          </button>
        </div>
      </form>
      <div className="security-sessions">
        <h3 className="security__heading">Sessions</h3>
        <p className="field__help">Signed in on a shared or lost device? End every session except this one.</p>
        {sessionStatus && <Alert tone={sessionStatus.tone}>{sessionStatus.text}</Alert>}
        <div className="btn-row">
          <button type="button" className="btn btn--secondary" onClick={onSignOutEverywhere} disabled={signingOut}>
            {signingOut ? 'Signing out...' : 'Sign out everywhere'}
          </button>
        </div>
      </div>
    </section>
  );
}
