/**
 * Script of a product's public page (/v/{slug}, /embed/{slug} of a published product): the
 * viewer wiring of viewer.ts plus the variant switcher, hotspots, presets, buy buttons and the
 * email gate. Everything it needs is in the page (data attributes and the application/json
 * block #p3d-product rendered by the Go api), so the page's CSP needs no inline script.
 *
 * It dispatches CustomEvents on the model-viewer element (#viewer) for the analytics script:
 * `p3d:variant` {detail:{variant}}, `p3d:hotspot` {detail:{hotspot}}, `p3d:lead` {}.
 */
import { formatPrice } from '../lib/money';
import './viewer';
import './product.css';
import { environmentFor } from './environments';

/** A variant's price in the shopper's locale ("₹899"), else the server's rendering. */
export function priceText(v: Pick<PageVariant, 'price' | 'amount' | 'currency'>): string {
  return typeof v.amount === 'number' && v.currency ? formatPrice(v.amount, v.currency) : v.price;
}

interface BuyLink {
  href: string;
  label: string;
  key: string;
  accent: string;
}

interface PageVariant {
  id: string;
  name: string;
  sku: string;
  price: string;
  /** The price as a number with its ISO currency: formatted here in the shopper's locale. */
  amount?: number | null;
  currency?: string;
  arUrl: string;
  /** The variant's Quick Look file (USDZ built on the server), model-viewer's ios-src. */
  usdzUrl: string;
  links: BuyLink[];
}

interface PageData {
  slug: string;
  /** The page's configurator model (every variant through KHR_materials_variants). */
  modelUrl?: string;
  variants: PageVariant[];
  defaultVariant: string;
  initialVariant?: string;
  allowDeepLinks: boolean;
  requireEmail: boolean;
  leadUrl: string;
  lighting: string;
}

interface ProductViewer extends HTMLElement {
  variantName: string | null;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

function readData(): PageData | null {
  const el = document.getElementById('p3d-product');
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as PageData;
  } catch {
    return null;
  }
}

/** Lighting → environment map; background (data-backdrop) → the stage behind the model (colour validated). */
export function applyPresets(viewer: HTMLElement, lighting: string): void {
  viewer.setAttribute('environment-image', environmentFor(lighting));
  const color = viewer.dataset.backgroundColor ?? '';
  if (!COLOR.test(color)) return;
  // data-backdrop, not data-background: html/template reads a "background" attribute as a URL and
  // escapes "Solid Color" to "Solid%20Color", so the preset never matched.
  if (viewer.dataset.backdrop === 'Solid Color') viewer.style.background = color;
  if (viewer.dataset.backdrop === 'Gradient') viewer.style.background = `linear-gradient(180deg, ${color}, #ffffff)`;
}

function paintChip(a: HTMLElement): void {
  const accent = a.dataset.accent ?? '';
  if (COLOR.test(accent)) a.style.setProperty('--chip', accent);
}

/**
 * Our URL with the shopper's viewer id (set on #viewer by beacons.ts unless
 * the shopper opted out of tracking), so the server counts the buy click or
 * lead as this shopper's.
 */
function withViewerId(href: string): string {
  const id = document.getElementById('viewer')?.dataset.viewerId;
  if (!id) return href;
  const url = new URL(href, window.location.href);
  url.searchParams.set('vid', id);
  return url.pathname + url.search;
}

/**
 * The email gate's token: on a gated page the server answers the model, the
 * AR files and the poster only with it (?gt=), and hands it out when it
 * accepts the shopper's email. Empty on a page without the gate.
 */
let gateToken = '';

/** Our model URL with the gate token when there is one. */
function withGate(href: string): string {
  if (!gateToken) return href;
  const url = new URL(href, window.location.href);
  url.searchParams.set('gt', gateToken);
  return url.pathname + url.search;
}

/**
 * How long to wait before asking again for a file the server answered "not ready yet" (503): its
 * Retry-After in seconds, within 2–60 s, else 10 s.
 */
