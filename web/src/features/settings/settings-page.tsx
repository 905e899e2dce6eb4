import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { ApiKeysPanel } from './api-keys-panel';
import {
  DEFAULT_BRAND_COLOR,
  DEFAULT_BRAND_NAME,
  MAX_LOGO_BYTES,
  MSG_LOGO_TOO_LARGE,
  useGetBrandingQuery,
  useRemoveLogoMutation,
  useUpdateBrandingMutation,
  useUploadLogoMutation,
} from './branding-api';
import { SessionsPanel } from './sessions-panel';
import { StoreSettingsPanel } from './store-settings-panel';
import { WebhooksPanel } from './webhooks-panel';
import { ChannelsSettings } from '../../entities/channels/channels-settings';
import { useWorkspaceRole } from '../../entities/team/use-workspace';
import { ViewOnlyNote } from '../../entities/team/view-only';
import { BrandingReadOnly, ChannelsSettingsReadOnly, StoreSettingsReadOnly } from './settings-read-only';

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The logo change waiting for "Save branding". */
type PendingLogo = { kind: 'keep' } | { kind: 'remove' } | { kind: 'upload'; file: File; preview: string };
const LOGO_TYPES = 'image/png,image/svg+xml,image/jpeg';

/**
 * /workspace/settings — branding saved on the server. Teams (issue 51): branding, the store and
 * the channel connections are the owner's; API keys and webhooks the owner's and editors'; a
 * reviewer reads the webhooks and the feed, an analyst the branding and the store.
 */
