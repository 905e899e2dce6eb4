import type { ApiError } from '../../lib/api';
import { uploadPhoto, UploadError, type ApiBaseQuery } from '../creation/creation-api';
import { MSG_NO_CREDITS, MSG_PROCESS_FAILED } from '../creation/creation-rules';
import { parseProductDetail, type ProductDetail } from '../products/product-rules';
import { configuratorApi } from '../products/configurator-api';

/**
 * The photo as stored by the upload API: its id (for the cutout and the product), its URL
 * (needs the token) and previewURL, the signed URL to show it with.
 */
export interface UploadedPhoto {
  uploadId: string;
  url: string;
  previewURL: string;
}

export interface CutoutOptions {
  cleanEdges: boolean;
  keepShadow: boolean;
}

/** The server's background-removed image (POST/GET /api/uploads/{id}/cutout). */
export interface Cutout extends CutoutOptions {
  status: 'ready' | 'pending' | 'failed';
  url: string;
  message: string;
  width: number;
  height: number;
}

/** How often a pending cutout is asked for again, and for how long at most. */
export const CUTOUT_POLL_MS = 300;
export const CUTOUT_WAIT_MS = 60_000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function parseCutout(raw: unknown): Cutout {
  const r = (raw ?? {}) as Record<string, unknown>;
  const status = r.status === 'ready' || r.status === 'failed' ? r.status : 'pending';
  return {
    status,
    url: str(r.url),
    message: str(r.message),
    cleanEdges: r.cleanEdges === true,
    keepShadow: r.keepShadow === true,
    width: typeof r.width === 'number' ? r.width : 0,
    height: typeof r.height === 'number' ? r.height : 0,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = encodeURIComponent;

/** Creating a product from the wizard's photo: generate builds now, else it is saved as a draft. */
export interface PhotoProductInput extends CutoutOptions {
  name: string;
  uploadId: string;
  generate: boolean;
  catalogId?: string;
}

function creditAware(err: ApiError): ApiError {
  if (err.status === 402) return { ...err, message: err.message || MSG_NO_CREDITS };
  return err;
}

export const addProductApi = configuratorApi.injectEndpoints({
  endpoints: (build) => ({
    /** The photo through the existing upload API (signed PUT, else content upload). */
    uploadProductPhoto: build.mutation<UploadedPhoto, File>({
      async queryFn(file, queryApi, extraOptions, baseQuery) {
        try {
          const up = await uploadPhoto(file, baseQuery as ApiBaseQuery, queryApi, extraOptions);
          if (!up.uploadId) return { error: { status: 'CUSTOM_ERROR', message: MSG_PROCESS_FAILED } };
          return { data: up };
        } catch (e) {
          const err = e instanceof UploadError ? e : new UploadError(MSG_PROCESS_FAILED);
          return { error: { status: err.status, message: err.message } };
        }
      },
    }),
    /**
     * Asks the worker's segmenter for the cutout with these options and waits for it: the
     * server answers at once when it is quick (200), else 202 and the same shape is polled.
     */
    makeCutout: build.mutation<Cutout, { uploadId: string } & CutoutOptions>({
      async queryFn({ uploadId, cleanEdges, keepShadow }, _api, _extra, baseQuery) {
        const url = `/uploads/${enc(uploadId)}/cutout`;
        let res = await baseQuery({ url, method: 'POST', body: { cleanEdges, keepShadow } });
        const deadline = Date.now() + CUTOUT_WAIT_MS;
        for (;;) {
          if (res.error) return { error: res.error as ApiError };
          const c = parseCutout(res.data);
          if (c.status === 'failed') return { error: { status: 'CUSTOM_ERROR', message: c.message || MSG_PROCESS_FAILED } as ApiError };
          if (c.status === 'ready') return { data: c };
          if (Date.now() > deadline) return { error: { status: 'CUSTOM_ERROR', message: MSG_PROCESS_FAILED } as ApiError };
          await sleep(CUTOUT_POLL_MS);
          res = await baseQuery({ url, params: { cleanEdges: String(cleanEdges), keepShadow: String(keepShadow) } });
        }
      },
    }),
    createPhotoProduct: build.mutation<ProductDetail, PhotoProductInput>({
      async queryFn(body, _api, _extra, baseQuery) {
        const res = await baseQuery({ url: '/products', method: 'POST', body });
        if (res.error) return { error: creditAware(res.error as ApiError) };
        return { data: parseProductDetail(res.data) };
      },
      invalidatesTags: [{ type: 'Product', id: 'LIST' }, { type: 'Catalog', id: 'LIST' }, 'Subscription', 'Dashboard', 'Search'],
    }),
    /** Builds a draft from its photo, or retries a failed build (one AI credit, as for jobs). */
    rebuildProduct: build.mutation<ProductDetail, string>({
      async queryFn(id, _api, _extra, baseQuery) {
        const res = await baseQuery({ url: `/products/${enc(id)}/rebuild`, method: 'POST' });
        if (res.error) return { error: creditAware(res.error as ApiError) };
        return { data: parseProductDetail(res.data) };
      },
      invalidatesTags: (_r, _e, id) => [{ type: 'Product', id }, { type: 'Product', id: 'LIST' }, 'Subscription', 'Dashboard'],
    }),
    /** The merchant's own .glb (or .gltf with its files) becomes the product's model. */
    uploadProductModel: build.mutation<ProductDetail, { productId: string; files: File[] }>({
      query: ({ productId, files }) => {
        const form = new FormData();
        for (const f of files) form.append('file', f, f.name);
        return { url: `/products/${enc(productId)}/model`, method: 'POST', body: form };
      },
      transformResponse: parseProductDetail,
      invalidatesTags: (_r, _e, a) => [{ type: 'Product', id: a.productId }, { type: 'Product', id: 'LIST' }, 'Checks'],
    }),
  }),
});

export const { useUploadProductPhotoMutation, useMakeCutoutMutation, useCreatePhotoProductMutation, useRebuildProductMutation, useUploadProductModelMutation } =
  addProductApi;
