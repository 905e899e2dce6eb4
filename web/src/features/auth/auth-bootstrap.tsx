import { useEffect } from 'react';
import { api } from '../../lib/api';
import { clearAuth, loadAuth, TOKEN_EXPIRED_EVENT } from '../../lib/auth-storage';
import { useAppDispatch, useAppSelector } from '../../lib/hooks';
import { authLoaded, selectAuthExpiresAt, signedOut } from '../../lib/session';

/** Longest timer browsers honour (about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Restores the saved session at start; signs out when the token is rejected or runs out. */
export function AuthBootstrap() {
  const dispatch = useAppDispatch();
  const expiresAt = useAppSelector(selectAuthExpiresAt);
  useEffect(() => {
    dispatch(authLoaded(loadAuth()));
    const onExpired = () => {
      clearAuth();
      dispatch(signedOut());
      dispatch(api.util.resetApiState());
    };
    window.addEventListener(TOKEN_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(TOKEN_EXPIRED_EVENT, onExpired);
  }, [dispatch]);

  useEffect(() => {
    if (expiresAt === null) return;
    const t = window.setTimeout(() => window.dispatchEvent(new Event(TOKEN_EXPIRED_EVENT)), Math.min(MAX_TIMEOUT_MS, Math.max(0, expiresAt - Date.now())));
    return () => window.clearTimeout(t);
  }, [expiresAt]);
  return null;
}
