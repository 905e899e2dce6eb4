import type { BaseQueryFn } from '@reduxjs/toolkit/query';
import { api, type ApiArgs, type ApiError } from '../../lib/api';
import { currentToken } from '../../lib/auth-storage';
import {
  contentTypeOf,
  directUploadFailed,
  mayFallBack,
  MSG_NO_CREDITS,
  MSG_NO_IMAGE_URL,
  MSG_PROCESS_FAILED,
  type JobStatus,
} from './creation-rules';
import { parseFidelity, parseWarnings } from './fidelity';

/** One configurable component of a finished model, as the worker found it. */
export interface JobPart {
  id: string;
  name: string;
  color?: string;
  share?: number;
}

/** One turn of a spin set: how many photos, from which camera height (degrees above level). */
export interface SpinRing {
  photos: number;
  elevation: number;
}

/** A spin build's layout as a job reports it. */
export interface SpinLayout {
  rings: SpinRing[];
  videos?: number;
}

/** A reconstruction job as GET /api/jobs/{id} reports it. */
export interface Job {
  id: string;
  status: JobStatus;
  progress: number;
  step: string | null;
  imageURL: string | null;
  modelURL: string | null;
  thumbnailURL: string | null;
  assetId: string | null;
  parts: JobPart[];
  stats: Record<string, unknown> | null;
  /** Mesh fidelity 0–100 (how well the model re-renders as the photo), null when none. */
  fidelity: number | null;
  /** How many photos the build uses (1, 2–8 with further angles, 8–72 for a spin set). */
  views: number;
  /**
   * The rings of a spin-set build (turntable capture), null for the other builds; `videos` is
   * how many turntable videos it was cut from (each gives one ring of 12 frames), absent for photos.
   */
  spin: SpinLayout | null;
  error: string | null;
  /**
   * Whether Retry may start a failed build again from the same photos: false when the builder
   * refused the photos themselves (a retry would be refused the same way, and the server answers 409).
   */
  retryable: boolean;
  /**
   * The builder's sentences about a model it built but doubts (the product runs off an edge of
   * its photo, so the model stops at the frame), shown beside the model; empty when all is well.
   */
  warnings: string[];
  name?: string | null;
}

/** POST /api/uploads answer: where to PUT the bytes and where they will be readable. */
interface UploadTicket {
  uploadId?: string;
  uploadURL?: string;
  publicURL?: string;
}

export type ApiBaseQuery = BaseQueryFn<ApiArgs | string, unknown, ApiError>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);

/** Normalises a job answer so screens never meet undefined arrays or NaN progress. */
export function parseJob(raw: unknown): Job {
  const j = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const parts = Array.isArray(j.parts) ? j.parts : [];
  return {
    id: String(j.id ?? ''),
    status: (['queued', 'processing', 'completed', 'failed'].includes(String(j.status)) ? j.status : 'queued') as JobStatus,
    progress: typeof j.progress === 'number' && Number.isFinite(j.progress) ? j.progress : 0,
    step: str(j.step),
    imageURL: str(j.imageURL),
    modelURL: str(j.modelURL),
    thumbnailURL: str(j.thumbnailURL),
    assetId: str(j.assetId),
    parts: parts
      .filter((p): p is Record<string, unknown> => !!p && typeof p === 'object' && typeof (p as { name?: unknown }).name === 'string')
      .map((p, i) => ({
        id: typeof p.id === 'string' ? p.id : `part-${i + 1}`,
        name: p.name as string,
        color: typeof p.color === 'string' ? p.color : undefined,
        share: typeof p.share === 'number' ? p.share : undefined,
      })),
    stats: j.stats && typeof j.stats === 'object' ? (j.stats as Record<string, unknown>) : null,
    fidelity: parseFidelity(j.fidelity),
    views: typeof j.views === 'number' && Number.isInteger(j.views) && j.views >= 1 ? j.views : 1,
    spin: parseSpin(j.spin),
    error: str(j.error) ?? str((j.error as { message?: unknown } | null)?.message),
    retryable: j.retryable !== false,
    warnings: parseWarnings(j.warnings),
    name: str(j.name),
  };
}

