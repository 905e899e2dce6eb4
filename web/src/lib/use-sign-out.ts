import { useCallback } from 'react';
import { api } from './api';
import { clearAuth } from './auth-storage';
import { useAppDispatch } from './hooks';
import { signedOut } from './session';

/** Logout: clears both storages, the session and every cached server answer. */
export function useSignOut() {
  const dispatch = useAppDispatch();
  return useCallback(() => {
    clearAuth();
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
  }, [dispatch]);
}
