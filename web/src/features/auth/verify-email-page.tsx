import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { AuthLayout } from './auth-layout';
import { useVerifyEmailMutation } from './verify-email-api';

/**
 * /verify-email?token= — the link mailed at sign-up. The token is sent once
 * (it is single-use on the server), and the page shows what the server said.
 */
export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [verify, { data, error, isUninitialized, isLoading }] = useVerifyEmailMutation();
  const sent = useRef(false);

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    void verify({ token });
  }, [token, verify]);

  return (
    <AuthLayout>
      <h1 className="auth-card__title">Verify your email</h1>
      {!token ? (
        <Alert tone="error">This verification link is missing its token. Open the link from the email again.</Alert>
      ) : isUninitialized || isLoading ? (
        <p role="status">Verifying your email address...</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'This verification link could not be used. Sign in and ask for a new one.')}</Alert>
      ) : (
        <Alert tone="success">{data?.message ?? 'Your email address is verified.'}</Alert>
      )}
      <p className="auth-card__footer">
        <Link to="/my-home">Go to Photo3D</Link>
      </p>
    </AuthLayout>
  );
}
