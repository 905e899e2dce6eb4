import { errorMessage } from '../../lib/api';
import { useGetMeQuery } from '../../lib/session-api';
import { NO_MAIL, useMailDelivery } from '../../entities/auth/mail-notice';
import { useResendVerificationMutation } from '../../entities/auth/verify-email-api';

/**
 * "Verify your email" notice at the top of the workspace while the signed-in user's
 * address is unproven (the server's user.emailVerified is false). Google sign-in will
 * not link to an unverified account, so the notice stays until the mailed link is
 * opened; "Resend" mails a fresh link. It is gone once /users/me says verified.
 */
export function VerifyEmailBanner() {
  const { data: me } = useGetMeQuery();
  const [resend, { data, error, isLoading }] = useResendVerificationMutation();
  const delivery = useMailDelivery();
  if (me?.emailVerified !== false) return null;
  if (delivery === 'none')
    return (
      <div className="verify-banner" role="region" aria-label="Verify your email">
        <p>
          <strong>Verify your email.</strong> {NO_MAIL}
        </p>
      </div>
    );
  return (
    <div className="verify-banner" role="region" aria-label="Verify your email">
      <p>
        <strong>Verify your email.</strong> We sent a link to {me.email}. Open it to confirm the address is yours.
      </p>
      <button type="button" className="btn btn--secondary btn--sm" onClick={() => void resend()} disabled={isLoading}>
        {isLoading ? 'Sending...' : 'Resend'}
      </button>
      {data && <p role="status">{data.message}</p>}
      {error && <p role="alert">{errorMessage(error, 'The link could not be sent. Please try again.')}</p>}
    </div>
  );
}
