import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { DEFAULT_BRAND_COLOR, useGetBrandingQuery, useRemoveLogoMutation, useUpdateBrandingMutation, useUploadLogoMutation } from './branding-api';

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
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!saved) return;
    setBrandName(saved.brandName ?? '');
    setBrandColor(saved.brandColor || DEFAULT_BRAND_COLOR);
  }, [saved]);

  if (isLoading) return <LoadingScreen />;

  const dirty = saved ? brandName !== (saved.brandName ?? '') || brandColor !== (saved.brandColor || DEFAULT_BRAND_COLOR) : false;

  function reset() {
    setBrandName(saved?.brandName ?? '');
    setBrandColor(saved?.brandColor || DEFAULT_BRAND_COLOR);
    setStatus(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    try {
      await save({ brandName: brandName.trim(), brandColor: brandColor.trim() }).unwrap();
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
    try {
      await upload(file).unwrap();
      setStatus({ tone: 'success', text: 'Logo uploaded' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The logo could not be uploaded. Please try again.') });
    }
  }

  async function onRemoveLogo() {
    setStatus(null);
    try {
      await removeLogo().unwrap();
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
        </div>
      </header>
      {loadError && <Alert tone="error">{errorMessage(loadError, 'Branding could not be loaded.')}</Alert>}
      <form className="card form settings-form" onSubmit={onSubmit} noValidate>
        <h2 className="section-title">Branding</h2>
        {status && <Alert tone={status.tone}>{status.text}</Alert>}
        <div className="field">
          <label htmlFor="brand-name">Brand name</label>
          <input id="brand-name" value={brandName} onChange={(e) => setBrandName(e.target.value)} placeholder="Your brand" disabled={saving} />
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
              {saved?.logoUrl ? <img src={saved.logoUrl} alt="Current brand logo" /> : <span className="muted">No logo</span>}
            </div>
            <div>
              <p className="field__help">PNG, SVG or JPEG; 512 × 512 recommended. Used on share pages, embeds and billing documents.</p>
              <div className="btn-row">
                <button type="button" className="btn btn--secondary btn--sm" onClick={() => fileInput.current?.click()} disabled={uploading} aria-describedby="logo-label">
                  {uploading ? 'Uploading...' : saved?.logoUrl ? 'Replace logo' : 'Upload logo'}
                </button>
                {saved?.logoUrl && (
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
          <button type="button" className="btn btn--ghost" onClick={reset} disabled={saving || !dirty}>
            Reset changes
          </button>
          <button type="submit" className="btn btn--primary" disabled={saving}>
            {saving ? 'Saving...' : 'Save branding'}
          </button>
        </div>
      </form>
    </div>
  );
}
