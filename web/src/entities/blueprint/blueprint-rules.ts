import { parseFidelity } from '../creation/fidelity';

/** Blueprint status as the list shows it. */
export type BlueprintStatus = 'processing' | 'ready' | 'failed';

/** One blueprint in GET /api/blueprints. */
export interface Blueprint {
  id: string;
  name: string;
  jobId: string;
  thumbnailURL: string | null;
  createdAt: string | null;
  status: BlueprintStatus;
  modelURL: string | null;
  /** Mesh fidelity 0–100, null when the build has none. */
  fidelity: number | null;
  /** How many photos the build uses (1, or 2–8): two builds of one name differ here. */
  views: number;
  /** A spin set's rings, and how many videos it was cut from (0 for photos); null for other builds. */
  spin: { rings: number; videos: number } | null;
  /** Whether Retry may start a failed build again: false when its photos were refused. */
  retryable: boolean;
  /** Why a failed build stopped, as the server words it; null otherwise. */
  error: string | null;
}

/**
 * Where a merchant brings other photos for a build whose photos were refused: the spin page (its
 * video mode for a set cut from videos; features/creation/spin-rules.ts) or the upload page.
 */
export function otherPhotosPath(spin: Blueprint['spin']): string {
  if (!spin) return '/workspace/upload';
  return spin.videos ? '/workspace/upload/spin?mode=videos' : '/workspace/upload/spin';
}

export const STATUS_LABEL: Record<BlueprintStatus, string> = {
  processing: 'Processing…',
  ready: 'Ready',
  failed: 'Failed',
};

/** Copy confirmation time (spec §9). */
export const COPIED_MS = 1200;

/** The message for Share when the plan does not include public sharing. */
export const MSG_SHARE_UPGRADE = 'Sharing a public link is part of Pro. Upgrade your plan to share this blueprint.';
export const MSG_SHARE_FAILED = 'The share link could not be created. Please try again.';
export const MSG_DOWNLOAD_FAILED = 'The model could not be downloaded. Please try again.';
export const MSG_NO_MODEL = 'This blueprint has no 3D model yet.';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);

function normaliseStatus(v: unknown): BlueprintStatus {
  const s = String(v ?? '').toLowerCase();
  if (s === 'ready' || s === 'completed') return 'ready';
  if (s === 'failed' || s === 'error') return 'failed';
  return 'processing';
}

/** Accepts an array or {items} (spec §7) and keeps well-formed entries. */
export function parseBlueprints(raw: unknown): Blueprint[] {
  const list = Array.isArray(raw) ? raw : Array.isArray((raw as { items?: unknown } | null)?.items) ? (raw as { items: unknown[] }).items : [];
  return list
    .filter((b): b is Record<string, unknown> => !!b && typeof b === 'object' && typeof (b as { id?: unknown }).id === 'string')
    .map((b) => ({
      id: b.id as string,
      name: str(b.name) ?? 'Untitled blueprint',
      jobId: str(b.jobId) ?? (b.id as string),
      thumbnailURL: str(b.thumbnailURL),
      createdAt: str(b.createdAt),
      status: normaliseStatus(b.status),
      modelURL: str(b.modelURL),
      fidelity: parseFidelity(b.fidelity),
      views: typeof b.views === 'number' && Number.isInteger(b.views) && b.views >= 1 ? b.views : 1,
      spin: parseSpinSummary(b.spin),
      retryable: b.retryable !== false,
      error: str(b.error),
    }));
}

/** The spin field of a blueprint: how many rings (and videos), or null when absent or malformed. */
function parseSpinSummary(raw: unknown): { rings: number; videos: number } | null {
  const rings = (raw as { rings?: unknown } | null)?.rings;
  if (!Array.isArray(rings) || rings.length === 0) return null;
  const videos = (raw as { videos?: unknown }).videos;
  return { rings: rings.length, videos: typeof videos === 'number' && Number.isInteger(videos) && videos > 0 ? videos : 0 };
}

/** One page of GET /api/blueprints: pass nextCursor back for the next (null on the last). */
export interface BlueprintPage {
  items: Blueprint[];
  nextCursor: string | null;
  total: number | null;
}

export function parseBlueprintPage(raw: unknown): BlueprintPage {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    items: parseBlueprints(raw),
    nextCursor: str(r.nextCursor),
    total: typeof r.total === 'number' && Number.isFinite(r.total) ? r.total : null,
  };
}

/** "Blue Vase (v2)!" → "blue-vase-v2"; accents folded, never empty. */
export function slugify(name: string, fallback = 'blueprint'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** The downloaded file's name: the slugified blueprint name plus .glb. */
export function glbFileName(name: string | null | undefined): string {
  return `${slugify(name ?? '')}.glb`;
}

/** Rename input rule: 1–100 characters, as the server enforces. */
export function validateBlueprintName(name: string): string | null {
  const t = name.trim();
  if (!t) return 'Enter a name.';
  if (t.length > 100) return 'Blueprint names can be at most 100 characters.';
  return null;
}

/** A signed URL about to expire is treated as expired: the download must not start on a URL that dies mid-way. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Whether a signed URL has expired (or is about to), read from its own query: the
 * file store's `expiry` (Unix seconds) or S3's `X-Amz-Date` + `X-Amz-Expires`. URLs
 * that carry neither are taken as valid; a refused fetch is retried with a fresh one.
 */
export function signedURLExpired(url: string, nowMs = Date.now()): boolean {
  let q: URLSearchParams;
  try {
    q = new URL(url, 'http://local.invalid').searchParams;
  } catch {
    return false;
  }
  let until: number | null = null;
  const expiry = Number(q.get('expiry'));
  if (q.has('expiry') && Number.isFinite(expiry)) until = expiry * 1000;
  const amzDate = q.get('X-Amz-Date');
  const amzExpires = Number(q.get('X-Amz-Expires'));
  const m = amzDate?.match(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/);
  if (m && Number.isFinite(amzExpires)) until = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) + amzExpires * 1000;
  return until !== null && until - EXPIRY_MARGIN_MS <= nowMs;
}
