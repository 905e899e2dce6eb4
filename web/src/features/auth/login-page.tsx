import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useAppDispatch } from '../../lib/hooks';
import { signedIn } from '../../lib/session';
import type { AuthRecord } from '../../lib/auth-storage';
import { useGetPublicConfigQuery, useGoogleLoginMutation, useLoginMutation, useResendVerificationForMutation } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { LOGIN_REDIRECT_MS, redirectTarget, validateLogin } from '../../entities/auth/auth-rules';
import { GoogleButton, googleClientId } from '../../entities/auth/google-button';

/** /login — sign-in with a password or, when configured, with Google (returning users). */
export default function LoginPage({ clientId = googleClientId }: { clientId?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [login, { isLoading }] = useLoginMutation();
  const [googleLogin, { isLoading: googleLoading }] = useGoogleLoginMutation();
  // The subtitle says "invite-only" only when the server really is (SIGNUP_MODE=invite).
  const inviteOnly = useGetPublicConfigQuery().data?.signupMode === 'invite';
  const [resend, { data: resent, error: resendError, isLoading: resending, reset: resetResend }] = useResendVerificationForMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const timer = useRef<number | undefined>(undefined);
  const busy = isLoading || googleLoading || success !== null;

  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setSuccess(null);
    const invalid = validateLogin(email, password);
    if (invalid) {
      setError(invalid);
      return;
    }
    setError(null);
    resetResend();
    try {
      const record = await login({ email: email.trim(), password, remember }).unwrap();
      // The session is announced only when leaving: signed in, this public page would
      // redirect at once and the message would never be seen.
      finish(record, 'Logged in successfully! Redirecting...');
    } catch (err) {
      setError(errorMessage(err, 'Login failed. Please try again.'));
    }
  }

  function finish(record: AuthRecord, message: string) {
    setSuccess(message);
    const target = redirectTarget(location.state);
    timer.current = window.setTimeout(() => {
      dispatch(signedIn(record));
      navigate(target, { replace: true });
    }, LOGIN_REDIRECT_MS);
  }

  async function onGoogle(credential: string) {
    setError(null);
    resetResend();
    try {
      // The server signs in the account this Google identity belongs to (or creates it on an open server).
      finish(await googleLogin({ credential, remember }).unwrap(), 'Signed in with Google! Redirecting...');
    } catch (err) {
      setError(errorMessage(err, 'Google login failed. Please try again.'));
    }
  }

  return (
    <AuthLayout>
      <h1 className="auth-card__title">Welcome</h1>
      <p className="auth-card__subtitle">{inviteOnly ? 'Invite-only access' : 'Sign in to your account'}</p>
      {clientId && (
        <>
          <GoogleButton clientId={clientId} text="signin_with" onCredential={onGoogle} onError={() => setError('Google login failed. Please try again.')} disabled={busy} />
          <div className="divider"><span>or sign in with email</span></div>
        </>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        {new URLSearchParams(location.search).has('accountDeleted') && !error && !success && (
          <Alert tone="info">Your account is being deleted. We&apos;ll email you when your data is gone.</Alert>
        )}
        {error && <Alert tone="error">{error}</Alert>}
        {error && email.includes('@') && !resent && (
          // A new account signs in from its mailed link; the answer is the same for every address.
          <button type="button" className="btn btn--link" onClick={() => void resend({ email: email.trim() })} disabled={resending}>
            {resending ? 'Sending...' : 'Just signed up? Send the verification link again'}
          </button>
        )}
        {resent && <Alert tone="info">{resent.message}</Alert>}
        {resendError && <Alert tone="error">{errorMessage(resendError, 'The link could not be sent. Please try again.')}</Alert>}
        {success && <Alert tone="success">{success}</Alert>}
        <div className="field">
          <label htmlFor="login-email">Email Address</label>
          <input id="login-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={busy} />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input id="login-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} disabled={busy} />
        </div>
        <div className="form__row">
          <label className="checkbox">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} disabled={busy} />
            Remember me
          </label>
          <Link to="/forgot-password">Forgot password?</Link>
        </div>
        <button type="submit" className="btn btn--primary btn--block" disabled={busy}>
          {isLoading && <span className="spinner spinner--sm" aria-hidden="true" />}
          {isLoading ? 'Signing In...' : 'Sign In'}
        </button>
      </form>
      <p className="auth-card__footer">
        New to Photo3D? <Link to="/signup" state={location.state}>Create an account</Link>
      </p>
    </AuthLayout>
  );
}