export function retryDelayMs(res: Response): number {
  const s = Number(res.headers.get('Retry-After'));
  return (Number.isFinite(s) && s > 0 ? Math.min(60, Math.max(2, s)) : 10) * 1000;
}

/** At most this many "not ready yet" retries per file and page view. */
const MAX_RETRIES = 30;

/** An iPhone or iPad (iPadOS reports itself as a Mac with touch). */
const IOS =
  typeof navigator !== 'undefined' && (/iP(hone|ad|od)/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1));

/**
 * "Download the 3D file for AR" offers the variant's .glb, which an iPhone or iPad cannot open: there
 * the AR button opens the server-built USDZ instead, so the link goes (merchant walk 4, P21).
 */
export function wireARFile(link: HTMLElement | null, ios = IOS): void {
  if (link && ios) link.hidden = true;
}

/**
 * A variant's AR GLB and Quick Look USDZ are made by the server's worker once the page is published
 * (a large model's take a minute or more); until then the server answers 503 with Retry-After. The
 * viewer then shows the page's configurator model (the same look: model-viewer applies the variant
 * through KHR_materials_variants) and asks for the variant's own file again when told to; an
 * iPhone's Quick Look gets model-viewer's own conversion of the scene while the USDZ is not ready,
 * never an error.
 */
export function wireNotReady(viewer: ProductViewer, data: PageData, ios = IOS): void {
  let tries = 0;
  const probe = (url: string, then: (res: Response) => void) => {
    void fetch(url, { method: 'HEAD' }).then(then).catch(() => undefined);
  };
  const retryModel = (wanted: string, res: Response) => {
    if (res.status !== 503 || tries++ >= MAX_RETRIES) return;
    window.setTimeout(() => {
      if (viewer.dataset.src !== wanted) return; // another variant was chosen meanwhile
      probe(wanted, (again) => {
        if (viewer.dataset.src !== wanted) return;
        if (!again.ok) {
          retryModel(wanted, again);
          return;
        }
        // The same URL again would not reload: a gated page (no fallback model) asks with a
        // query the server ignores.
        const url = new URL(wanted, window.location.href);
        if (viewer.getAttribute('src') === wanted) url.searchParams.set('ready', String(tries));
        viewer.setAttribute('src', url.pathname + url.search);
      });
    }, retryDelayMs(res));
  };
  viewer.addEventListener('error', () => {
    const src = viewer.getAttribute('src') ?? '';
    if (!src.includes('/ar/') || src !== viewer.dataset.src) return;
    probe(src, (res) => {
      if (res.status !== 503 || viewer.dataset.src !== src) return;
      if (data.modelUrl) viewer.setAttribute('src', withGate(data.modelUrl));
      retryModel(src, res);
    });
  });
  if (!ios) return;
  let usdzTries = 0;
  const checkQuickLook = () => {
    const usdz = viewer.dataset.iosSrc ?? '';
    if (!usdz || viewer.hasAttribute('data-gated')) return;
    probe(usdz, (res) => {
      if (viewer.dataset.iosSrc !== usdz) return;
      if (res.ok) {
        viewer.setAttribute('ios-src', usdz);
        return;
      }
      viewer.removeAttribute('ios-src');
      if (res.status === 503 && usdzTries++ < MAX_RETRIES) window.setTimeout(checkQuickLook, retryDelayMs(res));
    });
  };
  viewer.addEventListener('p3d:variant', checkQuickLook);
  viewer.addEventListener('p3d:gate-open', checkQuickLook);
  checkQuickLook();
}

/** A stored gate token still valid for a while ("<expiry seconds>.<signature>"). */
function liveToken(token: string | null): string {
  const expiry = Number(token?.split('.')[0]);
  return token && Number.isFinite(expiry) && expiry * 1000 > Date.now() + 60_000 ? token : '';
}

