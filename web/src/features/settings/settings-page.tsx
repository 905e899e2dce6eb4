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
import { WebhooksPanel } from './webhooks-panel';

const HEX = /^#[0-9a-fA-F]{6}$/;
const LOGO_TYPES = 'image/png,image/svg+xml,image/jpeg';

/** /workspace/settings — branding saved on the server. */
export default function SettingsPage() {
  const { data: saved, isLoading, error: loadError } = useGetBrandingQuery();
  const [save, { isLoading: saving }] = useUpdateBrandingMutation();
  const [upload, { isLoading: uploading }] = useUploadLogoMutation();
  const [removeLogo, { isLoading: removing }] = useRemoveLogoMutation();
  const [brandName, setBrandName] = useState('');
  const [brandColor, setBrandColor] = useState(DEFAULT_BRAND_COLOR);
  // Set by "Reset changes": the form shows no logo, and saving removes the stored one.
  const [logoCleared, setLogoCleared] = useState(false);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!saved) return;
    setBrandName(saved.brandName ?? '');
    setBrandColor(saved.brandColor || DEFAULT_BRAND_COLOR);
  }, [saved]);

  if (isLoading) return <LoadingScreen />;

  const shownLogo = logoCleared ? null : (saved?.logoUrl ?? null);
  const atDefaults = brandName === DEFAULT_BRAND_NAME && brandColor === DEFAULT_BRAND_COLOR && !shownLogo;

  // "'Reset changes' restores defaults" (spec §2): the placeholder brand, #2E5BBA and no
  // logo. Nothing is stored until "Save branding".
  function reset() {
    setBrandName(DEFAULT_BRAND_NAME);
    setBrandColor(DEFAULT_BRAND_COLOR);
    setLogoCleared(true);
    setStatus(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    try {
      await save({ brandName: brandName.trim(), brandColor: brandColor.trim() }).unwrap();
      if (logoCleared && saved?.logoUrl) await removeLogo().unwrap();
      setLogoCleared(false);
      setStatus({ tone: 'success', text: 'Branding saved' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'Branding could not be saved. Please try again.') });
    }
  }

  async function onLogo(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setStatus(null);
    if (file.size > MAX_LOGO_BYTES) {
      setStatus({ tone: 'error', text: MSG_LOGO_TOO_LARGE });
      return;
    }
    try {
      await upload(file).unwrap();
      setLogoCleared(false);
      setStatus({ tone: 'success', text: 'Logo uploaded' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The logo could not be uploaded. Please try again.') });
    }
  }

  async function onRemoveLogo() {
    setStatus(null);
    try {
      await removeLogo().unwrap();
      setLogoCleared(false);
      setStatus({ tone: 'success', text: 'Logo removed' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The logo could not be removed. Please try again.') });
    }
  }

  const swatch = HEX.test(brandColor) ? brandColor : DEFAULT_BRAND_COLOR;
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Settings</h1>
          <p className="page__subtitle">Branding used on share pages, embeds and billing documents.</p>
          <p className="muted">
            Invoices and receipts: <Link to="/workspace/subscription#billing">Subscription → Manage billing</Link>
          </p>
        </div>
      </header>
      {loadError && <Alert tone="error">{errorMessage(loadError, 'Branding could not be loaded.')}</Alert>}
      <form className="card form settings-form" onSubmit={onSubmit} noValidate>
        <h2 className="section-title">Branding</h2>
        {status && <Alert tone={status.tone}>{status.text}</Alert>}
        <div className="field">
          <label htmlFor="brand-name">Brand name</label>
          <input id="brand-name" value={brandName} onChange={(e) => setBrandName(e.target.value)} placeholder={DEFAULT_BRAND_NAME} disabled={saving} />
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
              {logoCleared && saved?.logoUrl && <p className="field__help">The current logo is removed when you save.</p>}
              <div className="btn-row">
                <button type="button" className="btn btn--secondary btn--sm" onClick={() => fileInput.current?.click()} disabled={uploading} aria-describedby="logo-label">
                  {uploading ? 'Uploading...' : shownLogo ? 'Replace logo' : 'Upload logo'}
                </button>
                {shownLogo && (
                  <button type="button" className="btn btn--ghost btn--sm" onClick={onRemoveLogo} disabled={removing}>
                    Remove logo
                  </button>
                )}
              </div>
              <input ref={fileInput} type="file" accept={LOGO_TYPES} className="visually-hidden" tabIndex={-1} aria-label="Logo file" onChange={onLogo} />
            </div>
          </div>
        </div>
        <div className="btn-row btn-row--end">
          <button type="button" className="btn btn--ghost" onClick={reset} disabled={saving || atDefaults}>
            Reset changes
          </button>
          <button type="submit" className="btn btn--primary" disabled={saving}>
            {saving ? 'Saving...' : 'Save branding'}
          </button>
        </div>
      </form>
      <ApiKeysPanel />
      <WebhooksPanel />
      <SessionsPanel />
    </div>
  );
}
