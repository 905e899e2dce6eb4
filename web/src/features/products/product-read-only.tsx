import type { ReactNode } from 'react';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconCube, IconLink, IconSparkle } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { formatPrice } from '../../lib/money';
import { useGetCatalogsQuery } from '../../entities/catalog/catalogs-api';
import { formatSize, useProductChannelsQuery, type ChannelAsset } from '../../entities/channels/channels-api';
import { GOAL_LABEL, useExperimentResultsQuery, useProductExperimentsQuery } from '../../entities/experiments/experiments-api';
import { formatExposure, MATERIAL_LABEL, openingVariant, POSTERS } from '../../entities/product/configurator-rules';
import type { ProductDetail } from '../../entities/product/product-rules';
import '../../entities/channels/channels.css';
import { PastExperiments } from '../../entities/experiments/experiments-panel';
import '../../entities/experiments/experiments.css';

/*
 * The product page for a role that changes nothing (issue 51: a reviewer). The same facts the
 * editing panels show (the details, the configuration, the experiments, the channel files),
 * without a control the server would refuse.
 */

/** Product Details, read: name, URL, description, tags and catalog. */
export function DetailsReadOnly({ product: p, onConfigurator }: { product: ProductDetail; onConfigurator: () => void }) {
  const { data: catalogs } = useGetCatalogsQuery();
  const catalog = catalogs?.items.find((c) => c.id === p.catalogId);
  return (
    <section className="card" aria-labelledby="product-details-title" data-testid="product-details-read">
      <h2 id="product-details-title" className="section-title">
        Product Details
      </h2>
      <dl className="read-list">
        <dt>Name</dt>
        <dd>{p.name}</dd>
        <dt>Product URL</dt>
        <dd>
          {p.productURL ? (
            <a href={p.productURL} target="_blank" rel="noreferrer">
              {p.productURL}
            </a>
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        <dt>Description</dt>
        <dd className="read-list__text">{p.description || <span className="muted">None</span>}</dd>
        <dt>Tags</dt>
        <dd>
          {p.tags.length ? (
            <ul className="tag-list" aria-label="Product tags">
              {p.tags.map((t) => (
                <li key={t} className="badge">
                  {t}
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        {catalog && (
          <>
            <dt>Catalog</dt>
            <dd>{catalog.name}</dd>
          </>
        )}
      </dl>
      <div className="btn-row btn-row--end">
        <button type="button" className="btn btn--ghost" onClick={onConfigurator}>
          See the configuration
        </button>
      </div>
    </section>
  );
}

/** The Configurator tab, read: variants and prices, buy links, hotspots and how the page is shown. */
export function ConfigurationReadOnly({ product: p }: { product: ProductDetail }) {
  const cfg = p.config;
  const name = (variantId: string) => cfg.variants.find((v) => v.id === variantId)?.name ?? 'Deleted variant';
  const opens = openingVariant(cfg.variants, cfg.presets.defaultVariantId);
  const poster = POSTERS.find((o) => o.value === cfg.presets.poster)?.label ?? cfg.presets.poster;
  return (
    <section className="card configuration-read" aria-label="Configuration" data-testid="configuration-read">
      <h2 className="section-title">Variants</h2>
      {cfg.variants.length === 0 ? (
        <EmptyState variant="inline" icon={<IconCube />} title="No variants" text="The page shows the model as it was built." />
      ) : (
        <ul className="config-list" aria-label="Variants">
          {cfg.variants.map((v) => (
            <li key={v.id} className="config-item">
              <strong>{v.name}</strong>
              <span className="muted">{MATERIAL_LABEL[v.material] ?? v.material}</span>
              {v.sku && <span className="badge">{v.sku}</span>}
              <span>{v.price === null ? <span className="muted">No price</span> : formatPrice(v.price, v.currency || 'INR')}</span>
            </li>
          ))}
        </ul>
      )}
      <h2 className="section-title">Buy links</h2>
      {cfg.links.length === 0 ? (
        <EmptyState variant="inline" icon={<IconLink />} title="No buy links" text="Shoppers see no buy button on the page." />
      ) : (
        <ul className="config-list" aria-label="Buy links">
          {cfg.links.map((l) => (
            <li key={l.id} className="config-item config-item--link">
              <span className="link-short">{l.url}</span>
              <span className="badge">{l.variantId ? name(l.variantId) : 'Every variant'}</span>
            </li>
          ))}
        </ul>
      )}
      <h2 className="section-title">Hotspots</h2>
      {cfg.hotspots.length === 0 ? (
        <EmptyState variant="inline" icon={<IconSparkle />} title="No hotspots" text="No notes are pinned to the model." />
      ) : (
        <ul className="config-list" aria-label="Hotspots">
          {cfg.hotspots.map((h) => (
            <li key={h.id} className="config-item">
              <strong>{h.title || 'Hotspot'}</strong>
              {h.text && <span className="muted">{h.text}</span>}
            </li>
          ))}
        </ul>
      )}
      <h2 className="section-title">How the page shows it</h2>
      <dl className="read-list">
        <dt>Opens on</dt>
        <dd>{opens?.name ?? 'The model as built'}</dd>
        <dt>Lighting</dt>
        <dd>{cfg.presets.lighting}</dd>
        <dt>Background</dt>
        <dd>{cfg.presets.background}</dd>
        <dt>Autospin</dt>
        <dd>{cfg.presets.autospin ? 'On' : 'Off'}</dd>
        <dt>Exposure</dt>
        <dd>{formatExposure(cfg.presets.exposure)}</dd>
        <dt>While the model loads</dt>
        <dd>{poster}</dd>
      </dl>
    </section>
  );
}

/** The Experiments tab, read: the open experiment's results and the past ones; no start, pause, stop or apply. note: why. */
export function ExperimentsReadOnly({ product: p, note }: { product: ProductDetail; note?: ReactNode }) {
  const { data, isLoading, error } = useProductExperimentsQuery(p.id, { refetchOnMountOrArgChange: true });
  const items = data?.items ?? [];
  const open = items.find((e) => e.state !== 'stopped');
  const past = items.filter((e) => e.state === 'stopped');
  return (
    <section className="card" aria-labelledby="experiments-title" data-testid="experiments-read">
      <h2 id="experiments-title" className="section-title">
        Experiments
      </h2>
      {note}
      {isLoading ? (
        <p className="muted">Loading…</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The experiments could not be loaded.')}</Alert>
      ) : open ? (
        <OpenExperiment id={open.id} />
      ) : (
        <EmptyState variant="inline" icon={<IconSparkle />} title="No experiment running" text="An experiment splits shoppers between the live page and a variation." />
      )}
      <PastExperiments past={past} />
    </section>
  );
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function OpenExperiment({ id }: { id: string }) {
  const { data: r, error } = useExperimentResultsQuery(id, { pollingInterval: 30_000, refetchOnMountOrArgChange: true });
  if (error) return <Alert tone="error">{errorMessage(error, 'The results could not be loaded.')}</Alert>;
  if (!r) return <p className="muted">Loading…</p>;
  return (
    <div className="experiment" data-testid="experiment-results">
      <p>
        <strong>{r.state === 'paused' ? 'Paused' : 'Running'}</strong> since <time dateTime={r.startedAt}>{relativeTime(r.startedAt)}</time> · goal: {GOAL_LABEL[r.goal]} ·{' '}
        {Math.round(r.trafficShare * 100)} % of shoppers
      </p>
      <div className="experiment__scroll">
        <table className="table experiment__arms">
          <thead>
            <tr>
              <th scope="col">Arm</th>
              <th scope="col">Visitors</th>
              <th scope="col">{GOAL_LABEL[r.goal]}</th>
              <th scope="col">Rate</th>
            </tr>
          </thead>
          <tbody>
            {r.arms.map((a) => (
              <tr key={a.id} data-testid={`arm-${a.control ? 'control' : 'variation'}`}>
                <th scope="row">{a.name}</th>
                <td>{a.visitors.toLocaleString()}</td>
                <td>{a.conversions.toLocaleString()}</td>
                <td>{pct(a.rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {r.rule && <p className="muted experiment__rule">{r.rule}</p>}
    </div>
  );
}

const STATUS_TEXT: Record<ChannelAsset['status'], string> = {
  green: 'Within the recommended size',
  amber: 'Over the recommended size, within the limit',
  red: 'Over the limit',
};

/** The Channels panel, read: each channel file and its size; no Send to Shopify. */
export function ChannelsReadOnly({ productId, ready }: { productId: string; ready: boolean }) {
  const { data, error, isLoading } = useProductChannelsQuery(productId, { skip: !ready });
  if (!ready) return null;
  return (
    <section className="card" aria-labelledby="channels-title" data-testid="channels-panel">
      <h2 id="channels-title" className="section-title">
        Channels
      </h2>
      {isLoading && <p className="muted">Loading…</p>}
      {error && <Alert tone="error">{errorMessage(error, 'The channel files could not be loaded.')}</Alert>}
      {data && data.length === 0 && (
        <EmptyState variant="inline" testId="channels-empty" icon={<IconCube />} title="No channel files yet" text="Channel files are made once the 3D model is ready." />
      )}
      {data && data.length > 0 && (
        <ul className="channels">
          {data.map((a) => (
            <li key={`${a.channel}-${a.variantId}`} className={`channels__item channels__item--${a.state === 'ready' ? a.status : a.state}`} data-channel={a.channel}>
              <div className="channels__head">
                <span className="channels__label">{a.label}</span>
                <span className="badge">{a.format.toUpperCase()}</span>
                <span className="channels__size muted">
                  {a.state === 'ready' ? `${formatSize(a.bytes)} of ${formatSize(a.maxBytes)}` : a.state === 'pending' ? 'Being prepared…' : 'Not available'}
                </span>
              </div>
              <p className="muted channels__status">{a.state === 'ready' ? STATUS_TEXT[a.status] : a.reason || 'Made on our servers once the model is ready.'}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
