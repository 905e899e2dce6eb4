/** Relative time such as "just now", "5 min ago", "3 h ago", "2 days ago". */
export function relativeTime(iso: string | number | Date, now: number = Date.now()): string {
  const t = iso instanceof Date ? iso.getTime() : typeof iso === 'number' ? iso : Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return d === 1 ? 'yesterday' : `${d} days ago`;
  return new Date(t).toLocaleDateString('en-IN', { day: 'numeric', month: 'short', year: 'numeric' });
}

const numberFmt = new Intl.NumberFormat('en-IN');

/** Indian-grouped number (10,000; 1,00,000). */
export function formatNumber(n: number): string {
  return numberFmt.format(n);
}

/** Rupee amount without decimals (₹1,999). */
export function formatInr(amount: number): string {
  return `₹${numberFmt.format(amount)}`;
}
