import { api } from '../../lib/api';

/** DELETE /api/users/me: the account closes at once; the data goes in a background job. */
export const privacyApi = api.injectEndpoints({
  endpoints: (build) => ({
    deleteAccount: build.mutation<{ message: string }, { password?: string; googleCredential?: string }>({
      query: (body) => ({ url: '/users/me', method: 'DELETE', body }),
    }),
  }),
});

export const { useDeleteAccountMutation } = privacyApi;
