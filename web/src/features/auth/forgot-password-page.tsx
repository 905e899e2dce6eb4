import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { useForgotPasswordMutation } from '../../entities/auth/auth-api';
import { AuthLayout } from './auth-layout';
import { MailNotice, useMailDelivery } from '../../entities/auth/mail-notice';

/** Neutral answer: never reveals whether an account exists. */
export const FORGOT_PASSWORD_SENT = 'If an account exists for that email, we sent a reset link.';

/** /forgot-password — asks the server to e-mail a reset link. */
export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [request, { isLoading }] = useForgotPasswordMutation();
  const delivery = useMailDelivery();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!email.trim()) return setError('Please enter your email address');
    if (!email.includes('@')) return setError('Please enter a valid email address');
    setError(null);
    try {
      await request({ email: email.trim() }).unwrap();
    } catch {
      /* the answer is the same either way */
    }
    setSent(true);
  }

  return (
    <AuthLayout>
      <h1 className="auth-card__title">Reset your password</h1>
      <p className="auth-card__subtitle">Enter the email you sign in with and we will send you a reset link.</p>
      {sent ? (
        delivery === 'none' ? (
          <MailNotice />
        ) : (
          <>
            <Alert tone="success">{FORGOT_PASSWORD_SENT}</Alert>
            <MailNotice />
          </>
        )
      ) : (
        <form className="form" onSubmit={onSubmit} noValidate>
          {error && <Alert tone="error">{error}</Alert>}
          <div className="field">
            <label htmlFor="forgot-email">Email Address</label>
            <input id="forgot-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={isLoading} />
          </div>
          <button type="submit" className="btn btn--primary btn--block" disabled={isLoading}>
            {isLoading ? 'Sending...' : 'Send reset link'}
          </button>
        </form>
      )}
      <p className="auth-card__footer">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
