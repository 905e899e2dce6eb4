// Store platform detection (spec §3, §5): the chip a purchase link shows.
// The same rule table exists in Go (internal/catalog/linkplatform.go) and
// both test suites run link-platform-vectors.json, so the chip shown here is
// the verdict the server stores and answers (GET /api/link-platform).
// Parsing is deliberately narrow so both languages agree: URL() only
// validates; the host must be a plain ASCII domain and the path is cut from
// the raw text.

export interface LinkPlatform {
  key: string;
  label: string;
  accent: string;
  shortUrl: string;
}

export const GENERIC_PLATFORM_KEY = 'link';
export const GENERIC_PLATFORM_ACCENT = '#64748B';

interface PlatformRule {
  key: string;
  label: string;
  accent: string;
  domains: string[];
  pathSegments?: string[];
}

// One rule table, first match wins; a host matches a domain when it equals it
// or is a subdomain of it.
const PLATFORM_RULES: PlatformRule[] = [
  {
    key: 'amazon', label: 'Amazon', accent: '#FF9900',
    domains: ['amazon.com', 'amazon.in', 'amazon.co.uk', 'amazon.de', 'amazon.fr', 'amazon.it', 'amazon.es',
      'amazon.ca', 'amazon.com.au', 'amazon.co.jp', 'amazon.com.br', 'amazon.com.mx', 'amazon.nl', 'amazon.se',
      'amazon.pl', 'amazon.sg', 'amazon.ae', 'amazon.sa', 'amazon.com.tr', 'amazon.eg', 'amzn.to', 'amzn.in',
      'amzn.eu', 'a.co'],
  },
  { key: 'flipkart', label: 'Flipkart', accent: '#2874F0', domains: ['flipkart.com', 'fkrt.it'] },
  {
    key: 'facebook', label: 'Facebook Shop', accent: '#1877F2', domains: ['facebook.com', 'fb.com'],
    pathSegments: ['shop', 'marketplace'],
  },
  { key: 'instagram', label: 'Instagram Shop', accent: '#E1306C', domains: ['instagram.com', 'instagr.am'] },
  { key: 'etsy', label: 'Etsy', accent: '#F1641E', domains: ['etsy.com', 'etsy.me'] },
  {
    key: 'ebay', label: 'eBay', accent: '#E53238',
    domains: ['ebay.com', 'ebay.co.uk', 'ebay.de', 'ebay.in', 'ebay.com.au', 'ebay.ca', 'ebay.fr', 'ebay.it',
      'ebay.es', 'ebay.us'],
  },
  { key: 'shopify', label: 'Shopify Store', accent: '#95BF47', domains: ['myshopify.com', 'shop.app'] },
  { key: 'walmart', label: 'Walmart', accent: '#0071CE', domains: ['walmart.com', 'walmart.ca', 'walmart.com.mx'] },
  { key: 'target', label: 'Target', accent: '#CC0000', domains: ['target.com'] },
  { key: 'myntra', label: 'Myntra', accent: '#FF3F6C', domains: ['myntra.com', 'myntr.it'] },
  { key: 'meesho', label: 'Meesho', accent: '#F43397', domains: ['meesho.com', 'msho.in'] },
];

export const PLATFORM_KEYS = PLATFORM_RULES.map((r) => r.key);

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;
// Whitespace, control characters and backslashes are read differently by
// browsers and Go; a link holding them gets no chip.
const UNSAFE = /[\x00-\x20\x7f\\]/;

/** Trims the text and prepends https:// when it has no scheme (spec §5). */
export function normalizeLinkUrl(raw: string): string {
  const s = raw.trim();
  return s !== '' && !SCHEME.test(s) ? `https://${s}` : s;
}

/** The store of a link, a generic verdict labelled with the host, or null (no chip). */
export function detectPlatform(raw: string): LinkPlatform | null {
  const s = normalizeLinkUrl(raw);
  if (s === '' || UNSAFE.test(s)) return null;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username !== '' || u.password !== '') return null;
  let host = u.hostname.toLowerCase();
  if (!HOST.test(host) || host.includes('xn--')) return null;
  if (host.startsWith('www.')) host = host.slice(4);
  const path = rawPath(s);
  const shortUrl = host + path;
  const rule = PLATFORM_RULES.find((r) => matches(r, host, path));
  if (rule) return { key: rule.key, label: rule.label, accent: rule.accent, shortUrl };
  return { key: GENERIC_PLATFORM_KEY, label: host, accent: GENERIC_PLATFORM_ACCENT, shortUrl };
}

// The path as typed: after scheme://authority, before ? or #; a lone "/" is
// dropped so "amazon.in/" and "amazon.in" read the same.
function rawPath(s: string): string {
  let rest = s.slice(s.indexOf('://') + 3);
  const start = rest.search(/[/?#]/);
  rest = start >= 0 ? rest.slice(start) : '';
  const end = rest.search(/[?#]/);
  if (end >= 0) rest = rest.slice(0, end);
  return rest === '/' ? '' : rest;
}

function matches(r: PlatformRule, host: string, path: string): boolean {
  const hostOk = r.domains.some((d) => host === d || host.endsWith(`.${d}`));
  if (!hostOk || !r.pathSegments) return hostOk;
  const segments = path.toLowerCase().split('/');
  return segments.some((seg) => r.pathSegments!.includes(seg));
}
