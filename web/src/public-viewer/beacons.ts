/**
 * Shopper analytics beacons of the public page and embed (README, "Beacon
 * protocol", v1). Events are batched and sent with navigator.sendBeacon to
 * POST /t on this origin (CSP connect-src 'self'): on a timer while the page
 * is visible, and when it is hidden or closed. The view is sent at once
 * because it is the counted view the merchant pays for.
 *
 * What is sent: view, first interaction (a camera change the shopper caused),
 * visible time (heartbeats while the page is visible), hotspot opened,
 * variant changed, AR launched with its mode, fullscreen. Buy-link clicks are
 * counted by the server at the redirect; the links get ?vid= so the click is
 * the same shopper's. With Do-Not-Track or Global Privacy Control only the
 * view is sent, under an id that is never stored.
 *
 * Every batch carries the page's view token, which the server signed into
 * the page (<meta name="p3d-view-token">, internal/publish/pagetoken.go):
 * /t refuses batches without a valid one, so beacons only come from pages
 * the server actually served.
 */
import { ephemeralViewerId, viewerId } from './viewer-id';

type BeaconType = 'view' | 'interact' | 'visible' | 'hotspot' | 'variant' | 'ar' | 'fullscreen';

interface Beacon {
  t: BeaconType;
  at: number;
  ms?: number;
  hotspot?: string;
  variant?: string;
  mode?: string;
}

const ENDPOINT = '/t';
const HEARTBEAT_MS = 15_000;
const MAX_BATCH = 50;

function slugFromPath(path: string): string | null {
  const m = /^\/(?:v|embed)\/([A-Za-z0-9_-]{16,64})(?:\/|$)/.exec(path);
  return m ? m[1] : null;
}

/** The view token of this page, as the server rendered it ('' when missing: the server refuses the batch). */
function viewToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="p3d-view-token"]')?.content ?? '';
}

function optedOut(): boolean {
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean; msDoNotTrack?: string };
  return nav.globalPrivacyControl === true || nav.doNotTrack === '1' || nav.msDoNotTrack === '1';
}

function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

export interface BeaconOptions {
  viewer: HTMLElement | null;
  /** Overridable for tests. */
  send?: (url: string, body: string) => boolean;
}

/** Starts collecting; returns the queue's flush for tests. */
export function startBeacons({ viewer, send }: BeaconOptions): { flush: () => void } | null {
  const slug = slugFromPath(window.location.pathname);
  if (!slug) return null;
  const privateMode = optedOut();
  const id = privateMode ? ephemeralViewerId() : viewerId();
  const params = new URLSearchParams(window.location.search);
  const transmit =
    send ??
    ((url: string, body: string) => {
      if (navigator.sendBeacon) return navigator.sendBeacon(url, body);
      void fetch(url, { method: 'POST', body, keepalive: true, headers: { 'Content-Type': 'text/plain' } });
      return true;
    });
  const context = {
    v: 1,
    slug,
    viewer: id,
    token: viewToken(),
    tz: timeZone(),
    ref: document.referrer ? document.referrer.slice(0, 2048) : undefined,
    utm: params.get('utm_source')?.slice(0, 256) || undefined,
    // The experiment arm the page names (issue 52); the server records the arm it assigned.
    arm: document.querySelector<HTMLMetaElement>('meta[name="p3d-arm"]')?.content || undefined,
  };
  let queue: Beacon[] = [];

  const flush = () => {
    while (queue.length > 0) {
      const events = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      transmit(ENDPOINT, JSON.stringify({ ...context, events }));
    }
  };
  const push = (b: Omit<Beacon, 'at'>) => {
    if (privateMode && b.t !== 'view') return;
    queue.push({ ...b, at: Date.now() });
  };

  const initialVariant = params.get('variant');
  push(initialVariant && /^[A-Za-z0-9_.:-]{1,64}$/.test(initialVariant) ? { t: 'view', variant: initialVariant } : { t: 'view' });
  flush();
  if (privateMode) return { flush };

  // Buy links carry the viewer id so the server's click is this shopper's;
  // the product page script reads it from here for links it renders later
  // (variant switches) and for the email gate's lead.
  if (viewer) viewer.dataset.viewerId = id;
  // Buy links carry the viewer id so the server's click is this shopper's.
  document.querySelectorAll<HTMLAnchorElement>('a.p3d-buy').forEach((a) => {
    const url = new URL(a.href, window.location.href);
    url.searchParams.set('vid', id);
    a.href = url.pathname + url.search;
  });

  // Visible time: heartbeats while visible, the remainder when hidden. While the
  // email gate covers the model (data-gated until the product script opens it
  // and says so with p3d:gate-open) the shopper sees no model: the clock waits.
  let gated = viewer?.hasAttribute('data-gated') ?? false;
  let visibleSince = document.visibilityState === 'visible' && !gated ? performance.now() : -1;
  viewer?.addEventListener('p3d:gate-open', () => {
    if (!gated) return;
    gated = false;
    if (document.visibilityState === 'visible') visibleSince = performance.now();
  });
  const settleVisible = () => {
    if (visibleSince < 0) return;
    const now = performance.now();
    let ms = Math.round(now - visibleSince);
    visibleSince = now;
    while (ms > 0) {
      const part = Math.min(ms, 120_000);
      push({ t: 'visible', ms: part });
      ms -= part;
    }
  };
  window.setInterval(() => {
    if (document.visibilityState !== 'visible') return;
    settleVisible();
    flush();
  }, HEARTBEAT_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      settleVisible();
      visibleSince = -1;
      flush();
    } else if (!gated) {
      visibleSince = performance.now();
    }
  });
  window.addEventListener('pagehide', () => {
    settleVisible();
    flush();
  });

  if (viewer) {
    // First interaction: a camera change the shopper caused (orbit, zoom).
    let interacted = false;
    viewer.addEventListener('camera-change', (event) => {
      const source = (event as CustomEvent<{ source?: string }>).detail?.source;
      if (interacted || source !== 'user-interaction') return;
      interacted = true;
      push({ t: 'interact' });
    });
    viewer.addEventListener('ar-status', (event) => {
      const status = (event as CustomEvent<{ status?: string }>).detail?.status;
      if (status !== 'session-started') return;
      const mode = (viewer as HTMLElement & { arMode?: string }).arMode;
      push({ t: 'ar', mode: mode === 'scene-viewer' || mode === 'quick-look' ? mode : 'webxr' });
      flush();
    });
    // Quick Look and Scene Viewer leave the page without an ar-status session.
    viewer.addEventListener('quick-look-button-tapped', () => {
      push({ t: 'ar', mode: 'quick-look' });
      flush();
    });
    viewer.addEventListener('p3d:variant', (event) => {
      const variant = (event as CustomEvent<{ variant?: string }>).detail?.variant;
      if (variant && /^[A-Za-z0-9_.:-]{1,64}$/.test(variant)) push({ t: 'variant', variant });
    });
    viewer.addEventListener('p3d:hotspot', (event) => {
      const hotspot = (event as CustomEvent<{ hotspot?: string }>).detail?.hotspot;
      if (hotspot && /^[A-Za-z0-9_.:-]{1,64}$/.test(hotspot)) push({ t: 'hotspot', hotspot });
    });
  }
  document.addEventListener('fullscreenchange', () => {
    if (document.fullscreenElement) push({ t: 'fullscreen' });
  });
  return { flush };
}
