/** Minimum password length (spec §9). */
export const MIN_PASSWORD_LENGTH = 8;
/** Delay before leaving the signup screen after success (spec §9). */
export const SIGNUP_REDIRECT_MS = 1500;
/**
 * Sign-in shows "Logged in successfully! Redirecting..." (spec §2) for this long before it
 * leaves, as signup does; the spec gives no delay of its own, so it is signup's.
 */
export const LOGIN_REDIRECT_MS = SIGNUP_REDIRECT_MS;

/** Sign-in validation in the spec's order (§5); null when the form may be sent. */
export function validateLogin(email: string, password: string): string | null {
  if (!email.trim()) return 'Please enter your email address';
  if (!email.includes('@')) return 'Please enter a valid email address';
  if (!password) return 'Please enter your password';
  return null;
}

export interface SignupFields {
  name: string;
  email: string;
  password: string;
  confirm: string;
}

/** Signup validation in the spec's order (§5). */
export function validateSignup(f: SignupFields): string | null {
  if (!f.name.trim() || !f.email.trim() || !f.password || !f.confirm) return 'Please fill in all fields';
  if (!f.email.includes('@')) return 'Please enter a valid email address';
  if (f.password.length < MIN_PASSWORD_LENGTH) return 'Password must be at least 8 characters long';
  if (f.password !== f.confirm) return 'Passwords do not match';
  return null;
}

/** Strength score 0–100 (spec §5). */
export function passwordStrength(pw: string): number {
  let score = 0;
  if (pw.length >= 8) score += 25;
  if (pw.length >= 12) score += 25;
  if (/[a-z]/.test(pw) && /[A-Z]/.test(pw)) score += 25;
  if (/\d/.test(pw)) score += 12.5;
  if (/[^A-Za-z0-9]/.test(pw)) score += 12.5;
  return Math.min(100, score);
}

export type StrengthLevel = { label: 'Weak' | 'Medium' | 'Strong'; tone: 'red' | 'amber' | 'green' };

/** Weak below 33, Medium below 66, otherwise Strong (spec §4). */
export function strengthLevel(score: number): StrengthLevel {
  if (score < 33) return { label: 'Weak', tone: 'red' };
  if (score < 66) return { label: 'Medium', tone: 'amber' };
  return { label: 'Strong', tone: 'green' };
}

/** Live hints under the password field. */
export function passwordHints(pw: string): { label: string; met: boolean }[] {
  return [
    { label: 'At least 8 characters', met: pw.length >= MIN_PASSWORD_LENGTH },
    { label: 'Mix of uppercase and lowercase', met: /[a-z]/.test(pw) && /[A-Z]/.test(pw) },
    { label: 'Contains a number', met: /\d/.test(pw) },
  ];
}

/** Where to go after signing in: the carried origin, else /my-home. */
export function redirectTarget(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  if (typeof from === 'string' && from.startsWith('/') && !from.startsWith('//')) {
    if (from === '/login' || from.startsWith('/login?') || from === '/signup') return '/my-home';
    return from;
  }
  return '/my-home';
}
