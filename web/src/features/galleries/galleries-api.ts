import { parsePage, toApiParams, type ListQuery, type Page } from '../../components/list/list-rules';
import { api } from '../../lib/api';
import { parsePublication, type ProductPublication } from '../../entities/product/product-rules';
import { parseGallery, parseGalleryDetail, type Gallery, type GalleryDetail } from './gallery-rules';

/** The merchant's galleries (Pro and trial): paged list, detail, create, edit, products and cover, delete. */
export const galleriesApi = api.enhanceEndpoints({ addTagTypes: ['Gallery', 'Publication'] }).injectEndpoints({
  endpoints: (build) => ({
    listGalleries: build.query<Page<Gallery>, ListQuery>({
      query: (q) => ({ url: '/galleries', params: toApiParams(q) }),
      transformResponse: (raw: unknown) => parsePage(raw, parseGallery),
      providesTags: [{ type: 'Gallery', id: 'LIST' }],
    }),
    getGallery: build.query<GalleryDetail, string>({
      query: (id) => ({ url: `/galleries/${encodeURIComponent(id)}` }),
      transformResponse: parseGalleryDetail,
      providesTags: (_r, _e, id) => [{ type: 'Gallery', id }],
    }),
    createGallery: build.mutation<Gallery, { name: string; description: string; productIds: string[]; coverProductId?: string; tags?: string[]; thumbnailColor?: string }>({
      query: (body) => ({ url: '/galleries', method: 'POST', body }),
      transformResponse: parseGallery,
      invalidatesTags: [{ type: 'Gallery', id: 'LIST' }, 'Subscription', 'Dashboard', 'Search'],
    }),
    updateGallery: build.mutation<Gallery, { id: string; name?: string; description?: string; tags?: string[]; thumbnailColor?: string }>({
      query: ({ id, ...body }) => ({ url: `/galleries/${encodeURIComponent(id)}`, method: 'PATCH', body }),
      transformResponse: parseGallery,
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Gallery', id }, { type: 'Gallery', id: 'LIST' }, 'Dashboard', 'Search'],
    }),
    /** Sets the products in order and the cover. */
    setGalleryProducts: build.mutation<unknown, { id: string; productIds: string[]; coverProductId: string | null }>({
      query: ({ id, productIds, coverProductId }) => ({
        url: `/galleries/${encodeURIComponent(id)}/products`,
        method: 'PUT',
        body: coverProductId ? { productIds, coverProductId } : { productIds },
      }),
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Gallery', id }, { type: 'Gallery', id: 'LIST' }, 'Dashboard'],
    }),
    /** Publishes the gallery's public page /g/{slug} (or returns the live one). */
    publishGallery: build.mutation<ProductPublication | null, string>({
      query: (id) => ({ url: `/galleries/${encodeURIComponent(id)}/publish`, method: 'POST' }),
      transformResponse: (raw: unknown) => parsePublication(raw),
      invalidatesTags: (_r, _e, id) => [{ type: 'Gallery', id }, 'Publication'],
    }),
    /** Takes the gallery's page down (its link stops working at once). */
    unpublishGallery: build.mutation<unknown, { galleryId: string; publicationId: string }>({
      query: ({ publicationId }) => ({ url: `/publications/${encodeURIComponent(publicationId)}`, method: 'DELETE' }),
      invalidatesTags: (_r, _e, { galleryId }) => [{ type: 'Gallery', id: galleryId }, 'Publication'],
    }),
    deleteGallery: build.mutation<unknown, string>({
      query: (id) => ({ url: `/galleries/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'Gallery', id: 'LIST' }, 'Subscription', 'Dashboard', 'Search'],
    }),
  }),
});

export const {
  useListGalleriesQuery,
  useGetGalleryQuery,
  useCreateGalleryMutation,
  useUpdateGalleryMutation,
  useSetGalleryProductsMutation,
  useDeleteGalleryMutation,
  usePublishGalleryMutation,
  useUnpublishGalleryMutation,
} = galleriesApi;
