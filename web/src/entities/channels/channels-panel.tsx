import { useEffect, useState } from 'react';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconCube } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import { formatSize, useProductChannelsQuery, type ChannelAsset } from './channels-api';
import { SendToShopify } from './send-to-shopify';
import './channels.css';

/** How often the panel asks again while a file is being prepared. */
const PENDING_POLL_MS = 5000;

const STATUS_TEXT: Record<ChannelAsset['status'], string> = {
  green: 'Within the recommended size',
  amber: 'Over the recommended size, within the limit',
  red: 'Over the limit',
};

/**
 * The product's "Channels" panel (issue 32): each file the channels get (web viewer, Google
 * Shopping & Shopify, iPhone AR Quick Look), its size against the channel's budget as a
 * green/amber/red meter, and why a file was simplified. Shown once the model is ready.
 */
export function ChannelsPanel({ productId, ready }: { productId: string; ready: boolean }) {
  // Files still being made are asked for again every few seconds until they are ready or refused.
  const [polling, setPolling] = useState(0);
  const { data, error, isLoading } = useProductChannelsQuery(productId, { skip: !ready, pollingInterval: polling });
  const pending = data?.some((a) => a.state === 'pending') ?? false;
  useEffect(() => setPolling(pending ? PENDING_POLL_MS : 0), [pending]);
  if (!ready) return null;
  return (
    <section className="card" aria-labelledby="channels-title" data-testid="channels-panel">
      <h2 id="channels-title" className="section-title">
        Channels
      </h2>
      {isLoading && <p className="muted">Preparing the channel files…</p>}
      {error && <Alert tone="error">{errorMessage(error, 'The channel files could not be made. Please try again.')}</Alert>}
      {data && data.length === 0 && (
        <EmptyState variant="inline" testId="channels-empty" icon={<IconCube />} title="No channel files yet" text="Channel files are made once the 3D model is ready." />
      )}
      {data && data.length > 0 && (
        <ul className="channels">
          {data.map((a) => (
            <ChannelFile key={`${a.channel}-${a.variantId}`} a={a} />
          ))}
        </ul>
      )}
      <SendToShopify productId={productId} />
    </section>
  );
}

/**
 * One file of the panel: its size against the budget once made; while the server's worker makes it,
 * "Being prepared…"; and when it cannot be made within the budget, the reason.
 */
function ChannelFile({ a }: { a: ChannelAsset }) {
  if (a.state !== 'ready') {
    return (
      <li className={`channels__item channels__item--${a.state}`} data-channel={a.channel} data-status={a.state}>
        <div className="channels__head">
          <span className="channels__label">{a.label}</span>
          <span className="badge">{a.format.toUpperCase()}</span>
          <span className="channels__size muted">{a.state === 'pending' ? 'Being prepared…' : 'Not available'}</span>
        </div>
        {a.state === 'pending' ? (
          <p className="muted channels__status">Made on our servers once the model is ready; large models take a minute or more.</p>
        ) : (
          <Alert tone="error">{a.reason || 'This file could not be made from the model.'}</Alert>
        )}
      </li>
    );
  }
  return (
    <li className={`channels__item channels__item--${a.status}`} data-channel={a.channel} data-status={a.status}>
      <div className="channels__head">
        <span className="channels__label">{a.label}</span>
        <span className="badge">{a.format.toUpperCase()}</span>
        <span className="channels__size">
          {formatSize(a.bytes)} of {formatSize(a.maxBytes)}
        </span>
      </div>
      <div
        className="meter"
        role="meter"
        aria-label={`${a.label}: ${formatSize(a.bytes)} of ${formatSize(a.maxBytes)}. ${STATUS_TEXT[a.status]}.`}
        aria-valuemin={0}
        aria-valuemax={a.maxBytes}
        aria-valuenow={Math.min(a.bytes, a.maxBytes)}
      >
        <div className={`meter__bar channels__bar--${a.status}`} style={{ width: `${Math.min(100, (a.bytes / Math.max(1, a.maxBytes)) * 100)}%` }} />
      </div>
      <p className="muted channels__status">
        {STATUS_TEXT[a.status]} · {a.source}
      </p>
      {a.notes.length > 0 && (
        <ul className="channels__notes" aria-label="What was reduced">
          {a.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </li>
  );
}
