import type { SearchItem } from './search-api';

/** The query to send, or null when it is empty after trimming (submit is ignored then). */
export function normalizeQuery(q: string): string | null {
  const t = q.trim();
  return t ? t : null;
}

/** Case-insensitive substring match on the label (spec §2). */
export function matchSearchItems(items: SearchItem[], q: string): SearchItem[] {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  return items.filter((i) => i.label.toLowerCase().includes(needle));
}
