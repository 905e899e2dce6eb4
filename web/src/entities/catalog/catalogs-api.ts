import { api } from '../../lib/api';
import { parseCatalog, parseCatalogList, parseMoveResult, type Catalog, type CatalogList, type MoveResult } from './catalog-rules';

/** The merchant's catalogs: list with totals, one catalog, create, rename, delete. */
export const catalogsApi = api.enhanceEndpoints({ addTagTypes: ['Catalog', 'Product'] }).injectEndpoints({
  endpoints: (build) => ({
    getCatalogs: build.query<CatalogList, void>({
      query: () => ({ url: '/catalogs' }),
      transformResponse: parseCatalogList,
      providesTags: [{ type: 'Catalog', id: 'LIST' }],
    }),
    getCatalog: build.query<Catalog, string>({
      query: (id) => ({ url: `/catalogs/${encodeURIComponent(id)}` }),
      transformResponse: parseCatalog,
      providesTags: (_r, _e, id) => [{ type: 'Catalog', id }],
    }),
    createCatalog: build.mutation<Catalog, { name: string; description?: string }>({
      query: (body) => ({ url: '/catalogs', method: 'POST', body }),
      transformResponse: parseCatalog,
      invalidatesTags: [{ type: 'Catalog', id: 'LIST' }],
    }),
    updateCatalog: build.mutation<Catalog, { id: string; name?: string; description?: string }>({
      query: ({ id, ...body }) => ({ url: `/catalogs/${encodeURIComponent(id)}`, method: 'PATCH', body }),
      transformResponse: parseCatalog,
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Catalog', id }, { type: 'Catalog', id: 'LIST' }],
    }),
    /** "Add products": moves several products into the catalog in one go (each leaves its old catalog). */
    moveIntoCatalog: build.mutation<MoveResult, { id: string; productIds: string[] }>({
      query: ({ id, productIds }) => ({ url: `/catalogs/${encodeURIComponent(id)}/products`, method: 'POST', body: { productIds } }),
      transformResponse: parseMoveResult,
      invalidatesTags: (_r, _e, { productIds }) => [{ type: 'Catalog', id: 'LIST' }, { type: 'Catalog' }, { type: 'Product', id: 'LIST' }, ...productIds.map((id) => ({ type: 'Product' as const, id }))],
    }),
    /** Deleting moves the catalog's products to the default catalog (server rule). */
    deleteCatalog: build.mutation<unknown, string>({
      query: (id) => ({ url: `/catalogs/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'Catalog', id: 'LIST' }, 'Product'],
    }),
  }),
});

export const { useGetCatalogsQuery, useGetCatalogQuery, useCreateCatalogMutation, useUpdateCatalogMutation, useDeleteCatalogMutation, useMoveIntoCatalogMutation } =
  catalogsApi;
