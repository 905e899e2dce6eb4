import { api } from '../../lib/api';

export interface SearchItem {
  id: string;
  label: string;
  type: 'Blueprint' | 'Product' | 'Gallery';
  path: string;
}

/** Workspace-wide search over blueprints, products and galleries. */
export const searchApi = api.injectEndpoints({
  endpoints: (build) => ({
    search: build.query<SearchItem[], string>({
      query: (q) => ({ url: '/search', params: { q } }),
      transformResponse: (raw: { items?: SearchItem[] } | null) => raw?.items ?? [],
      providesTags: ['Search'],
      keepUnusedDataFor: 30,
    }),
  }),
});

export const { useSearchQuery, useLazySearchQuery } = searchApi;
