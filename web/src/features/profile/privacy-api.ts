import { api } from '../../lib/api';

/** GET/POST /api/users/me/export: the newest "Download my data" export. */
export interface DataExport {
  status: 'none' | 'pending' | 'ready' | 'failed' | 'expired';
  /** While ready: a download link valid for an hour (asking again mints a fresh one). */
  url?: string;
  /** While ready: what the download is saved as (photo3d-export-YYYY-MM-DD.zip). */
  fileName?: string;
  requestedAt?: string;
  expiresAt?: string;
}

/** DELETE /api/users/me: the account closes at once; the data goes in a background job. */
export const privacyApi = api.injectEndpoints({
  endpoints: (build) => ({
    deleteAccount: build.mutation<{ message: string }, { password?: string; googleCredential?: string; deleteWorkspace?: boolean }>({
      query: (body) => ({ url: '/users/me', method: 'DELETE', body }),
    }),
    getDataExport: build.query<DataExport, void>({
      query: () => '/users/me/export',
      keepUnusedDataFor: 0, // the link inside expires; never serve a stale one
    }),
    requestDataExport: build.mutation<DataExport, void>({
      query: () => ({ url: '/users/me/export', method: 'POST' }),
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(privacyApi.util.upsertQueryData('getDataExport', undefined, data));
        } catch {
          /* shown by the panel */
        }
      },
    }),
  }),
});

export const { useDeleteAccountMutation, useGetDataExportQuery, useRequestDataExportMutation } = privacyApi;
