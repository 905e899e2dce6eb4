import { useEffect, useRef } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { saveAuth } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { signedIn } from '../../lib/session';
import { toAuthRecord } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { SIGNUP_REDIRECT_MS } from '../../entities/auth/auth-rules';
import { useVerifyEmailMutation } from '../../entities/auth/verify-email-api';

/**
 * /verify-email?token= — the link mailed at sign-up. The token is sent once
 * (it is single-use on the server), and the page shows what the server said. The answer
 * carries a session (a new password account signs in only this way): it is saved for this
 * browser tab and the workspace opens after a moment.
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

  useEffect(() => {
    if (!record) return;
    saveAuth(record, false);
    const timer = window.setTimeout(() => {
      dispatch(signedIn(record));
      navigate('/my-home', { replace: true });
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
          {record ? ' Signing you in...' : ''}
        </Alert>
      )}
      <p className="auth-card__footer">
        <Link to="/my-home">Go to Photo3D</Link>
      </p>
    </AuthLayout>
  );
}
