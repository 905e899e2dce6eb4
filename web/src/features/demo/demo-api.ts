import { api } from '../../lib/api';

/** One bundled sample: a folder under web/public/demo/ holding a mesh and its reference image. */
export interface DemoSample {
  id: string;
  name: string;
  meshUrl: string;
  imageUrl: string;
}

/**
 * Index of the samples, written with them by `worker samples` (internal/samples: procedural
 * models and software-rendered reference images) and committed under web/public/demo/.
 */
export const DEMO_INDEX_URL = '/demo/index.json';

/** Display name: folder id with dashes and underscores turned into spaced title case. */
export function demoDisplayName(id: string): string {
  return id
    .split(/[-_]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** The sample selected first: the one named bed, else the first. */
export function defaultSample(samples: DemoSample[]): DemoSample | undefined {
  return samples.find((s) => s.id === 'bed') ?? samples[0];
}

/** Keeps only well-formed entries; anything else (missing file, HTML fallback) is no samples. */
export function parseDemoIndex(raw: unknown): DemoSample[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object' && typeof (s as { id?: unknown }).id === 'string')
    .filter((s) => typeof s.meshUrl === 'string' && typeof s.imageUrl === 'string')
    .map((s) => ({
      id: s.id as string,
      name: typeof s.name === 'string' && s.name ? s.name : demoDisplayName(s.id as string),
      meshUrl: s.meshUrl as string,
      imageUrl: s.imageUrl as string,
    }));
}

/** Demo samples as a static file, read through the same API layer. */
export const demoApi = api.injectEndpoints({
  endpoints: (build) => ({
    getDemoSamples: build.query<DemoSample[], void>({
      async queryFn(_arg, _api, _extra, baseQuery) {
        const res = await baseQuery({ url: DEMO_INDEX_URL, absolute: true });
        if (res.error) {
          if (res.error.status === 404 || res.error.status === 'PARSE_ERROR') return { data: [] };
          return { error: res.error };
        }
        return { data: parseDemoIndex(res.data) };
      },
      providesTags: ['Demo'],
    }),
  }),
});

export const { useGetDemoSamplesQuery } = demoApi;
