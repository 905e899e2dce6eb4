import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useResetPasswordMutation } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { MIN_PASSWORD_LENGTH } from '../../entities/auth/auth-rules';
import { PasswordStrength } from '../../entities/auth/password-strength';

/** /reset-password?token= — sets a new password from an e-mailed link. */
export default function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [reset, { isLoading }] = useResetPasswordMutation();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!password || !confirm) return setError('Please fill in all fields');
    if (password.length < MIN_PASSWORD_LENGTH) return setError('Password must be at least 8 characters long');
    if (password !== confirm) return setError('Passwords do not match');
    setError(null);
    try {
      await reset({ token, password }).unwrap();
      setDone(true);
    } catch (err) {
      setError(errorMessage(err, 'Password reset failed. Please try again.'));
    }
  }

  return (
    <AuthLayout>
      <h1 className="auth-card__title">Choose a new password</h1>
      {!token ? (
        <Alert tone="error">This reset link is missing its token. Request a new link from the sign-in page.</Alert>
      ) : done ? (
        <Alert tone="success">Your password has been reset. You can now sign in with it.</Alert>
      ) : (
        <form className="form" onSubmit={onSubmit} noValidate>
          {error && <Alert tone="error">{error}</Alert>}
          <div className="field">
            <label htmlFor="reset-password">New Password</label>
            <input id="reset-password" type="password" autoComplete="new-password" aria-describedby="reset-password-help" value={password} onChange={(e) => setPassword(e.target.value)} disabled={isLoading} />
            <PasswordStrength id="reset-password-help" password={password} />
          </div>
          <div className="field">
            <label htmlFor="reset-confirm">Confirm Password</label>
            <input id="reset-confirm" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} disabled={isLoading} />
          </div>
          <button type="submit" className="btn btn--primary btn--block" disabled={isLoading}>
            {isLoading ? 'Saving...' : 'Set new password'}
          </button>
        </form>
      )}
      <p className="auth-card__footer">
        <Link to={token ? '/login' : '/forgot-password'}>{token ? 'Go to sign in' : 'Request a new link'}</Link>
      </p>
    </AuthLayout>
  );
}
