import { api } from '../../lib/api';
import { parseBlueprintPage, parseBlueprints, type Blueprint, type BlueprintPage } from './blueprint-rules';

/** POST /api/publications answer. */
export interface ShareLinks {
  shareURL: string;
  embedCode: string | null;
  qrURL: string | null;
}

/** The merchant's blueprints: list, rename, delete, and a share link for one. */
export const blueprintsApi = api.enhanceEndpoints({ addTagTypes: ['Blueprint', 'Job'] }).injectEndpoints({
  endpoints: (build) => ({
    getBlueprints: build.query<Blueprint[], void>({
      query: () => ({ url: '/blueprints' }),
      transformResponse: parseBlueprints,
      providesTags: (list) => [{ type: 'Blueprint' as const, id: 'LIST' }, ...(list ?? []).map((b) => ({ type: 'Blueprint' as const, id: b.id }))],
    }),
    /** My Blueprints, newest first, one page at a time through the server's cursor ("Load more"). */
    getBlueprintPages: build.infiniteQuery<BlueprintPage, void, string | null>({
      infiniteQueryOptions: {
        initialPageParam: null,
        getNextPageParam: (last) => last.nextCursor ?? undefined,
      },
      query: ({ pageParam }) => ({ url: pageParam ? `/blueprints?cursor=${encodeURIComponent(pageParam)}` : '/blueprints' }),
      transformResponse: parseBlueprintPage,
      providesTags: (data) => [
        { type: 'Blueprint' as const, id: 'LIST' },
        ...(data?.pages ?? []).flatMap((p) => p.items.map((b) => ({ type: 'Blueprint' as const, id: b.id }))),
      ],
    }),
    renameBlueprint: build.mutation<unknown, { id: string; name: string }>({
      query: ({ id, name }) => ({ url: `/blueprints/${encodeURIComponent(id)}`, method: 'PATCH', body: { name } }),
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Blueprint', id }, { type: 'Blueprint', id: 'LIST' }, 'Dashboard', 'Search'],
    }),
    deleteBlueprint: build.mutation<unknown, string>({
      query: (id) => ({ url: `/blueprints/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'Blueprint', id: 'LIST' }, 'Dashboard', 'Search'],
    }),
    /** The blueprint's model address, from its job, when the list item carries none. */
    getBlueprintModel: build.query<{ modelURL: string | null }, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}` }),
      transformResponse: (raw: unknown) => {
        const m = (raw as { modelURL?: unknown } | null)?.modelURL;
        return { modelURL: typeof m === 'string' && m ? m : null };
      },
      providesTags: (_r, _e, jobId) => [{ type: 'Job', id: jobId }],
    }),
    /** Publishes the blueprint (idempotent on the server) and returns its links. */
    shareBlueprint: build.mutation<ShareLinks, { blueprintId: string }>({
      query: (body) => ({ url: '/publications', method: 'POST', body }),
      transformResponse: (raw: unknown) => {
        const r = (raw ?? {}) as Record<string, unknown>;
        return {
          shareURL: typeof r.shareURL === 'string' ? r.shareURL : '',
          embedCode: typeof r.embedCode === 'string' ? r.embedCode : null,
          qrURL: typeof r.qrURL === 'string' ? r.qrURL : null,
        };
      },
    }),
  }),
});

export const { useGetBlueprintsQuery, useGetBlueprintPagesInfiniteQuery, useLazyGetBlueprintModelQuery, useRenameBlueprintMutation, useDeleteBlueprintMutation, useShareBlueprintMutation } = blueprintsApi;
