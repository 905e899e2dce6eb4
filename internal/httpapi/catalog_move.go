package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
)

type moveProductsRequest struct {
	ProductIDs []string `json:"productIds"`
}

type movedView struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	FromCatalogID   string `json:"fromCatalogId"`
	FromCatalogName string `json:"fromCatalogName"`
}

type moveProductsReply struct {
	Catalog catalogView `json:"catalog"`
	Moved   []movedView `json:"moved"`
}

// moveIntoCatalog serves POST /api/catalogs/{id}/products {productIds}: the
// catalog page's "Add products" picker moves several products here in one
// go and says which catalog each one left (a product is in one catalog).
func moveIntoCatalog(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req moveProductsRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		c, moved, err := s.MoveProducts(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), req.ProductIDs)
		if err != nil {
			return err
		}
		out := moveProductsReply{Catalog: newCatalogView(c), Moved: make([]movedView, 0, len(moved))}
		for _, m := range moved {
			out.Moved = append(out.Moved, movedView{ID: m.ProductID, Name: m.Name, FromCatalogID: m.FromCatalogID, FromCatalogName: m.FromCatalogName})
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	}
}
