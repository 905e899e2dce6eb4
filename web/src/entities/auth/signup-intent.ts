import { redirectTarget } from './auth-rules';

/**
 * What the sign-up form knew that the verification link does not: "Keep me signed in" and
 * where the merchant came from. A new password account signs in only from the mailed link
 * (issue 28 item 14), and that sign-in used to save the session for the tab only and open
 * /my-home whatever was ticked or wherever sign-up began (merchant walk 4, H9; issue 50 item 10).
 * The note is kept in local storage because the link is usually opened in another tab of the
 * same browser (the mail client's); it holds no secret, only the address it is for, the choice
 * and an in-app path, and it is used once. A link opened in another browser finds no note and
 * gets the defaults (this tab only, /my-home).
 */
export const SIGNUP_INTENT_KEY = 'photo3d.signup-intent';
/** As long as the mailed link works (48 hours). */
export const SIGNUP_INTENT_MAX_AGE_MS = 48 * 3_600_000;

export interface SignupIntent {
  remember: boolean;
  /** An in-app path (redirectTarget), never another site. */
  from: string;
}

interface Stored extends SignupIntent {
  email: string;
  at: number;
}

function local(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** Remembers the sign-up form's choice for the verification link of email. */
export function saveSignupIntent(email: string, intent: SignupIntent, now = Date.now()): void {
  const v: Stored = { email: email.trim().toLowerCase(), remember: intent.remember, from: redirectTarget({ from: intent.from }), at: now };
  try {
    local()?.setItem(SIGNUP_INTENT_KEY, JSON.stringify(v));
  } catch {
    /* storage full or blocked: the link falls back to the defaults */
  }
}

/**
 * The sign-up choice for the account that just verified (email from the server's answer), once:
 * a note for that address is removed when read. Null when there is none for that address or it
 * is older than the link can be (an unreadable or stale note is removed too; one for another
 * address waits for its own link).
 */
export function takeSignupIntent(email: string | null | undefined, now = Date.now()): SignupIntent | null {
  const s = local();
  const raw = s?.getItem(SIGNUP_INTENT_KEY);
  if (!s || raw == null) return null;
  let v: Partial<Stored> | null = null;
  try {
    v = JSON.parse(raw) as Partial<Stored> | null;
  } catch {
    /* removed below */
  }
  const fresh = !!v && typeof v.at === 'number' && now - v.at <= SIGNUP_INTENT_MAX_AGE_MS && v.at <= now + 60_000;
  if (!v || typeof v.email !== 'string' || !fresh) {
    s.removeItem(SIGNUP_INTENT_KEY);
    return null;
  }
  if (!email || v.email !== email.trim().toLowerCase()) return null;
  s.removeItem(SIGNUP_INTENT_KEY);
  return { remember: v.remember === true, from: redirectTarget({ from: v.from }) };
}
