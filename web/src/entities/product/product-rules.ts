import type { ItemStatus } from '../../components/list/list-rules';
import { errorMessage } from '../../lib/api';
import { parseFidelity, parseWarnings } from '../creation/fidelity';
import { parseConfig, type ProductConfig } from './configurator-rules';

/** A product's status: the list statuses, plus draft (a photo product saved without a build). */
export type ProductStatus = ItemStatus | 'draft';

/** A product as GET /api/products and GET /api/products/{id} report it. */
export interface Product {
  id: string;
  name: string;
  description: string;
  productURL: string;
  tags: string[];
  catalogId: string;
  status: ProductStatus;
  /** Why the last build failed (status error). */
  failureReason: string | null;
  /** The current model's job (the blueprint id the publications API takes). */
  jobId: string | null;
  modelURL: string | null;
  thumbnailURL: string | null;
  createdAt: string;
  updatedAt: string;
  /** Its public page is published. */
  live: boolean;
  /** The spec's list extras (internal/catalog/card_extras.go derives them from real data). */
  brand: string;
  accentColor: string;
  accentOverlay: string;
  /** The current build's mesh fidelity (0–100), null when not ready or unscored. */
  readyMetric: number | null;
  /** The running build's progress (0–100); 100 when ready. */
  processingProgress: number;
  /** The builder's sentences about the current model (the product runs off an edge of its photo). */
  buildWarnings: string[];
  /** The product's own price (its Default variant's), null when none is set. */
  price: number | null;
  currency: string;
}

/** One entry of the product's history (GET /api/products/{id} → timeline). */
export interface TimelineEvent {
  kind: string;
  label: string;
  /** Extra words: parts mapped, a failure reason, a share path. */
  detail: string;
  at: string;
  /** The mesh reconstruction's fidelity score (0–100), null on other entries. */
  fidelity: number | null;
  /**
   * How many photos the mesh reconstruction used; 0 on other entries and on builds recorded without
   * it. More than one with a score is a spin set.
   */
  views: number;
}

/** One build of the product's model; progress/stage are the job's real ones while it runs. */
export interface Build {
  jobId: string;
  status: ProductStatus;
  failureReason: string;
  progress: number | null;
  stage: string;
}

/** The product's live publication (POST /api/products/{id}/publish). */
export interface ProductPublication {
  publicationId: string;
  slug: string;
  shareURL: string;
  embedCode: string;
  qrURL: string;
  version: number;
  requireEmail: boolean;
  allowDeepLinks: boolean;
  locked: boolean;
  /** The version shoppers see while locked (0: unlocked), and when it was published. */
  lockedVersion: number;
  lockedAt: string;
  /** Locked, and the product has changed since: shoppers do not see those edits. */
  pendingEdits: boolean;
  /** Sites allowed to frame the embed (PUT /api/publications/{id}/embed-origins). */
  embedOrigins: string[];
}

export interface ProductDetail extends Product {
  timeline: TimelineEvent[];
  /** The original photo (photo products). */
  photoURL: string | null;
  source: string;
  builds: Build[];
  config: ProductConfig;
  publication: ProductPublication | null;
  /** How many photos the current build uses (0: no build); "Built from N photos". */
  views: number;
}

export function parsePublication(raw: unknown): ProductPublication | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const version = typeof r.version === 'number' ? r.version : 0;
  const lockedVersion = typeof r.lockedVersion === 'number' && r.lockedVersion > 0 ? r.lockedVersion : 0;
  const pinned = Array.isArray(r.versions) ? (r.versions as { version?: unknown; createdAt?: unknown }[]).find((v) => v?.version === lockedVersion) : undefined;
  return {
    publicationId: str(r.publicationId ?? r.id),
    slug: str(r.slug),
    shareURL: str(r.shareURL),
    embedCode: str(r.embedCode),
    qrURL: str(r.qrURL),
    version,
    requireEmail: r.requireEmail === true,
    allowDeepLinks: r.allowDeepLinks === true,
    locked: r.locked === true || lockedVersion > 0,
    lockedVersion,
    lockedAt: str(pinned?.createdAt),
    pendingEdits: r.pendingEdits === true,
    embedOrigins: Array.isArray(r.embedOrigins) ? r.embedOrigins.filter((o): o is string => typeof o === 'string') : [],
  };
}


