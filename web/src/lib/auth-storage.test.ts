import { describe, expect, it } from 'vitest';
import { AUTH_STORAGE_KEY, AUTH_TOKEN_LIFETIME_MS, clearAuth, currentToken, expiryFrom, loadAuth, saveAuth, saveUser } from './auth-storage';
import { normalizeUser } from './user';

const now = 1_700_000_000_000;
const user = normalizeUser({ id: 'u1', email: 'a@b.c', firstName: 'A', lastName: 'B' })!;

describe('auth storage', () => {
  it('saves to session storage only without remember', () => {
    saveAuth({ token: 't', user, expiresAt: now + 1000 }, false);
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('"t"');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('saves to both storages with remember', () => {
    saveAuth({ token: 't', user, expiresAt: now + 1000 }, true);
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).not.toBeNull();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).not.toBeNull();
  });
  it('reads session storage first, then local storage', () => {
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'local', user, expiresAt: now + 1000 }));
    expect(loadAuth(now)?.token).toBe('local');
    sessionStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'session', user, expiresAt: now + 1000 }));
    expect(loadAuth(now)?.token).toBe('session');
  });
  it('clears expired records', () => {
    sessionStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'old', user, expiresAt: now - 1 }));
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'old', user, expiresAt: now }));
    expect(loadAuth(now)).toBeNull();
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('clears unparsable records and falls back to the other storage', () => {
    sessionStorage.setItem(AUTH_STORAGE_KEY, '{not json');
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'ok', user, expiresAt: now + 5 }));
    expect(loadAuth(now)?.token).toBe('ok');
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('clears records missing a token or expiry', () => {
    sessionStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ user }));
    expect(loadAuth(now)).toBeNull();
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('logout clears both storages', () => {
    saveAuth({ token: 't', user, expiresAt: now + 1000 }, true);
    clearAuth();
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('saveUser replaces the user in every storage holding a record', () => {
    saveAuth({ token: 't', user, expiresAt: Date.now() + 10_000 }, true);
    saveUser({ ...user, firstName: 'Z', name: 'Z B' });
    expect(JSON.parse(sessionStorage.getItem(AUTH_STORAGE_KEY)!).user.firstName).toBe('Z');
    expect(JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY)!).user.firstName).toBe('Z');
    expect(JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY)!).token).toBe('t');
  });
  it('only hands out unexpired tokens', () => {
    saveAuth({ token: 't', user, expiresAt: now + 10 }, false);
    expect(currentToken(now)).toBe('t');
    expect(currentToken(now + 10)).toBeNull();
  });
  it("uses the server's expiresAt, else 24 hours", () => {
    expect(AUTH_TOKEN_LIFETIME_MS).toBe(86_400_000);
    expect(expiryFrom(now + 42, now)).toBe(now + 42);
    expect(expiryFrom(undefined, now)).toBe(now + 86_400_000);
    expect(expiryFrom(now - 1, now)).toBe(now + 86_400_000);
    expect(expiryFrom(String(now + 7), now)).toBe(now + 7);
  });
});