/** Rebuilds the buy buttons with DOM calls (never innerHTML): hrefs are our /go/ redirects. */
function renderLinks(list: HTMLElement, links: BuyLink[]): void {
  list.replaceChildren(
    ...links.map((l) => {
      const a = document.createElement('a');
      a.className = 'p3d-buy';
      a.href = withViewerId(l.href);
      a.rel = 'nofollow noopener';
      a.target = '_top';
      a.dataset.platform = l.key;
      a.dataset.accent = l.accent;
      const chip = document.createElement('span');
      chip.className = 'p3d-chip';
      chip.textContent = l.label;
      a.append(chip);
      paintChip(a);
      return a;
    }),
  );
}

export function wireProduct(viewer: ProductViewer, data: PageData): void {
  applyPresets(viewer, data.lighting);
  wireARFile(document.getElementById('ar-file'));
  document.querySelectorAll<HTMLElement>('.p3d-buy').forEach(paintChip);
  const byId = new Map(data.variants.map((v) => [v.id, v]));

  const select = (id: string): void => {
    const v = byId.get(id);
    if (!v) return;
    viewer.variantName = id;
    viewer.setAttribute('variant-name', id);
    viewer.dataset.variant = id;
    const model = withGate(v.arUrl);
    viewer.dataset.arSrc = model;
    // The model shown is the variant's own GLB (its materials baked in as the
    // defaults), so every AR mode shows what the shopper picked: Scene Viewer
    // opens src itself, Quick Look and WebXR use the scene on screen.
    viewer.dataset.src = model;
    if (viewer.hasAttribute('src')) viewer.setAttribute('src', model);
    // iPhones open the server-built USDZ at once instead of converting the GLB on the phone.
    const usdz = withGate(v.usdzUrl);
    viewer.dataset.iosSrc = usdz;
    if (viewer.hasAttribute('ios-src') || !viewer.hasAttribute('data-gated')) viewer.setAttribute('ios-src', usdz);
    document.querySelectorAll<HTMLButtonElement>('.p3d-variant').forEach((b) => {
      b.setAttribute('aria-pressed', String(b.dataset.variant === id));
    });
    const price = document.getElementById('price');
    if (price) {
      price.textContent = priceText(v);
      price.hidden = v.price === '';
    }
    const sku = document.getElementById('sku');
    const skuValue = document.getElementById('sku-value');
    if (sku && skuValue) {
      skuValue.textContent = v.sku;
      sku.hidden = v.sku === '';
    }
    const buy = document.getElementById('buy');
    if (buy) renderLinks(buy, v.links);
    const ar = document.getElementById('ar-file');
    if (ar instanceof HTMLAnchorElement) ar.href = model;
    if (data.allowDeepLinks) {
      const url = new URL(window.location.href);
      if (id === data.defaultVariant) url.searchParams.delete('variant');
      else url.searchParams.set('variant', id);
      window.history.replaceState(null, '', url);
    }
    viewer.dispatchEvent(new CustomEvent('p3d:variant', { detail: { variant: id } }));
  };
  document.querySelectorAll<HTMLButtonElement>('.p3d-variant').forEach((b) => {
    b.addEventListener('click', () => select(b.dataset.variant ?? ''));
  });

  // Hotspot labels open towards the middle of the frame, so none is clipped at a phone's edge.
  let sidePending = false;
  const sideHotspots = () => {
    sidePending = false;
    const box = viewer.getBoundingClientRect();
    viewer.querySelectorAll<HTMLElement>('.p3d-hotspot').forEach((h) => {
      const r = h.getBoundingClientRect();
      h.dataset.side = r.left + r.width / 2 > box.left + box.width / 2 ? 'left' : 'right';
    });
  };
  viewer.addEventListener('camera-change', () => {
    if (sidePending) return;
    sidePending = true;
    requestAnimationFrame(sideHotspots);
  });

  viewer.querySelectorAll<HTMLButtonElement>('.p3d-hotspot').forEach((h) => {
    h.addEventListener('click', () => {
      h.classList.toggle('p3d-open');
      viewer.dispatchEvent(new CustomEvent('p3d:hotspot', { detail: { hotspot: h.dataset.hotspot } }));
    });
  });

  // The server rendered the price for English readers; the shopper's locale formats it now.
  const shown = data.variants.find((v) => v.id === viewer.dataset.variant);
  const priceEl = document.getElementById('price');
  if (shown && priceEl && shown.price) priceEl.textContent = priceText(shown);

  if (data.requireEmail) wireGate(viewer, data);
  wireNotReady(viewer, data);
}

