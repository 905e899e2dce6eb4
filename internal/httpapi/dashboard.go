package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/dashboard"
)

// getDashboard serves GET /api/dashboard: recent items, top products and
// insights, all from the caller's real data.
func getDashboard(s *dashboard.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := s.Get(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, d)
		return nil
	}
}
