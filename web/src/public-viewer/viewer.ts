/**
 * Script of the public share page (/v/{slug}) and the embed (/embed/{slug}),
 * which the Go api renders server-side. It is a separate Vite entry so those
 * pages load only the 3D viewer, never the workspace app, and it is served
 * from the same origin because their Content-Security-Policy allows scripts
 * from 'self' only. Shopper analytics beacons go to this origin only (beacons.ts).
 */
// Before model-viewer's first frame, which sizes its drawing buffer (see pixel-ratio.ts).
import './pixel-ratio';
import '@google/model-viewer';
import './viewer.css';
import { startBeacons } from './beacons';
import { wireReducedMotion } from './reduced-motion';
import { wireTouchHint } from './hint';

interface ModelViewerElement extends HTMLElement {
  canActivateAR?: boolean;
}

/** Phones and tablets place the model with their own AR button, so the QR code is for desktops. */
function isHandheld(): boolean {
  return window.matchMedia('(pointer: coarse)').matches || /Android|iPhone|iPad|iPod|Mobile/i.test(navigator.userAgent);
}

function wireQRCode(viewer: ModelViewerElement | null): void {
  const qr = document.getElementById('qr');
  if (!(qr instanceof HTMLDetailsElement)) return;
  const hide = () => {
    qr.hidden = true;
  };
  if (isHandheld()) hide();
  // Once the viewer knows AR works here, the phone's own button is the way in.
  viewer?.addEventListener('load', () => {
    if (viewer.canActivateAR) hide();
  });
}

function wireFullscreen(viewer: ModelViewerElement | null): void {
  const button = document.getElementById('fullscreen');
  if (!(button instanceof HTMLButtonElement) || !viewer || !document.fullscreenEnabled) return;
  button.hidden = false;
  const label = () => {
    button.textContent = document.fullscreenElement ? 'Exit full screen' : 'Full screen';
  };
  button.addEventListener('click', () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen();
  });
  document.addEventListener('fullscreenchange', label);
  label();
}

function wireErrors(viewer: ModelViewerElement | null): void {
  viewer?.addEventListener('error', () => {
    viewer.classList.add('p3d-failed');
    viewer.setAttribute('aria-label', 'The 3D model could not be loaded. Please reload the page.');
  });
}

/** The thin brand-coloured bar shows real download progress and goes away when done. */
function wireProgress(viewer: ModelViewerElement | null): void {
  const bar = viewer?.querySelector<HTMLElement>('.mv-progress');
  const fill = bar?.querySelector<HTMLElement>('.mv-progress-bar');
  if (!viewer || !bar || !fill) return;
  viewer.addEventListener('progress', (event) => {
    const progress = (event as unknown as CustomEvent<{ totalProgress: number }>).detail.totalProgress;
    fill.style.transform = `scaleX(${progress})`;
    bar.hidden = progress >= 1;
  });
}

/**
 * The share page and embed light the model with the Neutral preset, pre-rendered (neutral-env.ts)
 * so model-viewer does not generate it on the shopper's phone. The server names this very file on
 * the element and preloads it in the page's first response (web.Entry.Environment, read from the
 * build manifest, which lists it because it is referenced here); this sets it only when a page
 * did not, in the task that defines the element, before its first update; the product page's own
 * preset (product.ts) then replaces it.
 */
function wireEnvironment(viewer: ModelViewerElement | null): void {
  // The same asset as NEUTRAL_ENVIRONMENT, but named here (Vite writes its hashed URL in place) so
  // this entry shares no chunk with the workspace app: one request fewer on the shopper's phone.
  const neutralEnvironment = new URL('./neutral-env.hdr', import.meta.url).pathname;
  if (viewer && !viewer.hasAttribute('environment-image')) viewer.setAttribute('environment-image', neutralEnvironment);
}

const viewer = document.getElementById('viewer') as ModelViewerElement | null;
wireReducedMotion(viewer);
wireEnvironment(viewer);
wireProgress(viewer);
wireQRCode(viewer);
wireTouchHint(isHandheld());
wireFullscreen(viewer);
wireErrors(viewer);
startBeacons({ viewer });
