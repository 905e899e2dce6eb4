/**
 * A merchant's auto-spin yields to a shopper whose system asks for reduced motion (WCAG 2.2.2),
 * now and when they change the setting while the page is open. Set in the task that defines
 * the element, before its first frame, so the model never starts turning.
 */
export function wireReducedMotion(viewer: HTMLElement | null): void {
  if (!viewer || !viewer.hasAttribute('auto-rotate') || typeof window.matchMedia !== 'function') return;
  const reduce = window.matchMedia('(prefers-reduced-motion: reduce)');
  const apply = () => viewer.toggleAttribute('auto-rotate', !reduce.matches);
  apply();
  reduce.addEventListener?.('change', apply);
}
