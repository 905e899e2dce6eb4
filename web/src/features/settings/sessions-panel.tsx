import { useState } from 'react';
import { Alert } from '../../components/alert';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { errorMessage } from '../../lib/api';
import { useSignOutEverywhereMutation } from './sessions-api';

/**
 * Settings → Sessions: "Sign out everywhere" ends every session on every device and every
 * API key (keys are bound to the sessions of the moment they were made), then keeps this
 * device signed in with a fresh session. The panel says so before and after.
 */
export function SessionsPanel() {
  const [signOutEverywhere, { isLoading }] = useSignOutEverywhereMutation();
  const [confirming, setConfirming] = useState(false);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  async function onConfirm() {
    try {
      await signOutEverywhere().unwrap();
      setStatus({ tone: 'success', text: 'Signed out everywhere else. Your API keys were revoked: create new ones for your integrations.' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'Could not sign out everywhere. Please try again.') });
    } finally {
      setConfirming(false);
    }
  }

  return (
    <section className="card form settings-form" role="region" aria-labelledby="sessions-title">
      <h2 className="section-title" id="sessions-title">
        Sessions
      </h2>
      <p className="field__help" data-testid="sign-out-everywhere-help">
        Signs you out on every other device and browser, and revokes every API key: scripts and store integrations that use
        a key stop working until you give them a new one. This device stays signed in.
      </p>
      {status && <Alert tone={status.tone}>{status.text}</Alert>}
      <div className="btn-row">
        <button type="button" className="btn btn--secondary" onClick={() => setConfirming(true)} disabled={isLoading}>
          Sign out everywhere
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          busyLabel="Signing out..."
          busy={isLoading}
          onConfirm={onConfirm}
          onCancel={() => setConfirming(false)}
        >
          <p>Every other session ends, and every API key is revoked at once.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
