import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconKey } from '../../components/icons';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import {
  API_KEY_SCOPES,
  MAX_API_KEY_NAME,
  useCreateApiKeyMutation,
  useListApiKeysQuery,
  useRevokeApiKeyMutation,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from './api-keys-api';
import './api-keys-panel.css';
import { isUnverifiedError, useNeedsVerification, VerifyFirstNotice } from './verify-first-notice';

/**
 * "API access" on /workspace/settings: keys for scripts and store integrations. A new key is
 * shown once, right after it is made (the server keeps only a hash), so the panel says so and
 * offers Copy; the list shows each key's first characters, scopes and last use; revoking asks
 * first, because the key stops working on its very next request.
 */
export function ApiKeysPanel() {
  const { data, isLoading, error: loadError } = useListApiKeysQuery();
  const [create, { isLoading: creating }] = useCreateApiKeyMutation();
  const [revoke, { isLoading: revoking }] = useRevokeApiKeyMutation();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['read']);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState<ApiKey | null>(null);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const [refusedUnverified, setRefusedUnverified] = useState(false);
  const unverified = useNeedsVerification() || refusedUnverified;

  function toggle(scope: ApiKeyScope, on: boolean) {
    setScopes((cur) => (on ? [...cur, scope] : cur.filter((s) => s !== scope)));
  }

  async function onCreate(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    setCopied(false);
    try {
      const key = await create({ name: name.trim(), scopes }).unwrap();
      setCreated(key);
      setName('');
    } catch (err) {
      if (isUnverifiedError(err)) setRefusedUnverified(true);
      setStatus({ tone: 'error', text: errorMessage(err, 'The key could not be created. Please try again.') });
    }
  }

  async function onCopy() {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      setStatus({ tone: 'error', text: 'Copying failed: select the key and copy it by hand.' });
    }
  }

  async function onRevoke() {
    if (!confirming) return;
    const key = confirming;
    try {
      await revoke(key.id).unwrap();
      if (created?.id === key.id) setCreated(null);
      setStatus({ tone: 'success', text: `Key "${key.name}" revoked` });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The key could not be revoked. Please try again.') });
    } finally {
      setConfirming(null);
    }
  }

  const keys = data?.items ?? [];
  const trimmed = name.trim();
  const canCreate = trimmed.length > 0 && trimmed.length <= MAX_API_KEY_NAME && scopes.length > 0 && !creating && !unverified;

  return (
    <section className="card form settings-form" role="region" aria-labelledby="api-access-title">
      <h2 className="section-title" id="api-access-title">
        API access
      </h2>
      <p className="field__help">
        Keys let your scripts and store integrations use the Photo3D API as you: send them as{' '}
        <code>Authorization: Bearer p3d_…</code>. A key cannot create other keys, change your password or plan, start a
        trial or buy add-ons.
      </p>
      <p className="field__help" data-testid="keys-end-with-sessions">
        Keys stop working when you sign out everywhere or change or reset your password: make new ones for your
        integrations afterwards.
      </p>
      {unverified && <VerifyFirstNotice what="API keys" />}
      {status && <Alert tone={status.tone}>{status.text}</Alert>}
      {loadError && <p className="muted">{errorMessage(loadError, 'API keys could not be loaded.')}</p>}

      {created && (
        <div className="api-key-created" role="region" aria-label="New API key">
          <Alert tone="success">
            Key "{created.name}" created. Copy it now: it will not be shown again.
          </Alert>
          {/* The whole key, full width and monospace (issue 50, P19). */}
          <div className="api-key-created__value">
            <input readOnly value={created.key} aria-label="New API key" spellCheck={false} onFocus={(e) => e.target.select()} />
            <button type="button" className="btn btn--secondary btn--sm" onClick={onCopy}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <div className="btn-row">
            <button type="button" className="btn btn--ghost btn--sm" onClick={() => setCreated(null)}>
              I have stored it
            </button>
          </div>
        </div>
      )}

      <form onSubmit={onCreate} noValidate>
        <div className="field">
          <label htmlFor="api-key-name">Key name</label>
          <input
            id="api-key-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={MAX_API_KEY_NAME}
            placeholder="Shopify sync"
            disabled={creating}
          />
        </div>
        <fieldset className="field api-keys-scopes">
          <legend className="field__label">Scopes</legend>
          {API_KEY_SCOPES.map((s) => (
            <label key={s.scope} className="checkbox">
              <input type="checkbox" checked={scopes.includes(s.scope)} onChange={(e) => toggle(s.scope, e.target.checked)} disabled={creating} />{' '}
              <strong>{s.label}</strong> <span className="muted">{s.help}</span>
            </label>
          ))}
          {scopes.length === 0 && <p className="field__help">Choose at least one scope.</p>}
        </fieldset>
        <div className="btn-row btn-row--end">
          <button type="submit" className="btn btn--primary" disabled={!canCreate}>
            {creating ? 'Creating...' : 'Create key'}
          </button>
        </div>
      </form>

      {isLoading ? (
        <p className="muted">Loading keys...</p>
      ) : keys.length === 0 ? (
        <EmptyState variant="inline" testId="api-keys-empty" icon={<IconKey />} title="No API keys yet." text="A key lets your own scripts and stores use the Photo3D API.">
          <a href="#api-key-name" className="btn btn--secondary btn--sm" onClick={(e) => (e.preventDefault(), document.getElementById('api-key-name')?.focus())}>
            Name your first key
          </a>
        </EmptyState>
      ) : (
        <table className="api-keys-table">
          <caption className="visually-hidden">Your API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td>{k.lastUsedAt ? <time dateTime={k.lastUsedAt}>{relativeTime(k.lastUsedAt)}</time> : 'Never'}</td>
                <td>
                  {k.revokedAt ? (
                    <span className="muted">Revoked</span>
                  ) : (
                    <button type="button" className="btn btn--ghost btn--sm" onClick={() => setConfirming(k)} aria-label={`Revoke ${k.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {confirming && (
        <ConfirmDialog
          title="Revoke this API key?"
          confirmLabel="Revoke key"
          busyLabel="Revoking..."
          busy={revoking}
          onConfirm={onRevoke}
          onCancel={() => setConfirming(null)}
        >
          <p>
            "{confirming.name}" ({confirming.prefix}…) stops working at once. Anything that uses it will be refused.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
