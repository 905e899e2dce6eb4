/**
 * Caps the device pixel ratio the share/embed page's 3D viewer renders at to 2. model-viewer has
 * no option for this: it sizes its WebGL drawing buffer (antialiased, preserveDrawingBuffer) to
 * the element's CSS size times window.devicePixelRatio, which it reads again on every frame
 * (and follows when it changes, as on a zoom). Its constructor allocates nothing (no scene yet),
 * so the cap only has to be in place before its first frame: viewer.ts imports this module right
 * after model-viewer's chunk has been evaluated, in the same task, so before any frame. (The
 * bundler evaluates the model-viewer chunk first whatever the import order in viewer.ts.)
 *
 * Why: on a phone with DPR 3 the viewer fills most of the screen (366×689 CSS px on a 390×844
 * phone), so its buffer is 1098×2067 pixels with 4× multisampling. Allocating that buffer and
 * drawing the first frames into it is the largest single block of work between the viewer's
 * script and model-viewer's `load` (issue 18: ops/sharepage-trace.mjs shows the canvas resize
 * alone blocking the main thread for 0.45 s and more); at 2 it is 2.25× fewer pixels. Past
 * DPR 2 an antialiased model on a phone screen looks the same, and model-viewer lowers its
 * render scale further by itself when frames are slow. The browser's own rendering of the page
 * (text, poster image, buttons) does not read this property and stays at the device's ratio.
 */
export const MAX_VIEWER_PIXEL_RATIO = 2;

export function capPixelRatio(win: Window = window, max = MAX_VIEWER_PIXEL_RATIO): void {
  const device = win.devicePixelRatio;
  if (!(device > max)) return;
  // A zoomed page changes the real ratio; keep following it, only never above the cap.
  let getter: (() => number) | undefined;
  for (let o: object | null = win; o && !getter; o = Object.getPrototypeOf(o) as object | null) {
    getter = Object.getOwnPropertyDescriptor(o, 'devicePixelRatio')?.get as (() => number) | undefined;
  }
  const read = getter ? () => getter.call(win) : () => device;
  Object.defineProperty(win, 'devicePixelRatio', { configurable: true, get: () => Math.min(read(), max) });
}

capPixelRatio();
