import { api } from '../../lib/api';
import { replaceAuth, type AuthRecord } from '../../lib/auth-storage';
import { signedIn } from '../../lib/session';
import { toAuthRecord } from '../../entities/auth/auth-api';

/**
 * Both calls end every other session and answer with a fresh token for this device; the
 * new token replaces the old one where it was stored, so this tab stays signed in.
 */
function keepThisDevice(raw: unknown): AuthRecord {
  const record = toAuthRecord({ data: raw });
  if (!record) throw new Error('The server did not send a new session.');
  return record;
}

export const securityApi = api.injectEndpoints({
  endpoints: (build) => ({
    signOutEverywhere: build.mutation<AuthRecord, void>({
      query: () => ({ url: '/auth/logout-everywhere', method: 'POST' }),
      transformResponse: keepThisDevice,
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          replaceAuth(data);
          dispatch(signedIn(data));
        } catch {
          /* shown by the panel */
        }
      },
    }),
    changePassword: build.mutation<AuthRecord, { currentPassword: string; newPassword: string }>({
      query: (body) => ({ url: '/users/me/password', method: 'POST', body }),
      transformResponse: keepThisDevice,
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          replaceAuth(data);
          dispatch(signedIn(data));
        } catch {
          /* shown by the panel */
        }
      },
    }),
  }),
});

export const { useSignOutEverywhereMutation, useChangePasswordMutation } = securityApi;
