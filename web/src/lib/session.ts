import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from './root-reducer';
import type { AuthRecord } from './auth-storage';
import type { AuthUser } from './user';

export type AuthStatus = 'loading' | 'authenticated' | 'signedOut';

export interface AuthState {
  status: AuthStatus;
  token: string | null;
  user: AuthUser | null;
  expiresAt: number | null;
}

const initialState: AuthState = { status: 'loading', token: null, user: null, expiresAt: null };

/** Client-side session state (who is signed in); the token itself is persisted by auth-storage. */
const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    authLoaded(_state, action: PayloadAction<AuthRecord | null>) {
      const r = action.payload;
      return r
        ? { status: 'authenticated', token: r.token, user: r.user, expiresAt: r.expiresAt }
        : { status: 'signedOut', token: null, user: null, expiresAt: null };
    },
    signedIn(_state, action: PayloadAction<AuthRecord>) {
      const r = action.payload;
      return { status: 'authenticated', token: r.token, user: r.user, expiresAt: r.expiresAt };
    },
    signedOut() {
      return { status: 'signedOut', token: null, user: null, expiresAt: null } satisfies AuthState;
    },
    userUpdated(state, action: PayloadAction<AuthUser>) {
      state.user = action.payload;
    },
  },
  selectors: {
    selectAuthStatus: (s) => s.status,
    selectAuthUser: (s) => s.user,
    selectAuthExpiresAt: (s) => s.expiresAt,
  },
});

declare module './root-reducer' {
  export interface LazyLoadedSlices extends WithSlice<typeof authSlice> {}
}

const injected = authSlice.injectInto(rootReducer);

export const { authLoaded, signedIn, signedOut, userUpdated } = authSlice.actions;
export const { selectAuthStatus, selectAuthUser, selectAuthExpiresAt } = injected.selectors;
