import { api } from '../../lib/api';

export interface Notification {
  id: string;
  title: string;
  message: string;
  link: string | null;
  createdAt: string;
  readAt: string | null;
}
export interface NotificationList {
  items: Notification[];
  unreadCount: number;
}

/** How often the bell refreshes (ms). */
export const NOTIFICATION_POLL_MS = 30_000;

/** Workspace updates written by the worker (builds, published pages, leads, plan and usage alerts). */
export const notificationsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getNotifications: build.query<NotificationList, void>({
      query: () => ({ url: '/notifications' }),
      transformResponse: (raw: Partial<NotificationList> | null) => ({
        items: raw?.items ?? [],
        unreadCount: raw?.unreadCount ?? (raw?.items ?? []).filter((n) => !n.readAt).length,
      }),
      providesTags: ['Notifications'],
    }),
    markNotificationRead: build.mutation<unknown, string>({
      query: (id) => ({ url: `/notifications/${encodeURIComponent(id)}/read`, method: 'POST' }),
      invalidatesTags: ['Notifications'],
      async onQueryStarted(id, { dispatch, queryFulfilled }) {
        const patch = dispatch(
          notificationsApi.util.updateQueryData('getNotifications', undefined, (draft) => {
            const n = draft.items.find((i) => i.id === id);
            if (n && !n.readAt) {
              n.readAt = new Date().toISOString();
              draft.unreadCount = Math.max(0, draft.unreadCount - 1);
            }
          }),
        );
        queryFulfilled.catch(patch.undo);
      },
    }),
    markAllNotificationsRead: build.mutation<unknown, void>({
      query: () => ({ url: '/notifications/read-all', method: 'POST' }),
      invalidatesTags: ['Notifications'],
    }),
  }),
});

export const { useGetNotificationsQuery, useMarkNotificationReadMutation, useMarkAllNotificationsReadMutation } = notificationsApi;
