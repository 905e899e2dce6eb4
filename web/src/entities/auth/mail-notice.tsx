import { Alert } from '../../components/alert';
import { useGetPublicConfigQuery } from './auth-api';

/** Where this server's account mail goes; undefined while /api/config loads. */
export function useMailDelivery() {
  return useGetPublicConfigQuery().data?.mailDelivery;
}

/** Said instead of "we sent a link" when the server sends no mail (issue 29 item 9). */
export const NO_MAIL = 'This server does not send email (no mail relay is configured), so no link was sent. Ask the person who runs it to set SMTP_ADDR.';

/**
 * What to tell a person waiting for account mail: nothing extra with a real relay; where
 * the development Outbox is (make run without SMTP); or that no mail was sent at all.
 */
export function MailNotice() {
  const delivery = useMailDelivery();
  if (delivery === 'none') return <Alert tone="info">{NO_MAIL}</Alert>;
  if (delivery === 'dev-outbox')
    return (
      <p className="field__help">
        Development server: mail is not sent but kept in the{' '}
        <a href="/dev/mail" target="_blank" rel="noreferrer">
          Outbox
        </a>{' '}
        (open it on the computer running Photo3D).
      </p>
    );
  return null;
}
