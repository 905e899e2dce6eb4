import type { SearchItem } from './search-api';

/** The query to send, or null when it is empty after trimming (submit is ignored then). */
export function normalizeQuery(q: string): string | null {
  const t = q.trim();
  return t ? t : null;
}

/**
 * The hits to show for q: case-insensitive substring matches on the label (spec §2), and the
 * items the server found through a tag, a description or a catalog's name (matchedOn), which
 * is what the empty-state hint promises (issue 50 item 17).
 */
export function matchSearchItems(items: SearchItem[], q: string): SearchItem[] {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  return items.filter((i) => i.label.toLowerCase().includes(needle) || !!i.matchedOn);
}

/** The line under a hit that says why it matched ("Tag “red”"), or null for a label match. */
export function matchNote(item: SearchItem): string | null {
  const m = item.matchedOn?.trim();
  if (!m) return null;
  return m === 'description' ? 'Matches its description' : `Matches its ${m}`;
}
