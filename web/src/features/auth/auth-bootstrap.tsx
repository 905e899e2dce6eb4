import { useEffect } from 'react';
import { api } from '../../lib/api';
import { loadAuth, TOKEN_EXPIRED_EVENT } from '../../lib/auth-storage';
import { useAppDispatch } from '../../lib/hooks';
import { authLoaded, signedOut } from '../../lib/session';

/** Restores the saved session at start and signs out when the token is rejected. */
export function AuthBootstrap() {
  const dispatch = useAppDispatch();
  useEffect(() => {
    dispatch(authLoaded(loadAuth()));
    const onExpired = () => {
      dispatch(signedOut());
      dispatch(api.util.resetApiState());
    };
    window.addEventListener(TOKEN_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(TOKEN_EXPIRED_EVENT, onExpired);
  }, [dispatch]);
  return null;
}
