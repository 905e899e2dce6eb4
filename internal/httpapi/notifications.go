package httpapi

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/notify"
)

var errBadLimit = fault.Invalidf("invalid_limit", "limit must be a whole number from 1 to %d.", notify.MaxLimit)

// listNotifications serves GET /api/notifications: the caller's newest
// workspace updates (?limit=, default 50) and their unread count.
func listNotifications(s *notify.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		limit := 0
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > notify.MaxLimit {
				return errBadLimit
			}
			limit = n
		}
		list, err := s.List(r.Context(), notificationReader(r), limit)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, list)
		return nil
	}
}

// markNotificationRead serves POST /api/notifications/{id}/read and answers
// with the notification; someone else's id is a 404 like a missing one.
func markNotificationRead(s *notify.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		n, err := s.MarkRead(r.Context(), notificationReader(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, n)
		return nil
	}
}

// markAllNotificationsRead serves POST /api/notifications/read-all.
func markAllNotificationsRead(s *notify.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.MarkAllRead(r.Context(), notificationReader(r)); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]int{"unreadCount": 0})
		return nil
	}
}

// notificationReader reads the workspace's notifications with the person's
// own read marks.
func notificationReader(r *http.Request) notify.Reader {
	return notify.Reader{WorkspaceID: currentWorkspace(r), PersonID: currentPerson(r)}
}