/** The spin field of a job answer: its rings when well formed (and its video count when cut from videos), else null. */
export function parseSpin(raw: unknown): SpinLayout | null {
  const rings = (raw as { rings?: unknown } | null)?.rings;
  if (!Array.isArray(rings) || rings.length === 0) return null;
  const ok = rings.every(
    (r) => r && typeof r === 'object' && typeof (r as SpinRing).photos === 'number' && typeof (r as SpinRing).elevation === 'number',
  );
  if (!ok) return null;
  const out: SpinLayout = { rings: rings.map((r: SpinRing) => ({ photos: r.photos, elevation: r.elevation })) };
  const videos = (raw as { videos?: unknown }).videos;
  if (typeof videos === 'number' && Number.isInteger(videos) && videos >= 1) out.videos = videos;
  return out;
}

/** Thrown inside the upload chain; carries what the user should read. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: ApiError['status'] = 'CUSTOM_ERROR',
    readonly fromServer = false,
  ) {
    super(message);
  }
}

/**
 * PUT to the signed URL; the stored object's address comes back in Location, and the
 * body's previewURL is a signed GET URL an <img> can show (the address needs the token).
 */
async function putSigned(ticket: UploadTicket, file: File, contentType: string): Promise<{ url: string; previewURL: string }> {
  if (!ticket.uploadURL) throw new UploadError(MSG_PROCESS_FAILED);
  const headers = new Headers({ 'Content-Type': contentType });
  // Our own blob endpoint sits on this origin; a cloud bucket's signed URL needs no token.
  const sameOrigin = new URL(ticket.uploadURL, window.location.href).origin === window.location.origin;
  const token = sameOrigin ? currentToken() : null;
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(ticket.uploadURL, { method: 'PUT', body: file, headers });
  } catch {
    throw new UploadError(MSG_PROCESS_FAILED, 'FETCH_ERROR');
  }
  if (!res.ok) {
    // Our file store explains a refusal in the usual envelope; a cloud bucket does not.
    const said = await res
      .json()
      .then((b: { error?: { message?: unknown } }) => (typeof b?.error?.message === 'string' ? b.error.message : null))
      .catch(() => null);
    throw new UploadError(said || directUploadFailed(res.status), res.status, !!said);
  }
  const url = res.headers.get('Location') ?? ticket.publicURL;
  if (!url) throw new UploadError(MSG_NO_IMAGE_URL);
  const body = (await res.json().catch(() => null)) as { data?: { previewURL?: unknown } } | null;
  return { url, previewURL: str(body?.data?.previewURL) ?? '' };
}

/**
 * Uploads the photo and returns its image URL: the signed-URL PUT first, and the
 * multipart content upload when that fails for a network error or a 5xx (spec §7;
 * see mayFallBack).
 */
export async function uploadImage(file: File, baseQuery: ApiBaseQuery, extra: Parameters<ApiBaseQuery>[1], extraOptions = {}): Promise<string> {
  return (await uploadPhoto(file, baseQuery, extra, extraOptions)).url;
}

/** The same upload, also answering the upload's id (the wizard's cutout and product take it). */
export async function uploadPhoto(
  file: File,
  baseQuery: ApiBaseQuery,
  extra: Parameters<ApiBaseQuery>[1],
  extraOptions = {},
): Promise<{ url: string; uploadId: string; previewURL: string }> {
  return uploadFile(file, contentTypeOf(file), baseQuery, extra, extraOptions);
}

/**
 * Any file through the upload flow under the content type given: the ticket is asked for that
 * type (the server sizes the slot by it: 10 MB for a photo, 150 MB for a video), the PUT sends
 * it, and the fallback's multipart part carries it too when the browser named none (a .mov from
 * some platforms comes with an empty type).
 */