/**
 * The email gate: the model loads only after the server accepted the email
 * and answered the gate token its model URLs need.
 */
function wireGate(viewer: ProductViewer, data: PageData): void {
  const form = document.getElementById('gate');
  const email = document.getElementById('gate-email');
  const consent = document.getElementById('gate-consent');
  const error = document.getElementById('gate-error');
  if (!(form instanceof HTMLFormElement) || !(email instanceof HTMLInputElement) || !(consent instanceof HTMLInputElement) || !error) {
    return;
  }
  // The card and the blurred teaser behind it (teaser.go) go away together.
  const card = document.getElementById('gate-wrap') ?? form;
  const teaser = document.getElementById('gate-teaser');
  // A poster the server could not make a teaser of: the card alone, never a broken image.
  teaser?.addEventListener('error', () => {
    teaser.hidden = true;
  });
  const stage = document.querySelector<HTMLElement>('.p3d-stage') ?? viewer;
  const panel = document.querySelector<HTMLElement>('.p3d-panel');
  stage.hidden = true;
  if (panel) panel.hidden = true;
  const remembered = `p3d-lead:${data.slug}`;
  const open = (token: string) => {
    gateToken = token;
    card.hidden = true;
    stage.hidden = false;
    if (panel) panel.hidden = false;
    const src = viewer.dataset.src ? withGate(viewer.dataset.src) : '';
    if (src) {
      viewer.dataset.src = src;
      viewer.dataset.arSrc = src;
      viewer.setAttribute('src', src);
    }
    const iosSrc = viewer.dataset.iosSrc ? withGate(viewer.dataset.iosSrc) : '';
    if (iosSrc) {
      viewer.dataset.iosSrc = iosSrc;
      viewer.setAttribute('ios-src', iosSrc);
    }
    const ar = document.getElementById('ar-file');
    if (ar instanceof HTMLAnchorElement) ar.href = withGate(ar.getAttribute('href') ?? '');
    // The model is in view now: the beacons' visible-time clock starts (beacons.ts).
    viewer.removeAttribute('data-gated');
    viewer.dispatchEvent(new CustomEvent('p3d:gate-open', {}));
  };
  // One email per visit: reloading or opening another variant's link in this tab does not ask again.
  const stored = liveToken(sessionStorage.getItem(remembered));
  if (stored) {
    open(stored);
    return;
  }
  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.hidden = true;
    const value = email.value.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) {
      fail('Enter a valid email address, for example name@example.com.');
      return;
    }
    if (!consent.checked) {
      fail('Please tick the box to agree before continuing.');
      return;
    }
    void fetch(withViewerId(data.leadUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: value, consent: true, variantId: viewer.dataset.variant ?? '', surface: window.location.pathname.startsWith('/embed/') ? 'embed' : 'page' }),
    })
      .then(async (res) => {
        const body = (await res.json().catch(() => null)) as { gateToken?: string; error?: { message?: string } } | null;
        if (res.status === 200 && body?.gateToken) {
          sessionStorage.setItem(remembered, body.gateToken);
          open(body.gateToken);
          viewer.dispatchEvent(new CustomEvent('p3d:lead', {}));
          return;
        }
        fail(body?.error?.message ?? 'Something went wrong. Please try again in a moment.');
      })
      .catch(() => fail('Something went wrong. Please try again in a moment.'));
  });
}

const viewer = document.getElementById('viewer') as ProductViewer | null;
const data = readData();
if (viewer && data) wireProduct(viewer, data);