export default function SettingsPage() {
  const access = useWorkspaceRole();
  const { data: saved, isLoading, error: loadError } = useGetBrandingQuery();
  const [save, { isLoading: saving }] = useUpdateBrandingMutation();
  const [upload, { isLoading: uploading }] = useUploadLogoMutation();
  const [removeLogo, { isLoading: removing }] = useRemoveLogoMutation();
  const [brandName, setBrandName] = useState('');
  const [brandColor, setBrandColor] = useState(DEFAULT_BRAND_COLOR);
  // The logo is part of the form like name and colour: a chosen file or a removal waits
  // for "Save branding", so choosing a logo never throws away unsaved edits, and
  // "Reset changes" drops a pending logo change without touching the stored logo.
  const [logo, setLogo] = useState<PendingLogo>({ kind: 'keep' });
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const baseline = useRef<{ brandName: string; brandColor: string } | null>(null);

  // Server values fill the form on load, and after a save; never over edits in progress.
  useEffect(() => {
    if (!saved) return;
    const next = { brandName: saved.brandName ?? '', brandColor: saved.brandColor || DEFAULT_BRAND_COLOR };
    const b = baseline.current;
    if (!b || (brandName === b.brandName && brandColor === b.brandColor)) {
      setBrandName(next.brandName);
      setBrandColor(next.brandColor);
    }
    baseline.current = next;
  }, [saved]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => () => (logo.kind === 'upload' ? URL.revokeObjectURL(logo.preview) : undefined), [logo]);

  if (isLoading) return <LoadingScreen />;

  const storedLogo = saved?.logoUrl ?? null;
  const shownLogo = logo.kind === 'upload' ? logo.preview : logo.kind === 'remove' ? null : storedLogo;
  const atDefaults = brandName === DEFAULT_BRAND_NAME && brandColor === DEFAULT_BRAND_COLOR && logo.kind === 'keep';
  const busy = saving || uploading || removing;

  // "'Reset changes' restores defaults" (spec §2): the placeholder brand and #2E5BBA; a
  // logo chosen or removed since the last save goes back to the stored one. Nothing is
  // stored until "Save branding".
  function reset() {
    setBrandName(DEFAULT_BRAND_NAME);
    setBrandColor(DEFAULT_BRAND_COLOR);
    setLogo({ kind: 'keep' });
    setStatus(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    try {
      // The logo first: it is what the server may refuse (type, size), and the form keeps
      // every value until all of it is stored.
      if (logo.kind === 'upload') await upload(logo.file).unwrap();
      if (logo.kind === 'remove' && storedLogo) await removeLogo().unwrap();
      setLogo({ kind: 'keep' });
      await save({ brandName: brandName.trim(), brandColor: brandColor.trim() }).unwrap();
      setStatus({ tone: 'success', text: 'Branding saved' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'Branding could not be saved. Please try again.') });
    }
  }

  function onLogo(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setStatus(null);
    if (file.size > MAX_LOGO_BYTES) {
      setStatus({ tone: 'error', text: MSG_LOGO_TOO_LARGE });
      return;
    }
    setLogo({ kind: 'upload', file, preview: URL.createObjectURL(file) });
  }

  const swatch = HEX.test(brandColor) ? brandColor : DEFAULT_BRAND_COLOR;
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Settings</h1>
          <p className="page__subtitle">Branding used on share pages, embeds and billing documents, and your store's default currency.</p>
          <p className="muted">
            Invoices and receipts: <Link to="/workspace/subscription#invoices">Subscription → Invoices and receipts</Link>
          </p>
        </div>
      </header>
      <ViewOnlyNote access={access} />
      {loadError && <Alert tone="error">{errorMessage(loadError, 'Branding could not be loaded.')}</Alert>}
      {!access.isOwner ? (
        <BrandingReadOnly branding={saved} />
      ) : (
        <form className="card form settings-form" onSubmit={onSubmit} noValidate>
          <h2 className="section-title">Branding</h2>
          {status && <Alert tone={status.tone}>{status.text}</Alert>}
          <div className="field">
            <label htmlFor="brand-name">Brand name</label>
            <input id="brand-name" value={brandName} onChange={(e) => setBrandName(e.target.value)} placeholder={DEFAULT_BRAND_NAME} aria-describedby="brand-name-help" disabled={saving} />
            <p id="brand-name-help" className="field__help">
              Shown to shoppers on your share pages and embeds. Until you name your brand, they show Photo3D.
            </p>
          </div>
          <div className="field">
            <label htmlFor="brand-color">Brand colour</label>
            <div className="color-field">
              <input id="brand-color" value={brandColor} onChange={(e) => setBrandColor(e.target.value)} aria-describedby="brand-color-help" spellCheck={false} disabled={saving} />
              <input
                type="color"
                className="color-field__swatch"
                aria-label="Pick brand colour"
                value={swatch.toLowerCase()}
                onChange={(e) => setBrandColor(e.target.value.toUpperCase())}
                disabled={saving}
              />
            </div>
            <p id="brand-color-help" className="field__help">Hex colour such as {DEFAULT_BRAND_COLOR}.</p>
          </div>
          <div className="field">
            <span className="field__label" id="logo-label">Logo</span>
            <div className="logo-field">
              <div className="logo-field__preview" style={{ borderColor: swatch }}>
                {shownLogo ? <img src={shownLogo} alt="Current brand logo" /> : <span className="muted">No logo</span>}
              </div>
              <div>
                <p className="field__help">PNG, SVG or JPEG, up to 2 MB; 512 × 512 recommended. Used on share pages, embeds and billing documents.</p>
                {logo.kind === 'remove' && storedLogo && <p className="field__help">The current logo is removed when you save.</p>}
                {logo.kind === 'upload' && <p className="field__help">The new logo is stored when you save.</p>}
                <div className="btn-row">
                  <button type="button" className="btn btn--secondary btn--sm" onClick={() => fileInput.current?.click()} disabled={busy} aria-describedby="logo-label">
                    {shownLogo ? 'Replace logo' : 'Upload logo'}
                  </button>
                  {shownLogo && (
                    <button type="button" className="btn btn--ghost btn--sm" onClick={() => setLogo({ kind: 'remove' })} disabled={busy}>
                      Remove logo
                    </button>
                  )}
                </div>
                <input ref={fileInput} type="file" accept={LOGO_TYPES} className="visually-hidden" tabIndex={-1} aria-label="Logo file" onChange={onLogo} />
              </div>
            </div>
          </div>
          <div className="btn-row btn-row--end">
            <button type="button" className="btn btn--ghost" onClick={reset} disabled={busy || atDefaults}>
              Reset changes
            </button>
            <button type="submit" className="btn btn--primary" disabled={busy}>
              {busy ? 'Saving...' : 'Save branding'}
            </button>
          </div>
        </form>
      )}
      {access.isOwner ? <StoreSettingsPanel /> : <StoreSettingsReadOnly />}
      {access.canEdit && <ApiKeysPanel />}
      {access.canSee && <WebhooksPanel readOnly={!access.canEdit} />}
      {access.isOwner ? <ChannelsSettings /> : access.canSee ? <ChannelsSettingsReadOnly /> : null}
      <SessionsPanel />
    </div>
  );
}
