/**
 * The shopper's first-party viewer id: a random string kept in this origin's
 * local storage, so a returning browser is the same shopper and a reload is
 * not a new view. No cookies, nothing derived from the device (no
 * fingerprinting); clearing site data gives a new id. When storage is
 * unavailable (private modes, blocked storage) the id lives for the page only.
 */
const KEY = 'p3d.viewer';
const VALID = /^[A-Za-z0-9_-]{16,64}$/;

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A per-page id that is never stored (Do-Not-Track / GPC, or no storage). */
export function ephemeralViewerId(): string {
  return randomId();
}

/** The stored viewer id, created on first use. */
export function viewerId(): string {
  try {
    const existing = window.localStorage.getItem(KEY);
    if (existing && VALID.test(existing)) return existing;
    const id = randomId();
    window.localStorage.setItem(KEY, id);
    return id;
  } catch {
    return randomId();
  }
}
