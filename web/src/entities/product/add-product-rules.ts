import { MSG_ONE_IMAGE, validateImageFile } from '../creation/creation-rules';
import type { Job } from '../creation/creation-api';
import type { ProductDetail, ProductPublication } from './product-rules';

/** The wizard's steps in order (spec §2). */
export const WIZARD_STEPS = ['init', 'verify', 'configurator', 'preview', 'publish'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];
export const WIZARD_PATH = '/workspace/add-product';

/** Toasts (spec §4), word for word; each shows for 2.2 s (spec §9). */
export const TOAST_MS = 2200;
export const TOAST_BUILDING = 'We are building your 3D - keep configuring while it processes.';
export const TOAST_READY = '3D ready — jump into the configurator.';
export const TOAST_REMOVING = 'Background removal in progress. You will confirm next.';
/** The publish step's title (spec §2). */
export const LIVE_TITLE = 'Live! Your 3D is ready to share.';
/** Why Publish is refused on Free without a trial (issue 50 item 16): said plainly, with Back and Done beside it. */
export const MSG_SHARING_NEEDS_PRO = 'Sharing needs Pro or the 7-day free trial.';
export const VERSIONING_NOTE = 'Edits update your live page right away, unless a version is locked.';

/** When a locked version was published, as the publish step names it ("5 May 2027, 2:05 pm"). */
export function lockedDate(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  return new Date(t).toLocaleString('en-IN', { day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit' });
}

/**
 * What the publish step says about the lock (issue 50 item 1): locking froze the first
 * published version while the screen said nothing, and the price and buy buttons added since
 * vanished from the page. So the screen names what shoppers see, what locking keeps, and whether
 * edits are waiting.
 */
export function lockSummary(pub: Pick<ProductPublication, 'locked' | 'lockedVersion' | 'lockedAt' | 'pendingEdits'>): { status: string; hint: string } {
  if (!pub.locked) {
    return {
      status: 'Shoppers see your latest edits.',
      hint: 'Locking freezes the page exactly as shoppers see it now (price, buy links, variants, hotspots). Later edits wait until you unlock it.',
    };
  }
  const when = lockedDate(pub.lockedAt);
  return {
    status: `Locked: shoppers see version ${pub.lockedVersion}${when ? `, published on ${when}` : ''}.`,
    hint: pub.pendingEdits
      ? 'You have edits that shoppers do not see yet. Publish them to update the locked page, or unlock it.'
      : 'Edits you make now do not show on the page until you publish them or unlock it.',
  };
}

/** The preview checklist (spec §2), keyed as GET /api/products/{id}/checks answers. */
export const CHECK_LABELS: Record<string, string> = {
  variants: 'Variants switch',
  hotspots: 'Hotspots read clearly',
  links: 'Store links show the right logo',
  camera: 'Default camera angle',
};
export const CHECK_ORDER = ['variants', 'hotspots', 'links', 'camera'];

/** Model files the configurator takes instead of a built model (spec §5). */
export const MODEL_ACCEPT = '.glb,.gltf,.bin,.png,.jpg,.jpeg,.webp,model/gltf-binary,model/gltf+json';
export const MSG_MODEL_TYPE = 'Choose one .glb file, or one .gltf file with its .bin and texture files.';
/** The own-model button, the same words on the product page and in the wizard (issue 50 item 11). */
export const OWN_MODEL_LABEL = 'Use my own 3D file';

/** Steps that need a product id; without one the wizard starts over. */
const NEEDS_PRODUCT: WizardStep[] = ['configurator', 'preview', 'publish'];

/**
 * The wizard's place from the URL (?step=&product=), so a reload keeps the flow. Hostile or
 * missing values fall back to the first step.
 */
export function parseWizardQuery(params: URLSearchParams): { step: WizardStep; productId: string; fromProduct: boolean } {
  const raw = params.get('step') ?? '';
  const productId = (params.get('product') ?? '').slice(0, 100);
  let step: WizardStep = (WIZARD_STEPS as readonly string[]).includes(raw) ? (raw as WizardStep) : 'init';
  if (NEEDS_PRODUCT.includes(step) && !productId) step = 'init';
  return { step, productId: NEEDS_PRODUCT.includes(step) ? productId : '', fromProduct: step === 'publish' && params.get('from') === 'product' };
}

/**
 * The Publish screen of an existing product, opened from its page (issue 50 P10): the same
 * screen, shown as that product's "Publishing" panel, without the Add product steps; Back and
 * Done return to the product.
 */
export function publishingURL(productId: string): string {
  return `${wizardURL('publish', productId)}&from=product`;
}

export function wizardURL(step: WizardStep, productId = ''): string {
  const q = new URLSearchParams({ step });
  if (productId && NEEDS_PRODUCT.includes(step)) q.set('product', productId);
  return `${WIZARD_PATH}?${q.toString()}`;
}

/** Remove background and both Generate 3D actions need a product name and a photo (spec §5). */
export function canAct(name: string, uploadId: string | null | undefined): boolean {
  return name.trim().length > 0 && !!uploadId;
}

/** The wizard photo: exactly one JPEG/PNG/WebP of at most 10 MB; null when it may be uploaded. */
export function checkWizardPhoto(files: ArrayLike<{ name: string; type: string; size: number }> | null | undefined): string | null {
  if (!files || files.length === 0) return null;
  if (files.length > 1) return MSG_ONE_IMAGE;
  return validateImageFile(files[0]);
}

/** Whether some of the files are a 3D model (.glb or .gltf), e.g. a drop on the preview. */
export function hasModelFile(files: { name: string }[]): boolean {
  return files.some((f) => /\.(glb|gltf)$/i.test(f.name));
}

/** An own model: one .glb, or one .gltf with its side files; null when it may be sent. */
export function checkModelFiles(files: { name: string }[]): string | null {
  const ext = (n: string) => n.slice(n.lastIndexOf('.')).toLowerCase();
  const glb = files.filter((f) => ext(f.name) === '.glb');
  const gltf = files.filter((f) => ext(f.name) === '.gltf');
  if (glb.length === 1 && files.length === 1) return null;
  if (gltf.length === 1 && glb.length === 0) return null;
  return MSG_MODEL_TYPE;
}

export type BuildState = 'draft' | 'queued' | 'processing' | 'ready' | 'failed';

/**
 * Where the product's current build is (the modal's steps), from what the server reported:
 * the product's status, its current build's stage/progress and the job's own status.
 */
export function buildState(p: Pick<ProductDetail, 'status' | 'builds'>, job?: Pick<Job, 'status' | 'progress'> | null): BuildState {
  if (p.status === 'ready') return 'ready';
  if (p.status === 'error') return 'failed';
  if (p.status === 'draft') return 'draft';
  const b = p.builds[p.builds.length - 1];
  if (job?.status === 'failed') return 'failed';
  if (job?.status === 'processing' || job?.status === 'completed') return 'processing';
  if (b?.stage && !/^queued$/i.test(b.stage)) return 'processing';
  if ((b?.progress ?? 0) > 0) return 'processing';
  return 'queued';
}

/** The build's real progress in percent (the build's, else its job's), 0–100. */
export function buildProgress(p: Pick<ProductDetail, 'builds' | 'status'>, job?: Pick<Job, 'progress'> | null): number {
  if (p.status === 'ready') return 100;
  const b = p.builds[p.builds.length - 1];
  const v = b?.progress ?? job?.progress ?? 0;
  return Math.max(0, Math.min(100, Math.round(v)));
}

/** The modal's step states (spec §4: pending, active, done, error). */
export function modalSteps(state: BuildState): { key: string; label: string; hint: string; status: 'pending' | 'active' | 'done' | 'error' }[] {
  const order: BuildState[] = ['queued', 'processing', 'ready'];
  const at = state === 'failed' ? 1 : Math.max(0, order.indexOf(state));
  return [
    { key: 'queued', label: 'Queued', hint: 'Waiting for a worker' },
    { key: 'processing', label: 'Processing', hint: 'Transforming image into 3D' },
    { key: 'ready', label: 'Ready', hint: 'Open the configurator' },
  ].map((s, i) => ({
    ...s,
    status: state === 'failed' && i === 1 ? 'error' : i < at || (state === 'ready' && i === at) ? 'done' : i === at ? 'active' : 'pending',
  }));
}

/** The embed box's style: the column's width, at most 800 px, at 4:3 (as publish.EmbedCodeSized on the server). */
export const EMBED_STYLE = 'display:block;width:100%;max-width:800px;height:auto;aspect-ratio:800/600;border:0';

/**
 * The embed code: the server's, else an 800×600 iframe of the embed page with fullscreen allowed
 * (spec §7) that shrinks to a phone's width instead of running off it (issue 50 item 5).
 */
export function embedCodeFor(pub: Pick<ProductPublication, 'embedCode' | 'shareURL'>): string {
  if (pub.embedCode) return pub.embedCode;
  const src = pub.shareURL.replace('/v/', '/embed/');
  return `<iframe src="${src}" width="800" height="600" style="${EMBED_STYLE}" allow="xr-spatial-tracking; fullscreen" allowfullscreen></iframe>`;
}

/** What the wizard remembers about the photo before a product exists (kept across a reload). */
export interface PhotoDraft {
  name: string;
  uploadId: string;
  photoURL: string;
  fileName: string;
}
const DRAFT_KEY = 'p3d.addProduct';

export function loadDraft(): PhotoDraft {
  try {
    const d = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? '{}') as Partial<PhotoDraft>;
    const s = (v: unknown) => (typeof v === 'string' ? v : '');
    return { name: s(d.name).slice(0, 100), uploadId: s(d.uploadId), photoURL: s(d.photoURL), fileName: s(d.fileName) };
  } catch {
    return { name: '', uploadId: '', photoURL: '', fileName: '' };
  }
}

export function saveDraft(d: PhotoDraft | null): void {
  if (d) sessionStorage.setItem(DRAFT_KEY, JSON.stringify(d));
  else sessionStorage.removeItem(DRAFT_KEY);
}

/**
 * The product this tab's wizard last created (kept for the session), so Back from the
 * configurator to the photo steps offers that product instead of an empty wizard.
 */
export interface CreatedProduct {
  id: string;
  name: string;
}
const CREATED_KEY = 'p3d.addProduct.created';

export function loadCreated(): CreatedProduct | null {
  try {
    const c = JSON.parse(sessionStorage.getItem(CREATED_KEY) ?? 'null') as Partial<CreatedProduct> | null;
    return c && typeof c.id === 'string' && c.id ? { id: c.id, name: typeof c.name === 'string' ? c.name : '' } : null;
  } catch {
    return null;
  }
}

/**
 * Builds started in this wizard session (this tab), by product id, until the configurator has
 * said they are ready. Builds usually finish before the configurator's first fetch, so an
 * observed processing → ready change is rare; the toast "3D ready — jump into the
 * configurator." is shown instead when the configurator meets a build of this session that
 * is ready (issue 50 item 16), once.
 */
const BUILT_KEY = 'photo3d.wizard.builds';

function builtHere(): string[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(BUILT_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Remembers that the wizard started (or retried) a build of productId. */
export function noteWizardBuild(productId: string): void {
  if (!productId) return;
  sessionStorage.setItem(BUILT_KEY, JSON.stringify([...builtHere().filter((x) => x !== productId), productId].slice(-20)));
}

/** True once when productId's build started in this session is ready; it is then forgotten. */
export function takeReadyToast(productId: string, state: BuildState): boolean {
  const ids = builtHere();
  if (state === 'failed') sessionStorage.setItem(BUILT_KEY, JSON.stringify(ids.filter((x) => x !== productId)));
  if (state !== 'ready' || !ids.includes(productId)) return false;
  sessionStorage.setItem(BUILT_KEY, JSON.stringify(ids.filter((x) => x !== productId)));
  return true;
}

export function saveCreated(c: CreatedProduct | null): void {
  if (c) sessionStorage.setItem(CREATED_KEY, JSON.stringify(c));
  else sessionStorage.removeItem(CREATED_KEY);
}

/**
 * What the photo steps start from when the wizard opens. A reload or Back/Forward (POP)
 * keeps the tab's unfinished draft; opening the wizard afresh (Add product) starts empty,
 * so an abandoned wizard's name never pre-fills the next product. Moves inside the
 * wizard carry `{ wizard: true }` in the history state.
 */
export function startingDraft(navigation: 'POP' | 'PUSH' | 'REPLACE', state: unknown): PhotoDraft {
  const inside = !!state && typeof state === 'object' && (state as { wizard?: unknown }).wizard === true;
  if (navigation === 'POP' || inside) return loadDraft();
  saveDraft(null);
  saveCreated(null);
  return loadDraft();
}

/** "Save as draft" with further angles: a draft keeps one photo (the server refuses the rest too). */
export const MSG_DRAFT_ANGLES = 'More angles are used when the 3D model is generated. Choose "Generate 3D now", or remove the extra photos to save a draft.';
