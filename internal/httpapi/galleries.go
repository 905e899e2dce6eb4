package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/publish"
)

// galleryView is one gallery card: status derived from its products (error
// if any failed, processing if any builds, else ready), the cover image from
// the cover product's thumbnail (else the first product's), the gallery's own
// tags, its tile colour and the colour drawn over it (spec §3 Gallery), and
// how many products it holds and how many of them have a 3D model.
type galleryView struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Description      string    `json:"description"`
	Status           string    `json:"status"`
	StatusLabel      string    `json:"statusLabel"`
	CoverURL         string    `json:"coverUrl"`
	CoverProductID   string    `json:"coverProductId"`
	ProductIDs       []string  `json:"productIds"`
	ProductCount     int       `json:"productCount"`
	AssetCount       int       `json:"assetCount"`
	ThumbnailColor   string    `json:"thumbnailColor"`
	ThumbnailOverlay string    `json:"thumbnailOverlay"`
	Tags             []string  `json:"tags"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// galleryStatusLabel: spec §3 shows error as "Needs attention".
func galleryStatusLabel(status string) string {
	switch status {
	case catalog.StatusError:
		return "Needs attention"
	case catalog.StatusProcessing:
		return "Processing"
	}
	return "Ready"
}

func newGalleryView(r *http.Request, s *catalog.Service, g catalog.Gallery) (galleryView, error) {
	cover, err := s.SignedURL(r.Context(), g.CoverKey)
	if err != nil {
		return galleryView{}, err
	}
	color := catalog.GalleryColor(g.ID, g.ThumbnailColor)
	return galleryView{ID: g.ID, Name: g.Name, Description: g.Description, Status: g.Status,
		StatusLabel: galleryStatusLabel(g.Status), CoverURL: cover, CoverProductID: g.CoverProductID,
		ProductIDs: g.ProductIDs, ProductCount: g.ProductCount, AssetCount: g.AssetCount,
		ThumbnailColor: color, ThumbnailOverlay: catalog.GalleryOverlay(color),
		Tags: g.Tags, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}, nil
}

type galleryDetail struct {
	galleryView
	Products []productView `json:"products"`
	// Publication is the gallery's live public page (GET only; absent: none).
	Publication *publish.Publication `json:"publication,omitempty"`
}

func writeGallery(w http.ResponseWriter, r *http.Request, s *catalog.Service, status int, g catalog.Gallery, ps []catalog.Product) error {
	return writeGalleryStatus(w, r, s, status, g, ps, nil)
}

func writeGalleryPage(w http.ResponseWriter, r *http.Request, s *catalog.Service, g catalog.Gallery, ps []catalog.Product, page *publish.Publication) error {
	return writeGalleryStatus(w, r, s, http.StatusOK, g, ps, page)
}

func writeGalleryStatus(w http.ResponseWriter, r *http.Request, s *catalog.Service, status int, g catalog.Gallery, ps []catalog.Product, page *publish.Publication) error {
	v, err := newGalleryView(r, s, g)
	if err != nil {
		return err
	}
	items, err := productViews(r.Context(), s, ps)
	if err != nil {
		return err
	}
	// Only live products are listed; deleted ones drop out of productIds too.
	v.ProductIDs = make([]string, len(items))
	for i, p := range items {
		v.ProductIDs[i] = p.ID
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", "/api/galleries/"+g.ID)
	}
	WriteJSON(w, status, galleryDetail{galleryView: v, Products: items, Publication: page})
	return nil
}

// listGalleries serves GET /api/galleries with the products' parameters.
func listGalleries(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := catalog.ParseListParams(r.URL.Query())
		if err != nil {
			return err
		}
		gs, total, err := s.Galleries(r.Context(), currentWorkspace(r), p)
		if err != nil {
			return err
		}
		out := listPage[galleryView]{Items: make([]galleryView, 0, len(gs)), Total: total, Page: p.Page, PageSize: p.PageSize}
		for _, g := range gs {
			v, err := newGalleryView(r, s, g)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, v)
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

type createGalleryRequest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	ProductIDs     []string `json:"productIds"`
	CoverProductID string   `json:"coverProductId"`
	Tags           []string `json:"tags"`
	ThumbnailColor string   `json:"thumbnailColor"`
}

// createGallery serves POST /api/galleries; 403 with the spec's Pro text on Free.
func createGallery(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req createGalleryRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		g, ps, err := s.CreateGallery(r.Context(), currentWorkspace(r), catalog.NewGallery{Name: req.Name,
			Description: req.Description, ProductIDs: req.ProductIDs, CoverProductID: req.CoverProductID,
			Tags: req.Tags, ThumbnailColor: req.ThumbnailColor})
		if err != nil {
			return err
		}
		return writeGallery(w, r, s, http.StatusCreated, g, ps)
	}
}

type patchGalleryRequest struct {
	Name           *string   `json:"name"`
	Description    *string   `json:"description"`
	Tags           *[]string `json:"tags"`
	ThumbnailColor *string   `json:"thumbnailColor"`
}

// patchGallery serves PATCH /api/galleries/{id} {name?, description?, tags?, thumbnailColor?}.
func patchGallery(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req patchGalleryRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		g, ps, err := s.UpdateGallery(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), catalog.GalleryPatch{
			Name: req.Name, Description: req.Description, Tags: req.Tags, ThumbnailColor: req.ThumbnailColor})
		if err != nil {
			return err
		}
		return writeGallery(w, r, s, http.StatusOK, g, ps)
	}
}

type galleryProductsRequest struct {
	ProductIDs     []string `json:"productIds"`
	CoverProductID *string  `json:"coverProductId"`
}

// putGalleryProducts serves PUT /api/galleries/{id}/products
// {productIds, coverProductId?}: the full ordered list of the owner's products.
func putGalleryProducts(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req galleryProductsRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		if req.ProductIDs == nil {
			req.ProductIDs = []string{}
		}
		g, ps, err := s.SetGalleryProducts(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), req.ProductIDs, req.CoverProductID)
		if err != nil {
			return err
		}
		return writeGallery(w, r, s, http.StatusOK, g, ps)
	}
}

// deleteGallery serves DELETE /api/galleries/{id} (allowed on every plan).
func deleteGallery(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := s.DeleteGallery(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
		return nil
	}
}
