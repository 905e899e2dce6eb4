package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
)

// catalogView is one catalog (spec §3: id, name, description, productCount,
// isDefault, createdAt, updatedAt).
type catalogView struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	ProductCount int       `json:"productCount"`
	IsDefault    bool      `json:"isDefault"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func newCatalogView(c catalog.Catalog) catalogView {
	return catalogView{ID: c.ID, Name: c.Name, Description: c.Description, ProductCount: c.ProductCount,
		IsDefault: c.IsDefault, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

type catalogList struct {
	Items         []catalogView `json:"items"`
	TotalCatalogs int           `json:"totalCatalogs"`
	TotalProducts int           `json:"totalProducts"`
}

// listCatalogs serves GET /api/catalogs: default first, then newest.
func listCatalogs(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		cs, products, err := s.Catalogs(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		out := catalogList{Items: make([]catalogView, 0, len(cs)), TotalCatalogs: len(cs), TotalProducts: products}
		for _, c := range cs {
			out.Items = append(out.Items, newCatalogView(c))
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

type catalogRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// createCatalog serves POST /api/catalogs {name, description?}.
func createCatalog(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req catalogRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		c, err := s.CreateCatalog(r.Context(), currentWorkspace(r), deref(req.Name), deref(req.Description))
		if err != nil {
			return err
		}
		w.Header().Set("Location", "/api/catalogs/"+c.ID)
		WriteJSON(w, http.StatusCreated, newCatalogView(c))
		return nil
	}
}

// getCatalog serves GET /api/catalogs/{id}.
func getCatalog(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.Catalog(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, newCatalogView(c))
		return nil
	}
}

// patchCatalog serves PATCH /api/catalogs/{id} {name?, description?}.
func patchCatalog(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req catalogRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		c, err := s.UpdateCatalog(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), req.Name, req.Description)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, newCatalogView(c))
		return nil
	}
}

// deleteCatalog serves DELETE /api/catalogs/{id}; its products move to the
// default catalog; the default catalog itself answers 409.
func deleteCatalog(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := s.DeleteCatalog(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
		return nil
	}
}

// catalogProducts serves GET /api/catalogs/{id}/products with the same
// parameters and answer as GET /api/products.
func catalogProducts(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := catalog.ParseListParams(r.URL.Query())
		if err != nil {
			return err
		}
		ps, total, err := s.CatalogProducts(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), p)
		if err != nil {
			return err
		}
		return writeProductPage(w, r, s, p, ps, total)
	}
}
