/**
 * Prices as people read them (issue 29 item 20): a currency picked from a list of
 * common ISO 4217 codes, formatted with Intl.NumberFormat in the reader's locale —
 * "₹899", not "INR 899.00". Whole amounts drop the minor digits. The public page's
 * server rendering (internal/publish/price.go) writes the same for English locales.
 */

/** The currencies the configurator offers, most used by our merchants first: the server's list (internal/currency, kept equal by a Go test). */
export const CURRENCIES: { code: string; name: string }[] = [
  { code: 'INR', name: 'Indian rupee' },
  { code: 'USD', name: 'US dollar' },
  { code: 'EUR', name: 'Euro' },
  { code: 'GBP', name: 'British pound' },
  { code: 'AED', name: 'UAE dirham' },
  { code: 'AUD', name: 'Australian dollar' },
  { code: 'CAD', name: 'Canadian dollar' },
  { code: 'SGD', name: 'Singapore dollar' },
  { code: 'JPY', name: 'Japanese yen' },
  { code: 'CNY', name: 'Chinese yuan' },
  { code: 'HKD', name: 'Hong Kong dollar' },
  { code: 'NZD', name: 'New Zealand dollar' },
  { code: 'CHF', name: 'Swiss franc' },
  { code: 'SEK', name: 'Swedish krona' },
  { code: 'NOK', name: 'Norwegian krone' },
  { code: 'DKK', name: 'Danish krone' },
  { code: 'ZAR', name: 'South African rand' },
  { code: 'BRL', name: 'Brazilian real' },
  { code: 'MXN', name: 'Mexican peso' },
  { code: 'SAR', name: 'Saudi riyal' },
  { code: 'MYR', name: 'Malaysian ringgit' },
  { code: 'IDR', name: 'Indonesian rupiah' },
  { code: 'THB', name: 'Thai baht' },
  { code: 'PHP', name: 'Philippine peso' },
  { code: 'KRW', name: 'South Korean won' },
  { code: 'BDT', name: 'Bangladeshi taka' },
  { code: 'LKR', name: 'Sri Lankan rupee' },
  { code: 'NPR', name: 'Nepalese rupee' },
];

const EURO = ['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK'];
const BY_REGION: Record<string, string> = {
  IN: 'INR', US: 'USD', GB: 'GBP', AE: 'AED', AU: 'AUD', CA: 'CAD', SG: 'SGD', JP: 'JPY', CN: 'CNY', HK: 'HKD', NZ: 'NZD',
  CH: 'CHF', SE: 'SEK', NO: 'NOK', DK: 'DKK', ZA: 'ZAR', BR: 'BRL', MX: 'MXN', SA: 'SAR', MY: 'MYR', ID: 'IDR', TH: 'THB',
  PH: 'PHP', KR: 'KRW', BD: 'BDT', LK: 'LKR', NP: 'NPR',
  ...Object.fromEntries(EURO.map((r) => [r, 'EUR'])),
};

/** The currency of a locale's region ("en-IN" → INR); USD when the locale names no known region. */
export function localeCurrency(locale: string | undefined): string {
  const region = (locale ?? '').split(/[-_]/)[1]?.toUpperCase() ?? '';
  return BY_REGION[region] ?? 'USD';
}

/**
 * The merchant's default currency for a new price: the one their other prices already use
 * (most common first), else their browser locale's.
 */
export function defaultCurrency(used: string[], locale: string | undefined = typeof navigator === 'undefined' ? undefined : navigator.language): string {
  const counts = new Map<string, number>();
  for (const c of used) if (/^[A-Z]{3}$/.test(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  let best = '';
  for (const [c, n] of counts) if (!best || n > (counts.get(best) ?? 0)) best = c;
  return best || localeCurrency(locale);
}

/** "₹899", "₹1,23,456.50", "$129.50": Intl.NumberFormat with the currency's symbol; whole amounts without minor digits. */
export function formatPrice(amount: number, currency: string, locale?: string): string {
  const loc = locale ?? (currency === 'INR' ? 'en-IN' : undefined);
  try {
    const whole = Math.round(amount * 100) % 100 === 0;
    return new Intl.NumberFormat(loc, {
      style: 'currency',
      currency,
      ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
    }).format(amount);
  } catch {
    return `${currency} ${amount.toFixed(2)}`;
  }
}
