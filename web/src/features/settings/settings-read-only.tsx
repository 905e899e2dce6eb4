import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { CURRENCIES } from '../../lib/money';
import { useGoogleFeedQuery, useShopifyConnectionQuery } from '../../entities/channels/channels-api';
import { useGetStoreSettingsQuery } from '../../entities/settings/store-settings-api';
import { OwnerOnlyNote } from '../../entities/team/view-only';
import { DEFAULT_BRAND_COLOR, DEFAULT_BRAND_NAME, type Branding } from './branding-api';
import './settings-read-only.css';

/*
 * Settings for everyone but the owner (issue 51): branding, the store's currency and the channel
 * connections are the owner's to change (PUT /api/branding, /api/settings/store,
 * /api/channels/shopify, the feed's rotation), so the others read them here.
 */

/** Branding, read: name, colour and logo. */
export function BrandingReadOnly({ branding }: { branding: Branding | undefined }) {
  const color = branding?.brandColor || DEFAULT_BRAND_COLOR;
  return (
    <section className="card form settings-form" aria-labelledby="branding-title" data-testid="branding-read">
      <h2 className="section-title" id="branding-title">
        Branding
      </h2>
      <OwnerOnlyNote>Only the workspace owner changes the branding.</OwnerOnlyNote>
      <dl className="settings-read">
        <dt>Brand name</dt>
        <dd>{branding?.brandName || DEFAULT_BRAND_NAME}</dd>
        <dt>Brand colour</dt>
        <dd>
          <span className="settings-read__swatch" style={{ background: color }} aria-hidden="true" /> {color}
        </dd>
        <dt>Logo</dt>
        <dd>{branding?.logoUrl ? <img className="settings-read__logo" src={branding.logoUrl} alt="Current brand logo" /> : <span className="muted">No logo</span>}</dd>
      </dl>
    </section>
  );
}

/** Store settings, read: the default currency. */
export function StoreSettingsReadOnly() {
  const { data, error } = useGetStoreSettingsQuery();
  const code = data?.defaultCurrency ?? '';
  const name = CURRENCIES.find((c) => c.code === code)?.name;
  return (
    <section className="card form settings-form" aria-labelledby="store-settings-title" data-testid="store-settings-read">
      <h2 className="section-title" id="store-settings-title">
        Store
      </h2>
      <OwnerOnlyNote>Only the workspace owner changes the store settings.</OwnerOnlyNote>
      {error && <Alert tone="error">{errorMessage(error, 'Store settings could not be loaded.')}</Alert>}
      <dl className="settings-read">
        <dt>Default currency</dt>
        <dd>{code ? `${code}${name ? ` — ${name}` : ''}` : <span className="muted">Not chosen yet</span>}</dd>
      </dl>
    </section>
  );
}

/** Channels, read: the Google feed URL and whether a Shopify store is connected. */
export function ChannelsSettingsReadOnly() {
  const { data: url, error } = useGoogleFeedQuery();
  const { data: shopify } = useShopifyConnectionQuery();
  return (
    <section className="card form settings-form" aria-labelledby="channels-title" data-testid="channels-settings-read">
      <h2 className="section-title" id="channels-title">
        Channels
      </h2>
      <OwnerOnlyNote>Only the workspace owner connects channels and changes the feed URL.</OwnerOnlyNote>
      <h3 className="field__label">Google Merchant Center feed</h3>
      {error && <Alert tone="error">{errorMessage(error, 'The feed URL could not be loaded.')}</Alert>}
      {url && <input className="input" readOnly value={url} aria-label="Google feed URL" onFocus={(e) => e.currentTarget.select()} />}
      <h3 className="field__label">Shopify</h3>
      <p data-testid="shopify-read">{shopify?.connected ? <>Connected to <strong>{shopify.shop}</strong>.</> : 'Not connected.'}</p>
    </section>
  );
}
