import { useCallback } from 'react';
import { api, API_BASE } from './api';
import { clearAuth, currentToken } from './auth-storage';
import { useAppDispatch } from './hooks';
import { signedOut } from './session';

/**
 * Ends the session on the server (POST /auth/logout), so a copied token stops working,
 * then clears both storages, the session and every cached server answer. The local
 * sign-out does not wait for the server: a user who clicks Logout offline is still
 * signed out on this device; keepalive lets the request outlive the navigation.
 */
export function revokeSession(token: string | null): Promise<void> {
  if (!token) return Promise.resolve();
  return fetch(`${API_BASE}/auth/logout`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    keepalive: true,
  }).then(
    () => undefined,
    () => undefined,
  );
}

export function useSignOut() {
  const dispatch = useAppDispatch();
  return useCallback(() => {
    const revoked = revokeSession(currentToken());
    clearAuth();
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
    return revoked;
  }, [dispatch]);
}
