import { api } from '../../lib/api';

/** A key's permissions; the server decides which one each request needs. */
export type ApiKeyScope = 'read' | 'write' | 'publish';

/** The scopes in display order, with what each allows. */
export const API_KEY_SCOPES: { scope: ApiKeyScope; label: string; help: string }[] = [
  { scope: 'read', label: 'Read', help: 'List and download models, products, publications and analytics.' },
  { scope: 'write', label: 'Write', help: 'Upload photos, build models, create and edit products.' },
  { scope: 'publish', label: 'Publish', help: 'Make share links and product pages public, or take them down.' },
];

/** The longest key name the server accepts (apikey.MaxNameLen). */
export const MAX_API_KEY_NAME = 80;

/** A key as the server lists it: never the secret, only its first characters. */
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The answer to a creation: the one time the full key is shown. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

/** API keys on /workspace/settings ("API access"): create, list, revoke. */
export const apiKeysApi = api.enhanceEndpoints({ addTagTypes: ['ApiKeys'] }).injectEndpoints({
  endpoints: (build) => ({
    listApiKeys: build.query<{ items: ApiKey[]; maxActive: number }, void>({
      query: () => ({ url: '/api-keys' }),
      providesTags: ['ApiKeys'],
    }),
    createApiKey: build.mutation<CreatedApiKey, { name: string; scopes: ApiKeyScope[] }>({
      query: (body) => ({ url: '/api-keys', method: 'POST', body }),
      invalidatesTags: ['ApiKeys'],
    }),
    revokeApiKey: build.mutation<{ id: string; revoked: boolean }, string>({
      query: (id) => ({ url: `/api-keys/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['ApiKeys'],
    }),
  }),
});

export const { useListApiKeysQuery, useCreateApiKeyMutation, useRevokeApiKeyMutation } = apiKeysApi;
