import { normalizeUser, type AuthUser } from './user';

/** What is saved after login, signup or Google login (spec §3 "Stored auth record"). */
export interface AuthRecord {
  token: string;
  user: AuthUser | null;
  expiresAt: number;
}

export const AUTH_STORAGE_KEY = 'photo3d.auth';
/** Token lifetime when the server does not say (spec §9). */
export const AUTH_TOKEN_LIFETIME_MS = 86_400_000;
/** Window event raised when the server rejects the token; the auth feature signs out on it. */
export const TOKEN_EXPIRED_EVENT = 'auth:token-expired';

function stores(): Storage[] {
  const out: Storage[] = [];
  try {
    if (typeof sessionStorage !== 'undefined') out.push(sessionStorage);
  } catch {
    /* storage blocked */
  }
  try {
    if (typeof localStorage !== 'undefined') out.push(localStorage);
  } catch {
    /* storage blocked */
  }
  return out;
}

function parse(raw: string | null, now: number): AuthRecord | null | 'invalid' {
  if (raw == null) return null;
  try {
    const v = JSON.parse(raw) as Partial<AuthRecord> | null;
    if (!v || typeof v.token !== 'string' || !v.token || typeof v.expiresAt !== 'number') return 'invalid';
    if (!(v.expiresAt > now)) return 'invalid';
    return { token: v.token, user: normalizeUser(v.user), expiresAt: v.expiresAt };
  } catch {
    return 'invalid';
  }
}

/**
 * Reads the saved auth: session storage first, then local storage. Expired or
 * unparsable records are removed (spec §4).
 */
export function loadAuth(now = Date.now()): AuthRecord | null {
  for (const s of stores()) {
    const got = parse(s.getItem(AUTH_STORAGE_KEY), now);
    if (got === 'invalid') {
      s.removeItem(AUTH_STORAGE_KEY);
      continue;
    }
    if (got) return got;
  }
  return null;
}

/** Saves to session storage always, and to local storage too when remember is set. */
export function saveAuth(record: AuthRecord, remember: boolean): void {
  const raw = JSON.stringify(record);
  const [session, local] = [safeSession(), safeLocal()];
  session?.setItem(AUTH_STORAGE_KEY, raw);
  if (remember) local?.setItem(AUTH_STORAGE_KEY, raw);
  else local?.removeItem(AUTH_STORAGE_KEY);
}

/** Replaces the user in every storage that holds a record (profile updates, spec §4). */
export function saveUser(user: AuthUser): void {
  for (const s of stores()) {
    const raw = s.getItem(AUTH_STORAGE_KEY);
    if (!raw) continue;
    try {
      const v = JSON.parse(raw) as AuthRecord;
      s.setItem(AUTH_STORAGE_KEY, JSON.stringify({ ...v, user }));
    } catch {
      s.removeItem(AUTH_STORAGE_KEY);
    }
  }
}

/**
 * Swaps in a fresh session (sign out everywhere, password change) in every storage that
 * holds the old one, so "remember me" keeps its choice.
 */
export function replaceAuth(record: AuthRecord): void {
  const raw = JSON.stringify(record);
  let wrote = false;
  for (const s of stores()) {
    if (s.getItem(AUTH_STORAGE_KEY) == null) continue;
    s.setItem(AUTH_STORAGE_KEY, raw);
    wrote = true;
  }
  if (!wrote) safeSession()?.setItem(AUTH_STORAGE_KEY, raw);
}

/** Logout and 401s clear both storages. */
export function clearAuth(): void {
  for (const s of stores()) s.removeItem(AUTH_STORAGE_KEY);
}

/** The bearer token to send, only while it is unexpired. */
export function currentToken(now = Date.now()): string | null {
  return loadAuth(now)?.token ?? null;
}

/** Expiry to store: the server's expiresAt when sane, else now + 24 h. */
export function expiryFrom(serverExpiresAt: unknown, now = Date.now()): number {
  if (typeof serverExpiresAt === 'number' && serverExpiresAt > now) return serverExpiresAt;
  if (typeof serverExpiresAt === 'string') {
    const n = Number(serverExpiresAt);
    const t = Number.isFinite(n) ? n : Date.parse(serverExpiresAt);
    if (Number.isFinite(t) && t > now) return t;
  }
  return now + AUTH_TOKEN_LIFETIME_MS;
}

function safeSession(): Storage | null {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}
function safeLocal(): Storage | null {
  try {
    return localStorage;
  } catch {
    return null;
  }
}
