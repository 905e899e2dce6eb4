import { api } from './api';
import { loadAuth, saveUser } from './auth-storage';
import { signedIn, userUpdated } from './session';
import { normalizeUser, type AuthUser } from './user';
import type { AppDispatch } from './hooks';

/** Keeps the signed-in user in the slice and in both storages in step with the server. */
function syncUser(dispatch: AppDispatch, user: AuthUser) {
  saveUser(user);
  dispatch(userUpdated(user));
}

export interface ProfilePatch {
  firstName: string;
  lastName: string;
  avatarUrl: string | null;
}

/** The signed-in user's own record (/users/me). */
export const sessionApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMe: build.query<AuthUser, void>({
      query: () => ({ url: '/users/me' }),
      transformResponse: (raw: unknown) => normalizeUser(raw) as AuthUser,
      providesTags: ['Me'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          const stored = loadAuth();
          if (stored && data) {
            saveUser(data);
            dispatch(signedIn({ ...stored, user: data }));
          }
        } catch {
          /* errors are handled by the base query (401) or shown by callers */
        }
      },
    }),
    updateProfile: build.mutation<AuthUser, ProfilePatch>({
      query: (body) => ({ url: '/users/me', method: 'PATCH', body }),
      transformResponse: (raw: unknown) => normalizeUser(raw) as AuthUser,
      invalidatesTags: ['Me', 'Dashboard'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          syncUser(dispatch, data);
        } catch {
          /* shown by the form */
        }
      },
    }),
    uploadAvatar: build.mutation<AuthUser, File>({
      query: (file) => {
        const form = new FormData();
        form.append('file', file);
        return { url: '/users/me/avatar', method: 'POST', body: form };
      },
      transformResponse: (raw: unknown) => normalizeUser(raw) as AuthUser,
      invalidatesTags: ['Me'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          syncUser(dispatch, (await queryFulfilled).data);
        } catch {
          /* shown by the form */
        }
      },
    }),
    removeAvatar: build.mutation<AuthUser, void>({
      query: () => ({ url: '/users/me/avatar', method: 'DELETE' }),
      transformResponse: (raw: unknown) => normalizeUser(raw) as AuthUser,
      invalidatesTags: ['Me'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          syncUser(dispatch, (await queryFulfilled).data);
        } catch {
          /* shown by the form */
        }
      },
    }),
  }),
});

export const { useGetMeQuery, useUpdateProfileMutation, useUploadAvatarMutation, useRemoveAvatarMutation } = sessionApi;
