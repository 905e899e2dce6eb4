/** The signed-in user as the client keeps it (spec §3 "Auth user"). */
export interface AuthUser {
  id: string;
  email: string;
  name: string;
  firstName: string;
  lastName: string;
  avatarUrl: string | null;
  createdAt?: string;
  /** false until the owner opens the link mailed at sign-up (the shell shows a notice). */
  emailVerified?: boolean;
}

function emailLocalPart(email: string | undefined | null): string {
  if (!email) return '';
  const at = email.indexOf('@');
  return (at >= 0 ? email.slice(0, at) : email).trim();
}

/**
 * Normalises whatever user shape the server sends. When firstName and lastName are
 * both absent the name is split on whitespace; with no name either, the e-mail local
 * part becomes the first name (spec §3).
 */
export function normalizeUser(raw: unknown): AuthUser | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const email = str(r.email);
  let firstName = str(r.firstName ?? r.first_name).trim();
  let lastName = str(r.lastName ?? r.last_name).trim();
  const name = str(r.name).trim();
  if (!firstName && !lastName) {
    if (name) {
      const parts = name.split(/\s+/);
      firstName = parts[0] ?? '';
      lastName = parts.slice(1).join(' ');
    } else {
      firstName = emailLocalPart(email);
    }
  }
  const avatar = r.avatarUrl ?? r.avatar_url;
  return {
    id: String(r.id ?? ''),
    email,
    name: name || rebuildName(firstName, lastName),
    firstName,
    lastName,
    avatarUrl: typeof avatar === 'string' && avatar ? avatar : null,
    createdAt: typeof r.createdAt === 'string' ? r.createdAt : undefined,
    emailVerified: typeof r.emailVerified === 'boolean' ? r.emailVerified : undefined,
  };
}

/** Full name from its parts, as rebuilt after a profile update (spec §4). */
export function rebuildName(firstName: string, lastName: string): string {
  return [firstName.trim(), lastName.trim()].filter(Boolean).join(' ');
}

/** Name used in greetings: firstName, first word of name, e-mail local part, else Guest. */
export function greetingName(user: Partial<AuthUser> | null | undefined): string {
  if (!user) return 'Guest';
  const first = user.firstName?.trim();
  if (first) return first;
  const word = user.name?.trim().split(/\s+/)[0];
  if (word) return word;
  const local = emailLocalPart(user.email);
  return local || 'Guest';
}

/** Letter shown when there is no avatar image: uppercase first letter, fallback R. */
export function avatarInitial(user: Partial<AuthUser> | null | undefined): string {
  const source = user ? greetingName(user) : '';
  const ch = source && source !== 'Guest' ? source.trim().charAt(0) : '';
  return ch ? ch.toUpperCase() : 'R';
}

/** Two-letter initials for the profile avatar fallback. */
export function initials(firstName: string, lastName: string, email = ''): string {
  const a = firstName.trim().charAt(0);
  const b = lastName.trim().charAt(0);
  const s = (a + b) || emailLocalPart(email).charAt(0);
  return (s || 'R').toUpperCase();
}

/** Name sent on signup: the trimmed name, falling back to the e-mail local part. */
export function signupName(name: string, email: string): string {
  return name.trim() || emailLocalPart(email);
}

/** Profile edits merged into the stored user, with the full name rebuilt (spec §4). */
export function mergeProfile(
  user: AuthUser,
  patch: { firstName: string; lastName: string; avatarUrl: string | null },
): AuthUser {
  const firstName = patch.firstName.trim();
  const lastName = patch.lastName.trim();
  return { ...user, firstName, lastName, avatarUrl: patch.avatarUrl, name: rebuildName(firstName, lastName) };
}
