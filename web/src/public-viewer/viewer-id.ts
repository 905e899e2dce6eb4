/**
 * The shopper's first-party viewer id: a random string kept in this origin's
 * local storage, so a returning browser is the same shopper and a reload is
 * not a new view. Nothing derived from the device (no fingerprinting);
 * clearing site data gives a new id. When storage is unavailable (private
 * modes, blocked storage) the id lives for the page only.
 *
 * A page running an experiment (issue 52) has set the first-party cookie
 * `p3d_vid` from which the server chose this shopper's arm: that value is the
 * viewer id then, so that the server finds the same arm for every beacon.
 */
const KEY = 'p3d.viewer';
const COOKIE = 'p3d_vid';
const VALID = /^[A-Za-z0-9_-]{16,64}$/;

/** The experiment cookie's viewer id, if the page set one. */
function cookieId(): string | null {
  for (const part of document.cookie.split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === COOKIE && value && VALID.test(value)) return value;
  }
  return null;
}

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
    const fromCookie = cookieId();
    if (fromCookie) {
      window.localStorage.setItem(KEY, fromCookie);
      return fromCookie;
    }
    const existing = window.localStorage.getItem(KEY);
    if (existing && VALID.test(existing)) return existing;
    const id = randomId();
    window.localStorage.setItem(KEY, id);
    return id;
  } catch {
    return randomId();
  }
}
