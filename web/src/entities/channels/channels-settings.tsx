import { useState } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useGoogleFeedQuery, useRotateGoogleFeedMutation } from './channels-api';
import { ShopifyConnect } from './shopify-connect';

/**
 * Settings → Channels (issue 32): the Google Merchant Center feed URL to add in Merchant Center
 * as a scheduled fetch, and "New URL" to rotate it (the old one stops at once).
 */
export function ChannelsSettings() {
  const { data: url, error, isLoading } = useGoogleFeedQuery();
  const [rotate, { isLoading: rotating }] = useRotateGoogleFeedMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const [rotated, setRotated] = useState(false);
  return (
    <section className="card form settings-form" aria-labelledby="channels-title" data-testid="channels-settings">
      <h2 className="section-title" id="channels-title">
        Channels
      </h2>
      <h3 className="field__label">Google Merchant Center feed</h3>
      <p className="field__help">
        Add this URL in Merchant Center (Products → Feeds → Scheduled fetch). It lists every priced variant of your published products
        with its 3D model, so Google Shopping can show it in 3D and AR. Products behind the email gate are left out.
      </p>
      {isLoading && <p className="muted">Loading…</p>}
      {error && <Alert tone="error">{errorMessage(error, 'The feed URL could not be loaded.')}</Alert>}
      {url && (
        <input className="input" readOnly value={url} aria-label="Google feed URL" onFocus={(e) => e.currentTarget.select()} />
      )}
      {problem && <Alert tone="error">{problem}</Alert>}
      {rotated && <Alert tone="success">New feed URL made. Update it in Merchant Center: the old one no longer works.</Alert>}
      <div className="form__actions">
        <button
          type="button"
          className="btn btn--secondary"
          disabled={rotating || !url}
          onClick={async () => {
            setProblem(null);
            setRotated(false);
            try {
              await rotate().unwrap();
              setRotated(true);
            } catch (err) {
              setProblem(errorMessage(err, 'The feed URL could not be changed. Please try again.'));
            }
          }}
        >
          New URL
        </button>
      </div>
      <ShopifyConnect />
    </section>
  );
}
