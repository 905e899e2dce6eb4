import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { saveAuth } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedIn } from '../../lib/session';
import { toAuthRecord } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { SIGNUP_REDIRECT_MS } from '../../entities/auth/auth-rules';
import { takeSignupIntent } from '../../entities/auth/signup-intent';
import { useVerifyEmailMutation } from '../../entities/auth/verify-email-api';

/** Spec §2 sign-up success message, shown when the link has signed the new account in. */
export const MSG_ACCOUNT_CREATED = 'Account created successfully! Redirecting...';

/**
 * /verify-email?token= — the link mailed at sign-up. The token is sent once
 * (it is single-use on the server), and the page shows what the server said. The answer
 * carries a session (a new password account signs in only this way): this is where sign-up
 * ends, so it says the spec's "Account created successfully! Redirecting..." and, after the
 * spec's 1.5 s, opens where the merchant was going when they signed up (else /my-home). The
 * session is kept as the sign-up form's "Keep me signed in" said (signup-intent.ts): this tab
 * only, or local storage too.
 */
export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [verify, { data, error, isUninitialized, isLoading }] = useVerifyEmailMutation();
  const sent = useRef(false);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const record = data ? toAuthRecord(data) : null;

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    void verify({ token });
  }, [token, verify]);

  // The sign-up note is used up when read: read once per answer, kept here (StrictMode runs
  // the effect below twice in development).
  const intent = useRef<{ for: unknown; remember: boolean; to: string } | null>(null);
  const [target, setTarget] = useState('/my-home');
  useEffect(() => {
    if (!record) return;
    let once = intent.current;
    if (!once || once.for !== data) {
      const got = takeSignupIntent(record.user?.email);
      once = intent.current = { for: data, remember: got?.remember ?? false, to: got?.from ?? '/my-home' };
    }
    const { remember, to } = once;
    saveAuth(record, remember);
    setTarget(to);
    const timer = window.setTimeout(() => {
      dispatch(signedIn(record));
      navigate(to, { replace: true });
    }, SIGNUP_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [data]); // record is derived from data: once per answer

  return (
    <AuthLayout>
      <h1 className="auth-card__title">Verify your email</h1>
      {!token ? (
        <Alert tone="error">This verification link is missing its token. Open the link from the email again.</Alert>
      ) : isUninitialized || isLoading ? (
        <p role="status">Verifying your email address...</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'This verification link could not be used. Ask for a new one on the sign-in page.')}</Alert>
      ) : (
        <Alert tone="success">
          {data?.message ?? 'Your email address is verified.'}
          {record ? ` ${MSG_ACCOUNT_CREATED}` : ''}
        </Alert>
      )}
      <p className="auth-card__footer">
        <Link to={target}>Go to Photo3D</Link>
      </p>
    </AuthLayout>
  );
}
