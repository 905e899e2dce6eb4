import { parseHotspot, parseLink, parsePresets, parseVariant, type Hotspot, type Presets, type PurchaseLink, type Variant } from './configurator-rules';
import { parsePublication, type ProductPublication } from './product-rules';
import { productsApi } from './products-api';

/** One row of the preview checklist (GET /api/products/{id}/checks), checked by the server. */
export interface CheckItem {
  key: string;
  ok: boolean;
  detail: string;
}

/** A shopper who left an email on the public page. */
export interface Lead {
  id: string;
  email: string;
  createdAt: string;
  variantId: string;
}

/** One page of leads, newest first; nextCursor is '' on the last page. */
export interface LeadPage {
  items: Lead[];
  nextCursor: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const items = (raw: unknown): Record<string, unknown>[] => {
  const list = (raw as { items?: unknown } | null)?.items;
  return Array.isArray(list) ? list.filter((x) => x && typeof x === 'object') : [];
};
const enc = encodeURIComponent;

export interface VariantInput {
  name?: string;
  material?: string;
  parts?: Record<string, string>;
  sku?: string;
  price?: number | null;
  currency?: string;
}

export interface HotspotInput {
  position?: [number, number, number];
  normal?: [number, number, number];
  x?: number;
  y?: number;
  title?: string;
  text?: string;
}

/*
 * Every configuration edit is one call that appends one event on the product's stream;
 * the detail (tag Product/{id}) is refetched after each, so the screen shows what the server
 * stored (including the model URL, which changes with the configuration).
 */
const product = (id: string) => [{ type: 'Product' as const, id }];

export const configuratorApi = productsApi.enhanceEndpoints({ addTagTypes: ['Checks', 'Leads'] }).injectEndpoints({
  endpoints: (build) => ({
    addVariant: build.mutation<Variant, { productId: string } & VariantInput>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/variants`, method: 'POST', body }),
      transformResponse: parseVariant,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    changeVariant: build.mutation<Variant, { productId: string; variantId: string } & VariantInput>({
      query: ({ productId, variantId, ...body }) => ({ url: `/products/${enc(productId)}/variants/${enc(variantId)}`, method: 'PATCH', body }),
      transformResponse: parseVariant,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    removeVariant: build.mutation<unknown, { productId: string; variantId: string }>({
      query: ({ productId, variantId }) => ({ url: `/products/${enc(productId)}/variants/${enc(variantId)}`, method: 'DELETE' }),
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    placeHotspot: build.mutation<Hotspot, { productId: string } & HotspotInput>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/hotspots`, method: 'POST', body }),
      transformResponse: parseHotspot,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    moveHotspot: build.mutation<Hotspot, { productId: string; hotspotId: string } & HotspotInput>({
      query: ({ productId, hotspotId, ...body }) => ({ url: `/products/${enc(productId)}/hotspots/${enc(hotspotId)}`, method: 'PATCH', body }),
      transformResponse: parseHotspot,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    removeHotspot: build.mutation<unknown, { productId: string; hotspotId: string }>({
      query: ({ productId, hotspotId }) => ({ url: `/products/${enc(productId)}/hotspots/${enc(hotspotId)}`, method: 'DELETE' }),
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    addLink: build.mutation<PurchaseLink, { productId: string; url: string; variantId?: string }>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/links`, method: 'POST', body }),
      transformResponse: parseLink,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    removeLink: build.mutation<unknown, { productId: string; linkId: string }>({
      query: ({ productId, linkId }) => ({ url: `/products/${enc(productId)}/links/${enc(linkId)}`, method: 'DELETE' }),
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    setPresets: build.mutation<Presets, { productId: string } & Presets>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/presets`, method: 'PUT', body }),
      transformResponse: parsePresets,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Checks'],
    }),
    productChecks: build.query<CheckItem[], string>({
      query: (id) => ({ url: `/products/${enc(id)}/checks` }),
      transformResponse: (raw: unknown) => items(raw).map((x) => ({ key: str(x.key), ok: x.ok === true, detail: str(x.detail) })),
      providesTags: ['Checks'],
    }),
    publishProductPage: build.mutation<ProductPublication, { productId: string; requireEmail: boolean; allowDeepLinks: boolean }>({
      query: ({ productId, ...body }) => ({ url: `/products/${enc(productId)}/publish`, method: 'POST', body }),
      transformResponse: (raw: unknown) => parsePublication(raw) as ProductPublication,
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Publication', 'Subscription'],
    }),
    /**
     * Locks the live page as shoppers see it now (the server makes the current configuration a
     * new version when it changed, and pins that), or unlocks it. Never a bare version number:
     * the latest version can be older than the live page (issue 50 item 1).
     */
    lockPublication: build.mutation<unknown, { productId: string; publicationId: string; lock: boolean }>({
      query: ({ publicationId, lock }) => ({ url: `/publications/${enc(publicationId)}/lock`, method: 'POST', body: lock ? { live: true } : { version: 0 } }),
      invalidatesTags: (_r, _e, a) => [...product(a.productId), 'Publication'],
    }),
    /** One page of a product's leads (the server pages them: a product may have very many). */
    productLeads: build.query<LeadPage, { id: string; cursor?: string }>({
      query: ({ id, cursor }) => ({ url: `/products/${enc(id)}/leads${cursor ? `?cursor=${enc(cursor)}` : ''}` }),
      transformResponse: (raw: unknown) => ({
        items: items(raw).map((x) => ({ id: str(x.id), email: str(x.email), createdAt: str(x.createdAt), variantId: str(x.variantId) })),
        nextCursor: str((raw as { nextCursor?: unknown } | null)?.nextCursor),
      }),
      providesTags: ['Leads'],
    }),
    deleteLead: build.mutation<unknown, { productId: string; leadId: string }>({
      query: ({ productId, leadId }) => ({ url: `/products/${enc(productId)}/leads/${enc(leadId)}`, method: 'DELETE' }),
      invalidatesTags: ['Leads'],
    }),
  }),
});

export const {
  useDeleteLeadMutation,
  useAddVariantMutation,
  useChangeVariantMutation,
  useRemoveVariantMutation,
  usePlaceHotspotMutation,
  useMoveHotspotMutation,
  useRemoveHotspotMutation,
  useAddLinkMutation,
  useRemoveLinkMutation,
  useSetPresetsMutation,
  useProductChecksQuery,
  usePublishProductPageMutation,
  useLockPublicationMutation,
  useProductLeadsQuery,
} = configuratorApi;
