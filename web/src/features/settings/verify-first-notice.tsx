import { errorMessage } from '../../lib/api';
import { useGetMeQuery } from '../../lib/session-api';
import { useResendVerificationMutation } from '../../entities/auth/verify-email-api';

/**
 * Shown in "API access" and "Webhooks" while the account's address is unverified: the
 * server refuses both (403 email_unverified) so that whoever signs up with someone else's
 * address cannot leave a key or a webhook behind for the real owner. Says why, and sends a
 * new verification link on request.
 */
export function VerifyFirstNotice({ what }: { what: string }) {
  const [resend, { data, error, isLoading }] = useResendVerificationMutation();
  return (
    <div className="alert alert--info" role="status" data-testid="verify-first">
      <p>
        <strong>Verify your email address first.</strong> {what} are only available once you have opened the link we
        emailed you when you signed up: this keeps anyone who signs up with someone else&apos;s address from leaving
        integrations behind.
      </p>
      <button type="button" className="btn btn--secondary btn--sm" onClick={() => void resend()} disabled={isLoading}>
        {isLoading ? 'Sending...' : 'Send a new verification link'}
      </button>
      {data && <p>{data.message}</p>}
      {error && <p role="alert">{errorMessage(error, 'The link could not be sent. Please try again.')}</p>}
    </div>
  );
}

/** Whether the signed-in account still has to verify its address (false while unknown). */
export function useNeedsVerification(): boolean {
  const { data: me } = useGetMeQuery();
  return me?.emailVerified === false;
}

/** Whether an API error is the server's "verify your email first" refusal. */
export function isUnverifiedError(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { code?: unknown }).code === 'email_unverified';
}
