import { parsePage, toApiParams, type ListQuery, type Page } from '../../components/list/list-rules';
import { api } from '../../lib/api';
import { parseProduct, parseProductDetail, type Product, type ProductDetail } from './product-rules';

export interface ProductPatch {
  id: string;
  name?: string;
  description?: string;
  productUrl?: string;
  tags?: string[];
  catalogId?: string;
}

/** The merchant's products: paged list (filtered and sorted by the server), detail, create, edit, delete. */
export const productsApi = api.enhanceEndpoints({ addTagTypes: ['Product', 'Catalog', 'Gallery', 'Publication'] }).injectEndpoints({
  endpoints: (build) => ({
    listProducts: build.query<Page<Product> & { hiddenByPlan: number }, ListQuery & { catalogId?: string }>({
      query: ({ catalogId, ...q }) => ({ url: catalogId ? `/catalogs/${encodeURIComponent(catalogId)}/products` : '/products', params: toApiParams(q) }),
      // hiddenByPlan: products past the plan's productLimit, left out of the list (spec §6).
      transformResponse: (raw: unknown) => {
        const hidden = (raw as { hiddenByPlan?: unknown } | null)?.hiddenByPlan;
        return { ...parsePage(raw, parseProduct), hiddenByPlan: typeof hidden === 'number' && hidden > 0 ? hidden : 0 };
      },
      providesTags: (page) => [{ type: 'Product' as const, id: 'LIST' }, ...(page?.items ?? []).map((p) => ({ type: 'Product' as const, id: p.id }))],
    }),
    getProduct: build.query<ProductDetail, string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}` }),
      transformResponse: parseProductDetail,
      providesTags: (_r, _e, id) => [{ type: 'Product', id }],
    }),
    // ownModel: a draft for the merchant's own .glb/.gltf, sent next (issue 50 item 11).
    createProduct: build.mutation<Product, { name: string; blueprintId?: string; catalogId?: string; ownModel?: boolean }>({
      query: (body) => ({ url: '/products', method: 'POST', body }),
      transformResponse: parseProduct,
      invalidatesTags: [{ type: 'Product', id: 'LIST' }, { type: 'Catalog', id: 'LIST' }, 'Subscription', 'Dashboard', 'Search'],
    }),
    updateProduct: build.mutation<Product, ProductPatch>({
      query: ({ id, ...body }) => ({ url: `/products/${encodeURIComponent(id)}`, method: 'PATCH', body }),
      transformResponse: parseProduct,
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Product', id }, { type: 'Product', id: 'LIST' }, { type: 'Catalog', id: 'LIST' }, 'Gallery', 'Dashboard', 'Search'],
    }),
    /** Starts a new build of the product's photo (one AI credit; 402 without credit, 409 while a build runs). */
    rebuildProduct: build.mutation<ProductDetail, string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}/rebuild`, method: 'POST' }),
      transformResponse: parseProductDetail,
      onQueryStarted: (id, api) => showBuildStarted(id, api),
      invalidatesTags: (_r, _e, id) => [{ type: 'Product', id }, { type: 'Product', id: 'LIST' }, 'Gallery', 'Subscription', 'Dashboard', 'Search'],
    }),
    /** A new photo for the product, rebuilt from it (one credit); its configuration stays (issue 29 item 17). */
    replaceProductPhoto: build.mutation<ProductDetail, { id: string; uploadId: string }>({
      query: ({ id, uploadId }) => ({ url: `/products/${encodeURIComponent(id)}/photo`, method: 'POST', body: { uploadId } }),
      transformResponse: parseProductDetail,
      onQueryStarted: ({ id }, api) => showBuildStarted(id, api),
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Product', id }, { type: 'Product', id: 'LIST' }, 'Gallery', 'Subscription', 'Dashboard', 'Search'],
    }),
    deleteProduct: build.mutation<unknown, string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'Product', id: 'LIST' }, { type: 'Catalog', id: 'LIST' }, 'Gallery', 'Subscription', 'Dashboard', 'Search'],
    }),
  }),
});

/**
 * Puts the server's answer to a new build (the product as committed: Processing 3D…) on the
 * product's page at once. The refetch that follows may come back after a fast build has
 * finished, and the page would then never show that the build ran.
 */
async function showBuildStarted(
  id: string,
  { dispatch, queryFulfilled }: { dispatch: (action: unknown) => unknown; queryFulfilled: Promise<{ data: ProductDetail }> },
) {
  try {
    const { data } = await queryFulfilled;
    dispatch(productsApi.util.upsertQueryData('getProduct', id, data));
  } catch {
    /* a refusal: shown by the button's alert */
  }
}

export const { useRebuildProductMutation, useReplaceProductPhotoMutation } = productsApi;
export const { useListProductsQuery, useGetProductQuery, useCreateProductMutation, useUpdateProductMutation, useDeleteProductMutation } = productsApi;
