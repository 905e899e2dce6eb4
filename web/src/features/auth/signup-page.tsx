import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import type { AuthRecord } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedIn } from '../../lib/session';
import { signupName } from '../../lib/user';
import { useGetPublicConfigQuery, useGoogleLoginMutation, useResendVerificationForMutation, useSignupMutation } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { MailNotice, useMailDelivery } from '../../entities/auth/mail-notice';
import { redirectTarget, SIGNUP_REDIRECT_MS, validateSignup } from '../../entities/auth/auth-rules';
import { GoogleButton, googleClientId } from '../../entities/auth/google-button';
import { PasswordStrength } from '../../entities/auth/password-strength';
import { saveSignupIntent } from '../../entities/auth/signup-intent';

/** /signup — free account creation. */
export default function SignupPage({ clientId = googleClientId }: { clientId?: string }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  // After a password sign-up: "check your email" (the mailed link signs the new account in).
  const [checkEmail, setCheckEmail] = useState<{ email: string; message: string } | null>(null);
  const [signup, { isLoading }] = useSignupMutation();
  const [googleLogin, { isLoading: googleLoading }] = useGoogleLoginMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  // Invite-only servers (SIGNUP_MODE=invite) need a code; an invite link (?invite=CODE) fills it in.
  const inviteOnly = useGetPublicConfigQuery().data?.signupMode === 'invite';
  const [invite, setInvite] = useState(() => params.get('invite')?.trim() ?? '');
  const inviteCode = invite.trim() || undefined;
  const timer = useRef<number | undefined>(undefined);
  const busy = isLoading || googleLoading || success !== null;

  useEffect(() => () => window.clearTimeout(timer.current), []);

  function finish(record: AuthRecord) {
    // A Google sign-in may be a returning account (the server signs it in): no "Account created".
    setSuccess('Signed in with Google! Redirecting...');
    const target = redirectTarget(location.state);
    timer.current = window.setTimeout(() => {
      dispatch(signedIn(record));
      navigate(target, { replace: true });
    }, SIGNUP_REDIRECT_MS);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const invalid = validateSignup({ name, email, password, confirm });
    if (invalid) {
      setError(invalid);
      return;
    }
    setError(null);
    try {
      const { message } = await signup({ email: email.trim(), password, name: signupName(name, email.trim()), remember, inviteCode }).unwrap();
      // The mailed link signs the account in: it keeps this form's choice and return path.
      saveSignupIntent(email.trim(), { remember, from: redirectTarget(location.state) });
      setCheckEmail({ email: email.trim(), message });
      setPassword('');
      setConfirm('');
    } catch (err) {
      setError(errorMessage(err, 'Signup failed. Please try again.'));
    }
  }

  async function onGoogle(credential: string) {
    setError(null);
    try {
      finish(await googleLogin({ credential, remember, inviteCode }).unwrap());
    } catch (err) {
      setError(errorMessage(err, 'Google login failed. Please try again.'));
    }
  }

  if (checkEmail) return <CheckEmail email={checkEmail.email} message={checkEmail.message} />;

  return (
    <AuthLayout showSteps>
      <h1 className="auth-card__title">Create Account</h1>
      <p className="auth-card__subtitle">Get started with your free account</p>
      {error && <Alert tone="error">{error}</Alert>}
      {success && <Alert tone="success">{success}</Alert>}
      {inviteOnly && (
        <div className="field">
          <label htmlFor="signup-invite">Invite code</label>
          <input
            id="signup-invite"
            autoComplete="off"
            spellCheck={false}
            aria-describedby="signup-invite-help"
            value={invite}
            onChange={(e) => setInvite(e.target.value)}
            disabled={busy}
          />
          <p id="signup-invite-help" className="field__help">Sign-up is by invitation only. Your invite e-mail has the code.</p>
        </div>
      )}
      {clientId && (
        <>
          <GoogleButton clientId={clientId} onCredential={onGoogle} onError={() => setError('Google login failed. Please try again.')} disabled={busy} />
          <div className="divider"><span>or continue with email</span></div>
        </>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor="signup-name">Full Name</label>
          <input id="signup-name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} disabled={busy} />
        </div>
        <div className="field">
          <label htmlFor="signup-email">Email Address</label>
          <input id="signup-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={busy} />
        </div>
        <div className="field">
          <label htmlFor="signup-password">Password</label>
          <input id="signup-password" type="password" autoComplete="new-password" aria-describedby="signup-password-help" value={password} onChange={(e) => setPassword(e.target.value)} disabled={busy} />
          <PasswordStrength id="signup-password-help" password={password} />
        </div>
        <div className="field">
          <label htmlFor="signup-confirm">Confirm Password</label>
          <input id="signup-confirm" type="password" autoComplete="new-password" aria-describedby="signup-confirm-help" value={confirm} onChange={(e) => setConfirm(e.target.value)} disabled={busy} />
          {confirm && (
            <p id="signup-confirm-help" className={confirm === password ? 'hint hint--met' : 'hint hint--error'} aria-live="polite">
              {confirm === password ? 'Passwords match' : 'Passwords do not match'}
            </p>
          )}
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} disabled={busy} />
          Keep me signed in for 24 hours
        </label>
        <button type="submit" className="btn btn--primary btn--block" disabled={busy}>
          {isLoading && <span className="spinner spinner--sm" aria-hidden="true" />}
          {isLoading ? 'Creating Account...' : 'Create Account'}
        </button>
      </form>
      <p className="auth-card__footer">
        <Link to="/login" state={location.state}>Already have an account? Sign in</Link>
      </p>
    </AuthLayout>
  );
}

/**
 * "Check your email" after a password sign-up. The same screen for a new and a taken
 * address (the server answers alike); the link in the mail signs the new account in.
 * "Send the link again" answers alike too.
 */
function CheckEmail({ email, message }: { email: string; message: string }) {
  const [resend, { data, error, isLoading }] = useResendVerificationForMutation();
  if (useMailDelivery() === 'none')
    return (
      <AuthLayout>
        <h1 className="auth-card__title">No email was sent</h1>
        <MailNotice />
        <p className="field__help">
          Your sign-up for <strong>{email}</strong> was received, but the account opens only from the link in that email.
        </p>
        <p className="auth-card__footer">
          <Link to="/login">Back to sign in</Link>
        </p>
      </AuthLayout>
    );
  return (
    <AuthLayout>
      <h1 className="auth-card__title">Check your email</h1>
      <p className="auth-card__subtitle">
        We sent a link to <strong>{email}</strong>
      </p>
      {/* One message (the server's, the same for a new and a taken address), not the same
          words twice (issue 50, P3). */}
      <Alert tone="success">{message} The link works once, for 48 hours.</Alert>
      <MailNotice />
      <section className="check-email__resend" aria-label="Send the link again">
        <p className="field__help">Nothing arrived after a few minutes? Check your spam folder, or:</p>
        <div className="btn-row">
          <button type="button" className="btn btn--secondary" onClick={() => void resend({ email })} disabled={isLoading}>
            {isLoading ? 'Sending...' : 'Send the link again'}
          </button>
        </div>
        {data && <Alert tone="info">{data.message}</Alert>}
        {error && <Alert tone="error">{errorMessage(error, 'The link could not be sent. Please try again.')}</Alert>}
      </section>
      <p className="auth-card__footer">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
