import { api } from '../../lib/api';

/** The e-mail verification link (its own file: the sign-in calls live in auth-api.ts). */
export const verifyEmailApi = api.injectEndpoints({
  endpoints: (build) => ({
    verifyEmail: build.mutation<{ message: string }, { token: string }>({
      query: (body) => ({ url: '/auth/verify-email', method: 'POST', body }),
    }),
  }),
});

export const { useVerifyEmailMutation } = verifyEmailApi;