/** List labels (spec §4). */
export const PRODUCT_STATUS_LABEL: Record<ProductStatus, string> = {
  draft: 'Draft',
  ready: '3D ready — Configure',
  processing: 'Processing 3D…',
  error: 'Failed',
};

/** Spec §6 free-plan banner, word for word. */
export const FREE_PLAN_NOTICE = 'Free plan limited to 2 products. Upgrade to Pro for 50 listings.';
/** After a downgrade the list is cut to the plan's limit (spec §6): say that the rest are kept. */
export function hiddenByPlanText(n: number): string {
  if (n <= 0) return '';
  return n === 1
    ? '1 more product is kept but not listed; it shows here again when you upgrade.'
    : `${n} more products are kept but not listed; they show here again when you upgrade.`;
}
/** The first-run empty state (issue 50 P5): plain words for a merchant with nothing yet. */
export const FIRST_PRODUCT_TITLE = 'Add your first product';
export const FIRST_PRODUCT_TEXT = 'Start from a product photo, or from a .glb/.gltf 3D file you already have.';
/** Spec §8 empty list texts. */
export const EMPTY_TITLE = 'No products match your filters';
export const EMPTY_TEXT = 'Try adjusting your search terms or clear the status filter to see the full product catalog.';
/** Spec §8 build failure text, shown when the server gives no reason. */
export const BUILD_FAILED_TEXT = 'The build stopped. Try a different angle or hit retry to run it again.';

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 30;
export const MAX_NAME_LENGTH = 100;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function status(v: unknown): ProductStatus {
  return v === 'ready' || v === 'error' || v === 'draft' ? v : v === 'failed' ? 'error' : 'processing';
}

/** Reads a product defensively: missing fields become empty, never undefined. */
export function parseProduct(raw: unknown): Product {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    id: str(r.id),
    name: str(r.name),
    description: str(r.description),
    productURL: str(r.productUrl ?? r.productURL),
    tags: Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [],
    catalogId: str(r.catalogId),
    status: status(r.status),
    live: r.live === true,
    failureReason: strOrNull(r.failureReason),
    jobId: strOrNull(r.blueprintId ?? r.jobId),
    modelURL: strOrNull(r.modelUrl ?? r.modelURL),
    thumbnailURL: strOrNull(r.thumbnailUrl ?? r.thumbnailURL),
    createdAt: str(r.createdAt),
    updatedAt: str(r.updatedAt),
    brand: str(r.brand),
    accentColor: str(r.accentColor),
    accentOverlay: str(r.accentOverlay),
    readyMetric: num(r.readyMetric),
    processingProgress: num(r.processingProgress) ?? 0,
    buildWarnings: parseWarnings(r.buildWarnings),
    price: num(r.price),
    currency: str(r.currency),
  };
}

/** The short status word a card prints beside its icon (issue 50 P11). */
export const PRODUCT_STATUS_WORD: Record<ProductStatus, string> = {
  draft: 'Draft',
  ready: 'Ready',
  processing: 'Processing',
  error: 'Failed',
};

