import { api } from '../../lib/api';

/** "Generate with AI" (POST /api/products/{id}/describe): a description to review; nothing is saved. */
export const describeApi = api.injectEndpoints({
  endpoints: (build) => ({
    describeProduct: build.mutation<string, string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}/describe`, method: 'POST' }),
      transformResponse: (raw: unknown) => {
        const d = (raw as { description?: unknown } | null)?.description;
        return typeof d === 'string' ? d : '';
      },
    }),
  }),
});

export const { useDescribeProductMutation } = describeApi;
