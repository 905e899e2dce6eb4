import { api } from '../../lib/api';

export interface SearchItem {
  id: string;
  label: string;
  type: 'Blueprint' | 'Product' | 'Gallery';
  path: string;
  /**
   * What matched when it was not the label (issue 50 item 17): `tag “red”`, `catalog “Kitchen”` or
   * `description`. The server searches product names, tags, descriptions and catalog names, and
   * gallery names and descriptions.
   */
  matchedOn?: string;
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