export function parseProductDetail(raw: unknown): ProductDetail {
  const r = (raw ?? {}) as Record<string, unknown>;
  const list = Array.isArray(r.timeline) ? r.timeline : [];
  return {
    ...parseProduct(raw),
    timeline: list.map((e) => {
      const x = (e ?? {}) as Record<string, unknown>;
      const views = typeof x.views === 'number' && Number.isInteger(x.views) && x.views >= 0 ? x.views : 0;
      return { kind: str(x.kind ?? x.type), label: str(x.label), detail: str(x.detail), at: str(x.at), fidelity: parseFidelity(x.fidelity), views };
    }),
    photoURL: strOrNull(r.photoUrl ?? r.photoURL),
    source: str(r.source),
    builds: (Array.isArray(r.builds) ? r.builds : []).map((b, i, all) => {
      const x = (b ?? {}) as Record<string, unknown>;
      // The detail reports the current (last) build's real progress and stage at its top level.
      const cur = i === all.length - 1 ? r : {};
      const progress = x.progress ?? cur.progress;
      return {
        jobId: str(x.jobId),
        status: status(x.status),
        failureReason: str(x.failureReason),
        progress: typeof progress === 'number' && Number.isFinite(progress) ? progress : null,
        stage: str(x.stage ?? cur.stage),
      };
    }),
    config: parseConfig(r),
    publication: parsePublication(r.publication),
    views: typeof r.views === 'number' && Number.isFinite(r.views) ? r.views : 0,
  };
}


/** The first tag, or a dash when there is none (spec §2 card). */
export function firstTag(tags: string[]): string {
  return tags[0] ?? '—';
}

/** Adds a tag: trimmed, not blank, not a case-insensitive repeat, within the limits. Returns an error text or the new list. */
export function addTag(tags: string[], input: string): { tags: string[] } | { error: string } {
  const t = input.trim();
  if (!t) return { error: 'Type a tag first.' };
  if (t.length > MAX_TAG_LENGTH) return { error: `Tags can be at most ${MAX_TAG_LENGTH} characters.` };
  if (tags.some((x) => x.toLowerCase() === t.toLowerCase())) return { error: 'That tag is already there.' };
  if (tags.length >= MAX_TAGS) return { error: `A product can have at most ${MAX_TAGS} tags.` };
  return { tags: [...tags, t] };
}

/** A product URL must be http(s); a bare host gets https:// (as purchase links do, spec §5). */
export function normalizeProductURL(input: string): { url: string } | { error: string } {
  const t = input.trim();
  if (!t) return { url: '' };
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `https://${t}`;
  try {
    const u = new URL(withScheme);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: 'Use a web address starting with http:// or https://.' };
    if (!u.hostname.includes('.')) return { error: 'Enter a full web address, such as https://shop.example.com/item.' };
    return { url: u.toString() };
  } catch {
    return { error: 'Enter a full web address, such as https://shop.example.com/item.' };
  }
}

/** The plan reached its product limit: Add product goes to the subscription page instead (spec §6). */
export function atProductLimit(limit: number | null | undefined, used: number | undefined): boolean {
  return typeof limit === 'number' && (used ?? 0) >= limit;
}

/** Camera presets (spec §2 product detail): orbit strings for model-viewer. */
export const CAMERA_PRESETS = [
  { label: 'Front', orbit: '0deg 75deg auto' },
  { label: 'Side', orbit: '90deg 75deg auto' },
  { label: 'Top-Down', orbit: '0deg 0deg auto' },
] as const;

/** A file name for the screenshot: the product name made safe, plus .png. */
export function screenshotFileName(name: string): string {
  const base = name.trim().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60).toLowerCase();
  return `${base || 'product'}-screenshot.png`;
}

/** Shown when the server refuses a rebuild for lack of AI credit and gives no words of its own. */
export const REBUILD_NO_CREDIT = 'Not enough AI credits to rebuild. Buy more credits or upgrade your plan on the Subscription page.';
/** Shown when the server refuses a rebuild because the current build still runs (409). */
export const REBUILD_STILL_BUILDING = 'This product is still being built. Wait for the build to finish before starting another.';

/**
 * What to tell the merchant when POST /products/{id}/rebuild is refused: the
 * server's own message where it sent one; 402 (no credit) also offers the
 * subscription page.
 */
export function rebuildProblem(err: unknown): { message: string; upgrade: boolean } {
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 402) return { message: errorMessage(err, REBUILD_NO_CREDIT), upgrade: true };
  if (status === 409) return { message: errorMessage(err, REBUILD_STILL_BUILDING), upgrade: false };
  return { message: errorMessage(err, 'The rebuild could not be started. Please try again.'), upgrade: false };
}
