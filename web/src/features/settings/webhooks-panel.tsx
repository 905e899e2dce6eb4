import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconClock, IconPlug } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import {
  WEBHOOK_EVENTS,
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useListWebhooksQuery,
  useTestWebhookMutation,
  useWebhookDeliveriesQuery,
  type CreatedWebhook,
  type Webhook,
  type WebhookDelivery,
} from './webhooks-api';
import { isUnverifiedError, useNeedsVerification, VerifyFirstNotice } from './verify-first-notice';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * Settings → Webhooks: endpoints that receive signed event callbacks, with their delivery logs.
 * readOnly (issue 51: a reviewer): the endpoints and their deliveries, without adding, testing or deleting.
 */
export function WebhooksPanel({ readOnly = false }: { readOnly?: boolean }) {
  const { data: hooks = [], error: loadError, isLoading } = useListWebhooksQuery();
  const [create, { isLoading: creating }] = useCreateWebhookMutation();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [refusedUnverified, setRefusedUnverified] = useState(false);
  const unverified = useNeedsVerification() || refusedUnverified;

  function toggle(type: string) {
    setEvents((cur) => (cur.includes(type) ? cur.filter((t) => t !== type) : [...cur, type]));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    setCreated(null);
    try {
      // The server validates everything (https, events, limits); its message is shown as is.
      const c = await create({ url: url.trim(), events }).unwrap();
      setCreated(c);
      setUrl('');
      setEvents([]);
    } catch (err) {
      if (isUnverifiedError(err)) setRefusedUnverified(true);
      setFormError(errorMessage(err, 'The endpoint could not be added. Please try again.'));
    }
  }

  return (
    <section className="card form settings-form" aria-labelledby="webhooks-title">
      <h2 className="section-title" id="webhooks-title">
        Webhooks
      </h2>
      <p className="field__help">
        We POST a signed JSON event to your endpoint when something happens. Verify the <code>Photo3D-Signature</code> header with
        the endpoint&apos;s signing secret; failed deliveries are retried for 24 hours.
      </p>
      {loadError && <Alert tone="error">{errorMessage(loadError, 'Webhooks could not be loaded.')}</Alert>}
      {unverified && !readOnly && <VerifyFirstNotice what="Webhooks" />}
      {created && created.secret === null && <Alert tone="info">{created.secretNote}</Alert>}
      {created && created.secret !== null && (
        <Alert tone="success">
          <span>
            Endpoint added. Copy its signing secret now — it will not be shown again:{' '}
            <code data-testid="webhook-secret">{created.secret}</code>{' '}
            <button type="button" className="btn btn--ghost btn--sm" onClick={() => void navigator.clipboard?.writeText(created.secret ?? '')}>
              Copy
            </button>
          </span>
        </Alert>
      )}
      {!readOnly && (
        <form onSubmit={onSubmit} noValidate aria-label="Add webhook endpoint">
          {formError && <Alert tone="error">{formError}</Alert>}
          <div className="field">
            <label htmlFor="webhook-url">Endpoint URL</label>
            <input
              id="webhook-url"
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://example.com/photo3d/webhooks"
              maxLength={2048}
              disabled={creating}
            />
          </div>
          <fieldset className="field webhooks__choices">
            <legend className="field__label">Events</legend>
            {WEBHOOK_EVENTS.map((ev) => (
              <label key={ev.type} className="checkbox">
                <input type="checkbox" checked={events.includes(ev.type)} onChange={() => toggle(ev.type)} disabled={creating} />
                {ev.label} <code>{ev.type}</code>
              </label>
            ))}
          </fieldset>
          <div className="btn-row btn-row--end">
            <button type="submit" className="btn btn--primary" disabled={creating || unverified}>
              {creating ? 'Adding...' : 'Add endpoint'}
            </button>
          </div>
        </form>
      )}
      {!isLoading && hooks.length === 0 && !loadError && (
        <EmptyState variant="inline" testId="webhooks-empty" icon={<IconPlug />} title="No webhook endpoints yet." text="An endpoint receives a signed POST when a build finishes, a page is published or a lead arrives.">
          {!readOnly && (
            <a href="#webhook-url" className="btn btn--secondary btn--sm" onClick={(e) => (e.preventDefault(), document.getElementById('webhook-url')?.focus())}>
              Add your first endpoint
            </a>
          )}
        </EmptyState>
      )}
      <ul className="webhooks__list">
        {hooks.map((h) => (
          <WebhookItem key={h.id} hook={h} readOnly={readOnly} />
        ))}
      </ul>
    </section>
  );
}

