import { api } from '../../lib/api';

/** The events a merchant can subscribe to (webhook.EventTypes on the server). */
export const WEBHOOK_EVENTS = [
  { type: 'job.completed', label: 'A 3D model is ready' },
  { type: 'job.failed', label: 'A 3D build failed' },
  { type: 'product.published', label: 'A product page is published' },
  { type: 'publication.views_low', label: 'Public views under 10 %' },
  { type: 'lead.captured', label: 'A shopper left an email' },
] as const;

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

/**
 * The answer to a registration: the only time the signing secret is shown.
 * A retry with the same Idempotency-Key answers `secret: null` and a note.
 */
export interface CreatedWebhook extends Webhook {
  secret: string | null;
  secretNote?: string;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string;
  firstAttemptAt: string | null;
  lastAttemptAt: string | null;
  nextRetryAt: string | null;
  finishedAt: string | null;
  createdAt: string;
}

export interface NewWebhook {
  url: string;
  events: string[];
  secret?: string;
}

const hooksApi = api.enhanceEndpoints({ addTagTypes: ['Webhooks', 'WebhookDeliveries'] });

/** Webhook endpoints and their delivery logs (Settings → Webhooks). */
export const webhooksApi = hooksApi.injectEndpoints({
  endpoints: (build) => ({
    listWebhooks: build.query<Webhook[], void>({
      query: () => ({ url: '/webhooks' }),
      transformResponse: (data: { items: Webhook[] }) => data.items,
      providesTags: ['Webhooks'],
    }),
    createWebhook: build.mutation<CreatedWebhook, NewWebhook>({
      query: (body) => ({ url: '/webhooks', method: 'POST', body }),
      invalidatesTags: ['Webhooks'],
    }),
    deleteWebhook: build.mutation<{ deleted: boolean }, string>({
      query: (id) => ({ url: `/webhooks/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Webhooks'],
    }),
    testWebhook: build.mutation<WebhookDelivery, string>({
      query: (id) => ({ url: `/webhooks/${encodeURIComponent(id)}/test`, method: 'POST' }),
      invalidatesTags: (_r, _e, id) => [{ type: 'WebhookDeliveries', id }],
    }),
    webhookDeliveries: build.query<WebhookDelivery[], string>({
      query: (id) => ({ url: `/webhooks/${encodeURIComponent(id)}/deliveries`, params: { limit: 20 } }),
      transformResponse: (data: { items: WebhookDelivery[] }) => data.items,
      providesTags: (_r, _e, id) => [{ type: 'WebhookDeliveries', id }],
    }),
  }),
});

export const {
  useListWebhooksQuery,
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useTestWebhookMutation,
  useWebhookDeliveriesQuery,
} = webhooksApi;
