/** Landing-page stepping constants (spec §2, §9). */
export const STEP_MIN_WIDTH_PX = 900;
export const WHEEL_DELTA_THRESHOLD = 8;
export const STEP_LOCK_MS = 800;
export const SECTION_VISIBILITY_THRESHOLD = 0.6;

/** Direction a key steps: +1 next section, −1 previous, 0 not a stepping key. */
export function stepForKey(key: string, shiftKey = false): -1 | 0 | 1 {
  switch (key) {
    case 'ArrowDown':
    case 'PageDown':
      return 1;
    case ' ':
    case 'Spacebar':
      return shiftKey ? -1 : 1;
    case 'ArrowUp':
    case 'PageUp':
      return -1;
    default:
      return 0;
  }
}

/** Direction a wheel event steps; small deltas (trackpad jitter) are ignored. */
export function stepForWheel(deltaY: number, threshold = WHEEL_DELTA_THRESHOLD): -1 | 0 | 1 {
  if (Math.abs(deltaY) < threshold) return 0;
  return deltaY > 0 ? 1 : -1;
}

/** Input fields are exempt from stepping. */
export function isEditableTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as HTMLElement).tagName !== 'string') return false;
  const el = target as HTMLElement;
  const tag = el.tagName.toLowerCase();
  return tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable === true;
}

/** Index to move to, clamped to the sections that exist. */
export function nextIndex(current: number, step: -1 | 0 | 1, count: number): number {
  return Math.max(0, Math.min(count - 1, current + step));
}

/** A published blog post (none yet: the blog page says "Blog launching soon"). */
export interface BlogPost {
  slug: string;
  title: string;
}

/** The blog's posts. The Blog link appears in the menus once there is one (issue 50, P1). */
export const BLOG_POSTS: readonly BlogPost[] = [];

/**
 * The marketing menu's links. The spec lists Home, Demo and Blog; Blog is left out while it
 * has no posts, so a visitor is not sent to an empty page (its /blog page stays reachable).
 */
export function marketingLinks(posts: readonly BlogPost[] = BLOG_POSTS): { to: string; label: string; end: boolean }[] {
  const links = [
    { to: '/', label: 'Home', end: true },
    { to: '/demo', label: 'Demo', end: false },
  ];
  if (posts.length > 0) links.push({ to: '/blog', label: 'Blog', end: false });
  return links;
}