async function uploadFile(
  file: File,
  contentType: string,
  baseQuery: ApiBaseQuery,
  extra: Parameters<ApiBaseQuery>[1],
  extraOptions = {},
): Promise<{ url: string; uploadId: string; previewURL: string }> {
  let directError: UploadError | null = null;
  try {
    const res = await baseQuery({ url: '/uploads', method: 'POST', body: { filename: file.name, contentType, size: file.size } }, extra, extraOptions);
    if (res.error) throw new UploadError(res.error.message || MSG_PROCESS_FAILED, res.error.status, !!res.error.message);
    const ticket = (res.data ?? {}) as UploadTicket;
    return { ...(await putSigned(ticket, file, contentType)), uploadId: ticket.uploadId ?? '' };
  } catch (e) {
    directError = e instanceof UploadError ? e : new UploadError(MSG_PROCESS_FAILED);
    if (!mayFallBack(directError.status)) throw directError;
  }
  const form = new FormData();
  form.append('file', file.type ? file : new File([file], file.name, { type: contentType }), file.name);
  const res = await baseQuery({ url: '/uploads/content', method: 'POST', body: form }, extra, extraOptions);
  if (res.error) {
    // Prefer what the fallback server said; else what went wrong with the direct upload.
    if (res.error.message) throw new UploadError(res.error.message, res.error.status, true);
    throw directError;
  }
  const d = (res.data ?? {}) as Record<string, unknown>;
  const url = str(d.imageURL) ?? str(d.url) ?? str(d.publicURL);
  if (!url) throw new UploadError(MSG_NO_IMAGE_URL);
  return { url, uploadId: str(d.uploadId) ?? '', previewURL: str(d.previewURL) ?? '' };
}

/** An upload failure as a mutation's error: what the user should read, with the status. */
function uploadFailure(e: unknown): { error: ApiError } {
  const err = e instanceof UploadError ? e : new UploadError(MSG_PROCESS_FAILED);
  return { error: { status: err.status, message: err.message } as ApiError };
}

/**
 * POST /api/jobs with a build's body, for every way of starting one (a photo, a spin set, spin
 * videos): the new job's id, or the server's refusal with its message (402 says the credits ran
 * out when the server gave no words of its own).
 */
async function postJob(
  body: unknown,
  baseQuery: ApiBaseQuery,
  extra: Parameters<ApiBaseQuery>[1],
  extraOptions = {},
): Promise<{ data: { jobId: string } } | { error: ApiError }> {
  const res = await baseQuery({ url: '/jobs', method: 'POST', body }, extra, extraOptions);
  if (res.error) {
    const err = res.error as ApiError;
    return { error: { ...err, message: err.message || (err.status === 402 ? MSG_NO_CREDITS : MSG_PROCESS_FAILED) } };
  }
  const id = str((res.data as { id?: unknown } | undefined)?.id);
  if (!id) return { error: { status: 'CUSTOM_ERROR', message: MSG_PROCESS_FAILED } as ApiError };
  return { data: { jobId: id } };
}

