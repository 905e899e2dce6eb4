import type { ItemStatus } from '../../components/list/list-rules';
import { parseProduct, parsePublication, type Product, type ProductPublication } from '../../entities/product/product-rules';

/** A gallery as GET /api/galleries reports it (spec §3, with a real cover). */
export interface Gallery {
  id: string;
  name: string;
  description: string;
  status: ItemStatus;
  tags: string[];
  productCount: number;
  /** How many of its products have a 3D model to show. */
  assetCount: number;
  /** The tile's colour (#RRGGBB): the merchant's, else a default picked by the server. */
  thumbnailColor: string;
  /** The colour of the icon and text drawn over the tile (dark or white, whichever reads). */
  thumbnailOverlay: string;
  coverProductId: string | null;
  /** The cover product's thumbnail. */
  coverURL: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface GalleryDetail extends Gallery {
  /** In gallery order. */
  products: Product[];
  /** The gallery's live public page (/g/{slug}); null: not shared. */
  publication: ProductPublication | null;
}

/** Spec §2 gate texts, word for word. */
export const PRO_GATE_TITLE = 'Galleries are a Pro feature';
export const PRO_GATE_TEXT = 'Pro allows up to 10 galleries and public sharing of collections';
export const EMPTY_TITLE = 'No galleries match your filters';
/** A merchant with no gallery at all (no filters): what a gallery is for, not "match your filters". */
export const NONE_YET_TITLE = 'No galleries yet';
export const NONE_YET_TEXT = 'Group products into a gallery and share them together: one link, embed or QR code for the whole collection.';
/** Gallery labels in the list: error reads Needs attention (spec §3). */
export const GALLERY_STATUS_LABEL: Record<ItemStatus, string> = { ready: 'Ready', processing: 'Processing', error: 'Needs attention' };

export const MAX_GALLERY_NAME = 100;
export const MAX_GALLERY_DESCRIPTION = 500;
export const MAX_GALLERY_PRODUCTS = 50;

/** Shown when the server names no colour (an old cached answer). */
export const DEFAULT_TILE_COLOR = '#E2E8F0';

export function isHexColor(v: unknown): v is string {
  return typeof v === 'string' && /^#[0-9a-fA-F]{6}$/.test(v);
}

/** "3 products · 2 in 3D": what the gallery holds, and how many shoppers can turn in 3D. */
export function galleryCounts(g: Pick<Gallery, 'productCount' | 'assetCount'>): string {
  const n = g.productCount;
  return `${n} ${n === 1 ? 'product' : 'products'} · ${g.assetCount} in 3D`;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export function parseGallery(raw: unknown): Gallery {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    id: str(r.id),
    name: str(r.name),
    description: str(r.description),
    status: r.status === 'processing' || r.status === 'error' ? r.status : 'ready',
    tags: Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [],
    productCount: typeof r.productCount === 'number' ? r.productCount : Array.isArray(r.productIds) ? r.productIds.length : 0,
    assetCount: typeof r.assetCount === 'number' ? r.assetCount : 0,
    thumbnailColor: isHexColor(r.thumbnailColor) ? r.thumbnailColor : DEFAULT_TILE_COLOR,
    thumbnailOverlay: isHexColor(r.thumbnailOverlay) ? r.thumbnailOverlay : '#0F172A',
    coverProductId: strOrNull(r.coverProductId),
    coverURL: strOrNull(r.coverUrl ?? r.coverURL),
    createdAt: str(r.createdAt),
    updatedAt: str(r.updatedAt),
  };
}

export function parseGalleryDetail(raw: unknown): GalleryDetail {
  const r = (raw ?? {}) as Record<string, unknown>;
  return { ...parseGallery(raw), products: Array.isArray(r.products) ? r.products.map(parseProduct) : [], publication: parsePublication(r.publication) };
}

export function validateGalleryName(name: string): string | null {
  const t = name.trim();
  if (!t) return 'Give the gallery a name.';
  if (t.length > MAX_GALLERY_NAME) return `Gallery names can be at most ${MAX_GALLERY_NAME} characters.`;
  return null;
}

/** Moves the item at `from` by `delta` places (reorder with Up/Down buttons); out-of-range moves change nothing. */
export function move<T>(list: T[], from: number, delta: number): T[] {
  const to = from + delta;
  if (from < 0 || from >= list.length || to < 0 || to >= list.length) return list;
  const out = list.slice();
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x);
  return out;
}

/** The cover stays valid: the chosen one when still in the gallery, else the first product, else none. */
export function effectiveCover(productIds: string[], cover: string | null): string | null {
  if (cover && productIds.includes(cover)) return cover;
  return productIds[0] ?? null;
}

/**
 * The gallery's public page (/g/{slug}) shows only published products; the server keeps an
 * unpublished one in the gallery (it joins the page once published) and says which are live.
 */
export const NOT_SHOWN_LABEL = 'Not shown until published';
export const NOT_SHOWN_HELP = 'Products marked “Not shown until published” stay in the gallery but appear on its public page only once you publish them.';
