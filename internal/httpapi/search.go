package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/workspace"
)

// searchWorkspace serves GET /api/search?q=: the caller's blueprints,
// products and galleries whose label contains q (prefix matches first).
func searchWorkspace(items *workspace.Reader) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		hits, err := items.Search(r.Context(), currentWorkspace(r), r.URL.Query().Get("q"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": hits})
		return nil
	}
}
