import type { BaseQueryApi, QueryReturnValue } from '@reduxjs/toolkit/query';
import type { ApiArgs, ApiError } from '../../lib/api';
import { AUTH_STORAGE_KEY, saveAuth, type AuthRecord } from '../../lib/auth-storage';
import { toAuthRecord } from '../../entities/auth/auth-api';
import { apiKeysApi } from './api-keys-api';

/** Whether this device's session was saved with "remember me" (local storage). */
function remembered(): boolean {
  try {
    return window.localStorage.getItem(AUTH_STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

/**
 * POST /api/auth/logout-everywhere: ends every session and every API key of the account;
 * the answer is a fresh session for this device, saved like a sign-in.
 */
export const sessionsApi = apiKeysApi.injectEndpoints({
  endpoints: (build) => ({
    signOutEverywhere: build.mutation<AuthRecord, void>({
      queryFn: async (
        _arg: void,
        _api: BaseQueryApi,
        _extra: unknown,
        baseQuery: (arg: ApiArgs) => QueryReturnValue<unknown, ApiError, {}> | PromiseLike<QueryReturnValue<unknown, ApiError, {}>>,
      ): Promise<QueryReturnValue<AuthRecord, ApiError, undefined>> => {
        const res = await baseQuery({ url: '/auth/logout-everywhere', method: 'POST' });
        if (res.error) return { error: res.error };
        const record = toAuthRecord(res.data);
        if (!record) return { error: { status: 'CUSTOM_ERROR', message: 'The answer had no new session. Please sign in again.' } };
        saveAuth(record, remembered());
        return { data: record };
      },
      // The API-keys list shows the keys as revoked now.
      invalidatesTags: ['ApiKeys'],
    }),
  }),
});

export const { useSignOutEverywhereMutation } = sessionsApi;
