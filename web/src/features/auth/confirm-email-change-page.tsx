import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { clearAuth } from '../../lib/auth-storage';
import { useAppDispatch, useAppSelector } from '../../lib/hooks';
import { selectAuthUser, signedOut } from '../../lib/session';
import { useConfirmEmailChangeMutation } from '../../entities/auth/email-change-api';
import { AuthLayout } from './auth-layout';

/**
 * /confirm-email-change?token= — a link of the sign-in email change: the one mailed to the
 * new address (the change takes effect) or the undo link mailed to the old one (the old
 * address is back and every device is signed out). The token is sent once (single use).
 * Nobody is signed in by it: a signed-in tab keeps its session after a change, and forgets
 * it after an undo, which ended it on the server.
 */
export default function ConfirmEmailChangePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [confirm, { data, error, isUninitialized, isLoading }] = useConfirmEmailChangeMutation();
  const sent = useRef(false);
  const dispatch = useAppDispatch();
  const signedIn = useAppSelector(selectAuthUser) !== null;

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    void confirm({ token });
  }, [token, confirm]);

  useEffect(() => {
    if (!data?.undone) return;
    clearAuth();
    dispatch(signedOut());
  }, [data, dispatch]);

  const next = data?.undone ? { to: '/forgot-password', label: 'Choose a new password' } : signedIn ? { to: '/workspace/profile', label: 'Back to your profile' } : { to: '/login', label: 'Sign in' };
  return (
    <AuthLayout>
      <h1 className="auth-card__title">Your sign-in email</h1>
      {!token ? (
        <Alert tone="error">This link is missing its token. Open the link from the email again.</Alert>
      ) : isUninitialized || isLoading ? (
        <p role="status">Confirming your new email address...</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'This link could not be used. Ask for the change again on your Profile page.')}</Alert>
      ) : (
        <Alert tone="success">{data?.message}</Alert>
      )}
      <p className="auth-card__footer">
        <Link to={next.to}>{next.label}</Link>
      </p>
    </AuthLayout>
  );
}