function WebhookItem({ hook, readOnly }: { hook: Webhook; readOnly: boolean }) {
  const [remove, { isLoading: removing }] = useDeleteWebhookMutation();
  const [sendTest, { isLoading: testing }] = useTestWebhookMutation();
  const [showLog, setShowLog] = useState(false);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  async function onTest() {
    setStatus(null);
    try {
      await sendTest(hook.id).unwrap();
      setShowLog(true);
      setStatus({ tone: 'success', text: 'Test event queued' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The test event could not be queued.') });
    }
  }

  async function onDelete() {
    if (!window.confirm(`Delete the webhook endpoint ${hook.url}? Deliveries to it stop at once.`)) return;
    try {
      await remove(hook.id).unwrap();
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The endpoint could not be deleted.') });
    }
  }

  return (
    <li className="webhooks__item" aria-label={`Webhook ${hook.url}`}>
      <div className="webhooks__head">
        <div>
          <strong className="webhooks__url">{hook.url}</strong>
          <div className="webhooks__events">
            {hook.events.map((t) => (
              <span key={t} className="badge">
                {t}
              </span>
            ))}
          </div>
        </div>
        <div className="btn-row">
          {!readOnly && (
            <button type="button" className="btn btn--secondary btn--sm" onClick={onTest} disabled={testing}>
              {testing ? 'Sending...' : 'Send test event'}
            </button>
          )}
          <button type="button" className="btn btn--ghost btn--sm" onClick={() => setShowLog((v) => !v)} aria-expanded={showLog}>
            {showLog ? 'Hide deliveries' : 'Show deliveries'}
          </button>
          {!readOnly && (
            <button type="button" className="btn btn--ghost btn--sm" onClick={onDelete} disabled={removing}>
              Delete
            </button>
          )}
        </div>
      </div>
      {status && <Alert tone={status.tone}>{status.text}</Alert>}
      {showLog && <DeliveryLog id={hook.id} readOnly={readOnly} />}
    </li>
  );
}

const stateLabel: Record<WebhookDelivery['state'], string> = { pending: 'Retrying', delivered: 'Delivered', failed: 'Failed' };

function DeliveryLog({ id, readOnly }: { id: string; readOnly: boolean }) {
  // Refreshes while something is still being delivered, so retries show up without a reload.
  const [poll, setPoll] = useState(0);
  const { data = [], error, isFetching, refetch } = useWebhookDeliveriesQuery(id, { pollingInterval: poll });
  const pending = data.some((d) => d.state === 'pending');
  useEffect(() => setPoll(pending ? 5000 : 0), [pending]);
  if (error) return <Alert tone="error">{errorMessage(error, 'Deliveries could not be loaded.')}</Alert>;
  return (
    <div className="webhooks__log">
      <div className="btn-row">
        <button type="button" className="btn btn--link" onClick={() => void refetch()} disabled={isFetching}>
          Refresh
        </button>
      </div>
      {data.length === 0 ? (
        <EmptyState variant="inline" icon={<IconClock />} title="No deliveries yet." text={readOnly ? 'Events sent to this endpoint are listed here.' : 'Send a test event to see what this endpoint receives.'} />
      ) : (
        <table aria-label="Deliveries">
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Response</th>
              <th>Attempts</th>
              <th>Last attempt</th>
              <th>Next retry</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {data.map((d) => (
              <tr key={d.id}>
                <td>
                  <code>{d.eventType}</code>
                  <div className="muted">{d.eventId}</div>
                </td>
                <td>{stateLabel[d.state]}</td>
                <td>{d.lastStatus ?? '—'}</td>
                <td>{d.attempts}</td>
                <td>{when(d.lastAttemptAt)}</td>
                <td>{d.state === 'pending' ? when(d.nextRetryAt) : '—'}</td>
                <td>{d.lastError || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
