import type { ApiError } from '../../lib/api';
import { uploadPhoto, UploadError, type ApiBaseQuery } from '../../entities/creation/creation-api';
import { MSG_NO_CREDITS, MSG_PROCESS_FAILED } from '../../entities/creation/creation-rules';
import { parseProductDetail, type ProductDetail } from './product-rules';
import { configuratorApi } from './configurator-api';

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

/** An own model the server's worker is preparing (GET /api/products/{id}/model/{submissionId}). */
export interface ModelSubmission {
  id: string;
  productId: string;
  status: 'preparing' | 'ready' | 'failed';
  message: string;
}

/** What uploading an own model gave: the product with its new model, or a submission still preparing. */
export type ModelUploadResult = { product: ProductDetail; submission?: undefined } | { product?: undefined; submission: ModelSubmission };

/** How often a model being prepared is asked about, and for how long at most (the server's deadline is 2 min). */
export const MODEL_POLL_MS = 1000;
export const MODEL_WAIT_MS = 180_000;
export const MSG_MODEL_FAILED = 'This model could not be used.';
export const MSG_MODEL_SLOW = 'This model is taking unusually long to prepare. Reload the page in a few minutes to see it.';

/** A submission answer (it names its product and has a submission status), else null (a product). */
export function parseModelSubmission(raw: unknown): ModelSubmission | null {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.productId !== 'string' || (r.status !== 'preparing' && r.status !== 'ready' && r.status !== 'failed')) return null;
  const err = (r.error ?? {}) as Record<string, unknown>;
  return { id: str(r.id), productId: r.productId, status: r.status, message: str(err.message) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = encodeURIComponent;

/** Creating a product from the wizard's photo: generate builds now, else it is saved as a draft. */
export interface PhotoProductInput extends CutoutOptions {
  name: string;
  uploadId: string;
  generate: boolean;
  catalogId?: string;
  /** Further angles (the shared MoreAngles picker): uploaded, then sent as moreImages. */
  more?: { file: File; azimuth?: number }[];
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
      async queryFn({ more = [], ...input }, queryApi, extraOptions, baseQuery) {
        const moreImages: { imageURL: string; azimuth?: number }[] = [];
        try {
          for (const m of more) {
            const up = await uploadPhoto(m.file, baseQuery as ApiBaseQuery, queryApi, extraOptions);
            moreImages.push(m.azimuth === undefined ? { imageURL: up.url } : { imageURL: up.url, azimuth: m.azimuth });
          }
        } catch (e) {
          const err = e instanceof UploadError ? e : new UploadError(MSG_PROCESS_FAILED);
          return { error: { status: err.status, message: err.message } };
        }
        const body = moreImages.length ? { ...input, moreImages } : input;
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
    /**
     * The merchant's own .glb (or .gltf with its files): the server stores the files and its worker
     * prepares them. A quick model comes back as the product (200, or a 400 refusal); a slow one as
     * a submission still preparing (202), which waitProductModel follows.
     */
    uploadProductModel: build.mutation<ModelUploadResult, { productId: string; files: File[] }>({
      async queryFn({ productId, files }, _api, _extra, baseQuery) {
        const form = new FormData();
        for (const f of files) form.append('file', f, f.name);
        const res = await baseQuery({ url: `/products/${enc(productId)}/model`, method: 'POST', body: form });
        if (res.error) return { error: res.error as ApiError };
        const submission = parseModelSubmission(res.data);
        if (submission) return { data: { submission } };
        return { data: { product: parseProductDetail(res.data) } };
      },
      invalidatesTags: (r, _e, a) => (r?.product ? [{ type: 'Product', id: a.productId }, { type: 'Product', id: 'LIST' }, 'Checks'] : []),
    }),
    /** Polls a submission still being prepared; resolves with the product once its model is ready. */
    waitProductModel: build.mutation<ProductDetail, { productId: string; submissionId: string }>({
      async queryFn({ productId, submissionId }, _api, _extra, baseQuery) {
        const deadline = Date.now() + MODEL_WAIT_MS;
        for (;;) {
          await sleep(MODEL_POLL_MS);
          const res = await baseQuery({ url: `/products/${enc(productId)}/model/${enc(submissionId)}` });
          if (res.error) return { error: res.error as ApiError };
          const s = parseModelSubmission(res.data);
          if (s?.status === 'failed') return { error: { status: 'CUSTOM_ERROR', message: s.message || MSG_MODEL_FAILED } as ApiError };
          if (s?.status === 'ready') {
            const p = await baseQuery({ url: `/products/${enc(productId)}` });
            if (p.error) return { error: p.error as ApiError };
            return { data: parseProductDetail(p.data) };
          }
          if (Date.now() > deadline) return { error: { status: 'CUSTOM_ERROR', message: MSG_MODEL_SLOW } as ApiError };
        }
      },
      invalidatesTags: (_r, _e, a) => [{ type: 'Product', id: a.productId }, { type: 'Product', id: 'LIST' }, 'Checks'],
    }),
  }),
});

export const {
  useUploadProductPhotoMutation,
  useMakeCutoutMutation,
  useCreatePhotoProductMutation,
  useRebuildProductMutation,
  useUploadProductModelMutation,
  useWaitProductModelMutation,
} = addProductApi;
