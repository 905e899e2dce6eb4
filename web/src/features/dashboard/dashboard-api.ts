import { api } from '../../lib/api';

export type RecentStatus = 'ready' | 'processing' | 'error' | 'draft';
export type RecentType = 'blueprint' | 'product' | 'gallery';

export interface RecentItem {
  id: string;
  type: RecentType;
  label: string;
  status: RecentStatus;
  updatedAt: string;
  path: string;
}
export interface TopProduct {
  id: string;
  label: string;
  metric: string;
  path: string;
}
export interface Insight {
  id: string;
  title: string;
  message: string;
  path: string | null;
}
export interface Dashboard {
  recent: RecentItem[];
  topProducts: TopProduct[];
  insights: Insight[];
}

/** The signed-in merchant's dashboard read model. */
export const dashboardApi = api.injectEndpoints({
  endpoints: (build) => ({
    getDashboard: build.query<Dashboard, void>({
      query: () => ({ url: '/dashboard' }),
      transformResponse: (raw: Partial<Dashboard> | null) => ({
        recent: raw?.recent ?? [],
        topProducts: raw?.topProducts ?? [],
        insights: raw?.insights ?? [],
      }),
      providesTags: ['Dashboard'],
    }),
  }),
});

export const { useGetDashboardQuery } = dashboardApi;
