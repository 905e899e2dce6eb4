import { api } from '../../lib/api';

export interface Branding {
  brandName: string;
  brandColor: string;
  logoUrl: string | null;
}

/** Default brand colour (spec §9). */
export const DEFAULT_BRAND_COLOR = '#2E5BBA';
/** The placeholder brand a new account starts with (the server's default too). */
export const DEFAULT_BRAND_NAME = 'Your Brand';
/** The largest logo the server accepts (account.MaxLogoBytes, 2 MB). */
export const MAX_LOGO_BYTES = 2 * 1024 * 1024;
/** The server's words for a logo over the limit, shown before anything is sent. */
export const MSG_LOGO_TOO_LARGE = 'Logos must be 2 MB or smaller.';

/** Brand settings used on share pages, embeds and billing documents. */
export const brandingApi = api.injectEndpoints({
  endpoints: (build) => ({
    getBranding: build.query<Branding, void>({
      query: () => ({ url: '/branding' }),
      providesTags: ['Branding'],
    }),
    updateBranding: build.mutation<Branding, { brandName: string; brandColor: string }>({
      query: (body) => ({ url: '/branding', method: 'PUT', body }),
      invalidatesTags: ['Branding'],
    }),
    uploadLogo: build.mutation<Branding, File>({
      query: (file) => {
        const form = new FormData();
        form.append('file', file);
        return { url: '/branding/logo', method: 'POST', body: form };
      },
      invalidatesTags: ['Branding'],
    }),
    removeLogo: build.mutation<Branding, void>({
      query: () => ({ url: '/branding/logo', method: 'DELETE' }),
      invalidatesTags: ['Branding'],
    }),
  }),
});

export const { useGetBrandingQuery, useUpdateBrandingMutation, useUploadLogoMutation, useRemoveLogoMutation } = brandingApi;
