import { api } from '../../lib/api';

/** POST /api/users/me/email: where the confirmation link went and until when it works. */
export interface EmailChangeRequested {
  message: string;
  email: string;
  expiresAt: string;
}

/** POST /api/auth/confirm-email-change: what opening a link did. */
export interface EmailChangeConfirmed {
  message: string;
  email: string;
  /** The old address's undo link: the address is back and every device was signed out. */
  undone: boolean;
}

/**
 * Changing the sign-in email (issue 50 item 13): the request mails a link to the new
 * address; only opening it changes the address (the old one is told and can undo).
 */
export const emailChangeApi = api.injectEndpoints({
  endpoints: (build) => ({
    requestEmailChange: build.mutation<EmailChangeRequested, { email: string; password: string }>({
      query: (body) => ({ url: '/users/me/email', method: 'POST', body }),
    }),
    confirmEmailChange: build.mutation<EmailChangeConfirmed, { token: string }>({
      query: (body) => ({ url: '/auth/confirm-email-change', method: 'POST', body }),
      // A signed-in tab shows the new address on its next read of /users/me.
      invalidatesTags: ['Me'],
    }),
  }),
});

export const { useRequestEmailChangeMutation, useConfirmEmailChangeMutation } = emailChangeApi;
