import { api } from '../../lib/api';

/** The e-mail verification link (its own file: the sign-in calls live in auth-api.ts). */
export const verifyEmailApi = api.injectEndpoints({
  endpoints: (build) => ({
    verifyEmail: build.mutation<{ message: string }, { token: string }>({
      query: (body) => ({ url: '/auth/verify-email', method: 'POST', body }),
      // The workspace's "verify your email" notice reads /users/me: refresh it.
      invalidatesTags: ['Me'],
    }),
    resendVerification: build.mutation<{ message: string }, void>({
      query: () => ({ url: '/users/me/verify-email', method: 'POST' }),
    }),
  }),
});

export const { useVerifyEmailMutation, useResendVerificationMutation } = verifyEmailApi;