/** Upload, reconstruction jobs and their polling. */
export const creationApi = api.enhanceEndpoints({ addTagTypes: ['Job', 'Blueprint'] }).injectEndpoints({
  endpoints: (build) => ({
    getJob: build.query<Job, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}` }),
      transformResponse: parseJob,
      providesTags: (_r, _e, id) => [{ type: 'Job', id }],
    }),
    /** Median queue-to-done seconds of recent builds on this server (null before the first). */
    getTypicalDuration: build.query<{ medianSeconds: number | null; samples: number }, void>({
      query: () => ({ url: '/jobs/typical-duration' }),
    }),
    /** Photo in, job id out: upload (signed URL, else content upload), then POST /jobs. */
    startBlueprint: build.mutation<{ jobId: string }, File | { file: File; more: { file: File; azimuth?: number }[] }>({
      async queryFn(arg, queryApi, extraOptions, baseQuery) {
        const { file, more } = arg instanceof File ? { file: arg, more: [] } : arg;
        let imageURL: string;
        const moreImages: { imageURL: string; azimuth?: number }[] = [];
        try {
          imageURL = await uploadImage(file, baseQuery as ApiBaseQuery, queryApi, extraOptions);
          for (const m of more) {
            const url = await uploadImage(m.file, baseQuery as ApiBaseQuery, queryApi, extraOptions);
            moreImages.push(m.azimuth === undefined ? { imageURL: url } : { imageURL: url, azimuth: m.azimuth });
          }
        } catch (e) {
          return uploadFailure(e);
        }
        const body = moreImages.length ? { imageURL, moreImages } : { imageURL };
        return postJob(body, baseQuery as ApiBaseQuery, queryApi, extraOptions);
      },
      // A new blueprint appears, a credit is reserved, the dashboard's recent list changes.
      invalidatesTags: ['Blueprint', 'Subscription', 'Dashboard'],
    }),
    /**
     * One photo of a spin set through the upload page's flow (signed URL, else content upload):
     * the spin page sends them one by one, shows the count, and keeps each answer so a retry
     * after a failure sends only the photos not yet stored.
     */
    uploadSpinPhoto: build.mutation<{ url: string }, File>({
      async queryFn(file, queryApi, extraOptions, baseQuery) {
        try {
          const { url } = await uploadPhoto(file, baseQuery as ApiBaseQuery, queryApi, extraOptions);
          return { data: { url } };
        } catch (e) {
          return uploadFailure(e);
        }
      },
    }),
    /**
     * One turntable video through the same flow, sent as the video it is (the server gives a
     * video's slot 150 MB and refuses, with its own words, one too large, of another type, or
     * one it cannot read). `contentType` is the page's reading of the file (see videoContentTypeOf).
     */
    uploadSpinVideo: build.mutation<{ url: string }, { file: File; contentType: string }>({
      async queryFn({ file, contentType }, queryApi, extraOptions, baseQuery) {
        try {
          const { url } = await uploadFile(file, contentType, baseQuery as ApiBaseQuery, queryApi, extraOptions);
          return { data: { url } };
        } catch (e) {
          return uploadFailure(e);
        }
      },
    }),
    /** Uploaded spin-set photos, in shooting order ring after ring, become one build (issue 48 §5). */
    startSpinSet: build.mutation<{ jobId: string }, { rings: SpinRing[]; imageURLs: string[] }>({
      queryFn({ rings, imageURLs }, queryApi, extraOptions, baseQuery) {
        const body = { spinSet: { rings: rings.map((r) => ({ photos: r.photos, elevation: r.elevation })), imageURLs } };
        return postJob(body, baseQuery as ApiBaseQuery, queryApi, extraOptions);
      },
      invalidatesTags: ['Blueprint', 'Subscription', 'Dashboard'],
    }),
    /**
     * Uploaded turntable videos, lowest camera first, become one build (issue 48): the server
     * cuts 12 frames from each, one ring per video, and charges for those frames.
     */
    startSpinVideos: build.mutation<{ jobId: string }, { videoURLs: string[] }>({
      queryFn({ videoURLs }, queryApi, extraOptions, baseQuery) {
        return postJob({ spinSet: { videoURLs } }, baseQuery as ApiBaseQuery, queryApi, extraOptions);
      },
      invalidatesTags: ['Blueprint', 'Subscription', 'Dashboard'],
    }),
    /** A new attempt at a failed build from the same photo; answers the new job's id. */
    retryJob: build.mutation<{ jobId: string }, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/retry`, method: 'POST' }),
      transformResponse: (raw: unknown) => ({ jobId: parseJob(raw).id }),
      // The failed blueprint is replaced by the new one, and a credit is held again.
      invalidatesTags: (_r, _e, id) => [{ type: 'Job', id }, 'Blueprint', 'Subscription', 'Dashboard'],
    }),
  }),
});

export const {
  useGetJobQuery,
  useStartBlueprintMutation,
  useRetryJobMutation,
  useGetTypicalDurationQuery,
  useUploadSpinPhotoMutation,
  useUploadSpinVideoMutation,
  useStartSpinSetMutation,
  useStartSpinVideosMutation,
} = creationApi;
