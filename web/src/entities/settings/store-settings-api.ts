import { api } from '../../lib/api';

/** The merchant's store-wide settings (GET/PUT /api/settings/store). */
export interface StoreSettings {
  /** The currency a new price starts in; null until the merchant chooses one. */
  defaultCurrency: string | null;
}

/**
 * Store settings live in an entity, not in the Settings feature, because the configurator
 * (entities/product) reads the default currency for every new price (issue 29 item 20).
 */
export const storeSettingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getStoreSettings: build.query<StoreSettings, void>({
      query: () => ({ url: '/settings/store' }),
      providesTags: ['StoreSettings'],
    }),
    updateStoreSettings: build.mutation<StoreSettings, { defaultCurrency: string }>({
      query: (body) => ({ url: '/settings/store', method: 'PUT', body }),
      invalidatesTags: ['StoreSettings'],
    }),
  }),
});

export const { useGetStoreSettingsQuery, useUpdateStoreSettingsMutation } = storeSettingsApi;

/** The merchant's chosen default currency, or undefined while loading, on failure or when never chosen. */
export function useStoreDefaultCurrency(): string | undefined {
  const { data } = useGetStoreSettingsQuery();
  return data?.defaultCurrency ?? undefined;
}
