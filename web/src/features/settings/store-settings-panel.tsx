import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { useGetStoreSettingsQuery, useUpdateStoreSettingsMutation } from '../../entities/settings/store-settings-api';
import { errorMessage } from '../../lib/api';
import { CURRENCIES, formatPrice, localeCurrency } from '../../lib/money';

/**
 * Settings → Store: the currency every new price starts in (issue 29 item 20). Existing
 * prices keep their own currency. Until the merchant saves one, the list shows their
 * browser locale's currency, which is also what the configurator guesses: that is the
 * default in effect, so it reads as the current setting, not "Not saved yet" (issue 50, P4).
 */
export function StoreSettingsPanel() {
  const { data, isLoading, error: loadError } = useGetStoreSettingsQuery();
  const [save, { isLoading: saving }] = useUpdateStoreSettingsMutation();
  const guess = localeCurrency(typeof navigator === 'undefined' ? undefined : navigator.language);
  const stored = data?.defaultCurrency ?? null;
  const [currency, setCurrency] = useState(stored ?? guess);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  useEffect(() => {
    if (stored) setCurrency(stored);
  }, [stored]);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    try {
      await save({ defaultCurrency: currency }).unwrap();
      setStatus({ tone: 'success', text: 'Store settings saved' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'Store settings could not be saved.') });
    }
  }

  return (
    <form className="card form settings-form" onSubmit={onSubmit} noValidate aria-labelledby="store-settings-title">
      <h2 className="section-title" id="store-settings-title">
        Store
      </h2>
      {loadError && <Alert tone="error">{errorMessage(loadError, 'Store settings could not be loaded.')}</Alert>}
      {status && <Alert tone={status.tone}>{status.text}</Alert>}
      <div className="field">
        <label htmlFor="default-currency">Default currency</label>
        <select id="default-currency" value={currency} onChange={(e) => setCurrency(e.target.value)} disabled={isLoading || saving} aria-describedby="default-currency-help">
          {CURRENCIES.map((c) => (
            <option key={c.code} value={c.code}>
              {c.code} — {c.name}
            </option>
          ))}
        </select>
        <p id="default-currency-help" className="field__help">
          New prices start in this currency (shoppers see {formatPrice(899, currency)}). Prices you already set keep their own.
        </p>
      </div>
      <div className="btn-row btn-row--end">
        <button type="submit" className="btn btn--primary" disabled={saving || isLoading}>
          {saving ? 'Saving...' : 'Save store settings'}
        </button>
      </div>
    </form>
  );
}
