import { api } from '../../lib/api';

/** One channel file of a product and its size against the channel's budget (GET /api/products/{id}/channels). */
export interface ChannelAsset {
  channel: 'web' | 'commerce' | 'quick-look';
  label: string;
  variantId: string;
  format: 'glb' | 'usdz';
  bytes: number;
  warnBytes: number;
  maxBytes: number;
  status: 'green' | 'amber' | 'red';
  /**
   * ready; pending: the server's worker has not made the file yet (large models take a minute or
   * more); refused: it cannot be made within the channel's budget, and `reason` says why.
   */
  state: 'ready' | 'pending' | 'refused';
  reason: string;
  notes: string[];
  source: string;
}

const STATUSES = ['green', 'amber', 'red'] as const;

/** Reads the server's answer defensively: unknown fields are dropped, bad ones defaulted. */
export function parseChannels(raw: unknown): ChannelAsset[] {
  const r = (raw ?? {}) as { assets?: unknown };
  if (!Array.isArray(r.assets)) return [];
  return r.assets.map((x) => {
    const a = (x ?? {}) as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      channel: a.channel === 'commerce' || a.channel === 'quick-look' ? a.channel : 'web',
      label: str(a.label),
      variantId: str(a.variantId),
      format: a.format === 'usdz' ? 'usdz' : 'glb',
      bytes: num(a.bytes),
      warnBytes: num(a.warnBytes),
      maxBytes: num(a.maxBytes),
      status: STATUSES.find((s) => s === a.status) ?? 'red',
      state: a.state === 'pending' || a.state === 'refused' ? a.state : 'ready',
      reason: str(a.reason),
      notes: Array.isArray(a.notes) ? a.notes.filter((n): n is string => typeof n === 'string') : [],
      source: str(a.source),
    };
  });
}

/** "1.4 MB", "812 KB": what the panel shows for sizes and budgets. */
export function formatSize(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1).replace(/\.0$/, '')} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export const channelsApi = api.enhanceEndpoints({ addTagTypes: ['Product'] }).injectEndpoints({
  endpoints: (build) => ({
    productChannels: build.query<ChannelAsset[], string>({
      query: (id) => ({ url: `/products/${encodeURIComponent(id)}/channels` }),
      transformResponse: parseChannels,
      // A new model or configuration (tag Product/{id}) means new channel files.
      providesTags: (_r, _e, id) => [{ type: 'Product', id }],
    }),
  }),
});

export const { useProductChannelsQuery } = channelsApi;

/** Settings → Channels: the merchant's Google Merchant Center feed URL and its rotation. */
export const feedApi = api.enhanceEndpoints({ addTagTypes: ['GoogleFeed'] }).injectEndpoints({
  endpoints: (build) => ({
    googleFeed: build.query<string, void>({
      query: () => ({ url: '/channels/google-feed' }),
      transformResponse: (raw: unknown) => String((raw as { url?: unknown } | null)?.url ?? ''),
      providesTags: ['GoogleFeed'],
    }),
    rotateGoogleFeed: build.mutation<string, void>({
      query: () => ({ url: '/channels/google-feed/rotate', method: 'POST' }),
      transformResponse: (raw: unknown) => String((raw as { url?: unknown } | null)?.url ?? ''),
      invalidatesTags: ['GoogleFeed'],
    }),
  }),
});

export const { useGoogleFeedQuery, useRotateGoogleFeedMutation } = feedApi;

/** The merchant's Shopify connection (the token is never returned). */
export interface ShopifyConnection {
  shop: string;
  connected: boolean;
}

export interface ShopifyProduct {
  id: string;
  title: string;
}

export interface ShopifySent {
  shopifyProductId: string;
  media: { id: string; mediaContentType: string }[];
  replaced: number;
}

export const shopifyApi = api.enhanceEndpoints({ addTagTypes: ['Shopify'] }).injectEndpoints({
  endpoints: (build) => ({
    shopifyConnection: build.query<ShopifyConnection, void>({
      query: () => ({ url: '/channels/shopify' }),
      transformResponse: (raw: unknown) => {
        const r = (raw ?? {}) as Record<string, unknown>;
        return { shop: typeof r.shop === 'string' ? r.shop : '', connected: r.connected === true };
      },
      providesTags: ['Shopify'],
    }),
    connectShopify: build.mutation<ShopifyConnection, { shop: string; token: string }>({
      query: (body) => ({ url: '/channels/shopify', method: 'PUT', body }),
      invalidatesTags: ['Shopify'],
    }),
    disconnectShopify: build.mutation<unknown, void>({
      query: () => ({ url: '/channels/shopify', method: 'DELETE' }),
      invalidatesTags: ['Shopify'],
    }),
    searchShopifyProducts: build.query<ShopifyProduct[], string>({
      query: (q) => ({ url: '/channels/shopify/products', params: { query: q } }),
      transformResponse: (raw: unknown) => {
        const items = (raw as { items?: unknown } | null)?.items;
        return Array.isArray(items)
          ? items.filter((i): i is ShopifyProduct => typeof i?.id === 'string' && typeof i?.title === 'string')
          : [];
      },
    }),
    sendToShopify: build.mutation<ShopifySent, { productId: string; shopifyProductId: string }>({
      query: ({ productId, shopifyProductId }) => ({ url: `/products/${encodeURIComponent(productId)}/channels/shopify`, method: 'POST', body: { shopifyProductId } }),
    }),
  }),
});

export const {
  useShopifyConnectionQuery,
  useConnectShopifyMutation,
  useDisconnectShopifyMutation,
  useLazySearchShopifyProductsQuery,
  useSendToShopifyMutation,
} = shopifyApi;
