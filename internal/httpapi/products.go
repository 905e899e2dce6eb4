package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/team"
)

// productView is one product card / list row (GET /products). Thumbnail and
// model URLs are signed GET URLs valid for an hour, as in the jobs answers.
type productView struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Description   string    `json:"description"`
	ProductURL    string    `json:"productUrl"`
	Status        string    `json:"status"` // processing | ready | error
	StatusLabel   string    `json:"statusLabel"`
	FailureReason string    `json:"failureReason"`
	ThumbnailURL  string    `json:"thumbnailUrl"`
	Tags          []string  `json:"tags"`
	CatalogID     string    `json:"catalogId"`
	Source        string    `json:"source"`
	BlueprintID   string    `json:"blueprintId"` // the current build's job id (a blueprint)
	JobID         string    `json:"jobId"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	Live          bool      `json:"live"` // its public page is published
	// The spec's list-item extras (catalog.CardExtras says how each is derived).
	Brand              string `json:"brand"`
	AccentColor        string `json:"accentColor"`
	AccentOverlay      string `json:"accentOverlay"`
	ReadyMetric        *int   `json:"readyMetric"`
	ProcessingProgress int    `json:"processingProgress"`
	// BuildWarnings are the builder's sentences about the current model (the
	// product runs off an edge of its photo); [] when all is well.
	BuildWarnings []string `json:"buildWarnings"`
	// Price and Currency are the Default variant's (the product's price, spec §3
	// product detail), for the list card; null and "" when none is set.
	Price    *float64 `json:"price"`
	Currency string   `json:"currency"`
}

func (v *productView) withExtras(x catalog.CardExtras) {
	v.Brand, v.AccentColor, v.AccentOverlay = x.Brand, x.AccentColor, x.AccentOverlay
	v.ReadyMetric, v.ProcessingProgress = x.ReadyMetric, x.ProcessingProgress
	v.BuildWarnings = x.BuildWarnings
	if v.BuildWarnings == nil {
		v.BuildWarnings = []string{}
	}
	v.Price, v.Currency = x.Price, x.Currency
}

func newProductView(ctx context.Context, s *catalog.Service, p catalog.Product) (productView, error) {
	thumb := ""
	var err error
	switch {
	case p.Status == catalog.StatusReady:
		if thumb, err = s.SignedURL(ctx, p.ThumbnailKey); err != nil {
			return productView{}, err
		}
	case p.Status == catalog.StatusDraft && p.PhotoKey != "":
		// A draft has no model yet: its card shows the photo it will be built from.
		if thumb, err = s.SignedURL(ctx, p.PhotoKey); err != nil {
			return productView{}, err
		}
	}
	return productView{ID: p.ID, Name: p.Name, Description: p.Description, ProductURL: p.ProductURL, Status: p.Status,
		StatusLabel: catalog.StatusLabel(p.Status), FailureReason: p.FailureReason, ThumbnailURL: thumb, Tags: p.Tags,
		CatalogID: p.CatalogID, Source: p.Source, BlueprintID: p.JobID, JobID: p.JobID, CreatedAt: p.CreatedAt,
		UpdatedAt: p.UpdatedAt, Live: p.Live}, nil
}

func productViews(ctx context.Context, s *catalog.Service, ps []catalog.Product) ([]productView, error) {
	out := make([]productView, 0, len(ps))
	if len(ps) == 0 {
		return out, nil
	}
	extras, err := s.CardExtras(ctx, ps[0].UserID, ps)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		v, err := newProductView(ctx, s, p)
		if err != nil {
			return nil, err
		}
		v.withExtras(extras[p.ID])
		out = append(out, v)
	}
	return out, nil
}

// listPage is the answer of every paged list: {items, total, page, pageSize}.
type listPage[T any] struct {
	Items    []T `json:"items"`
	Total    int `json:"total"`
	Page     int `json:"page"`
	PageSize int `json:"pageSize"`
}

// productPage is GET /products: a page plus hiddenByPlan, how many products the
// plan's limit leaves out of the list (spec §6), so the notice can say so.
type productPage struct {
	listPage[productView]
	HiddenByPlan int `json:"hiddenByPlan"`
}

func writeProductPage(w http.ResponseWriter, r *http.Request, s *catalog.Service, p catalog.ListParams, ps []catalog.Product, total int) error {
	items, err := productViews(r.Context(), s, ps)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, listPage[productView]{Items: items, Total: total, Page: p.Page, PageSize: p.PageSize})
	return nil
}

// listProducts serves GET /api/products?status=&from=&to=&sort=&page=&pageSize=&q=.
func listProducts(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := catalog.ParseListParams(r.URL.Query())
		if err != nil {
			return err
		}
		ps, total, err := s.Products(r.Context(), currentWorkspace(r), p)
		if err != nil {
			return err
		}
		items, err := productViews(r.Context(), s, ps)
		if err != nil {
			return err
		}
		hidden, err := s.ProductsBeyondPlan(r.Context(), currentWorkspace(r))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, productPage{listPage: listPage[productView]{Items: items, Total: total, Page: p.Page, PageSize: p.PageSize}, HiddenByPlan: hidden})
		return nil
	}
}

type buildView struct {
	JobID         string     `json:"jobId"`
	Status        string     `json:"status"`
	FailureReason string     `json:"failureReason"`
	StartedAt     time.Time  `json:"startedAt"`
	FinishedAt    *time.Time `json:"finishedAt"`
}

// productDetail is GET /products/{id}: the card plus the model, the build
// history (oldest first) and the timeline from real events.
type productDetail struct {
	productView
	ModelURL string                  `json:"modelUrl"`
	Builds   []buildView             `json:"builds"`
	Timeline []catalog.TimelineEntry `json:"timeline"`
	configView
	photoBuildView
	Publication *publish.Publication `json:"publication"` // the live product page, or null
}

// productDeps is what the product detail answer needs: the catalogue, and
// for issue 13 the product's publication and its variant GLB builder.
type productDeps struct {
	*catalog.Service
	pubs     *publish.Service
	variants *glbvariants.Cache
	teams    *team.Service // an editor's Publish under approvals becomes a request
}

func writeProduct(w http.ResponseWriter, r *http.Request, s productDeps, status int, id string) error {
	p, timeline, err := s.ProductHistory(r.Context(), currentWorkspace(r), id)
	if err != nil {
		return err
	}
	card, err := newProductView(r.Context(), s.Service, p)
	if err != nil {
		return err
	}
	extras, err := s.CardExtras(r.Context(), currentWorkspace(r), []catalog.Product{p})
	if err != nil {
		return err
	}
	card.withExtras(extras[p.ID])
	out := productDetail{productView: card, Builds: []buildView{}, Timeline: timeline, configView: newConfigView(p.Config)}
	if p.Status == catalog.StatusReady {
		if out.ModelURL, err = productModelURL(r.Context(), s, p); err != nil {
			return err
		}
	}
	if s.pubs != nil {
		if out.Publication, err = s.pubs.ForProduct(r.Context(), currentWorkspace(r), p.ID); err != nil {
			return err
		}
	}
	for _, b := range p.Builds {
		out.Builds = append(out.Builds, buildView{JobID: b.JobID, Status: b.Status, FailureReason: b.Reason,
			StartedAt: b.StartedAt, FinishedAt: b.FinishedAt})
	}
	if out.photoBuildView, err = newPhotoBuildView(r.Context(), s.Service, p); err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", "/api/products/"+p.ID)
	}
	WriteJSON(w, status, out)
	return nil
}

// writeWrittenProduct answers a write the catalogue has committed (a new
// product, a rebuild, a new photo, an edit) with the product's detail, as GET
// answers it. The change is made by then, so the answer is never an error:
// should reading the detail fail after the COMMIT (the database restarting,
// say), it answers the product as the write left it (its card and its
// configuration, without the timeline), which the app reads whole on its
// next GET. An error there would have the merchant, or a script, retry a
// change that was made: a second product, or a build paid for twice.
func writeWrittenProduct(w http.ResponseWriter, r *http.Request, s productDeps, status int, p catalog.Product) error {
	err := writeProduct(w, r, s, status, p.ID)
	if err == nil {
		return nil
	}
	card, cerr := newProductView(context.WithoutCancel(r.Context()), s.Service, p)
	if cerr != nil {
		return err
	}
	LoggerFrom(r.Context()).Warn("product written but its detail not read: answered as written", "product", p.ID, "err", err)
	out := productDetail{productView: card, Builds: []buildView{}, Timeline: []catalog.TimelineEntry{}, configView: newConfigView(p.Config)}
	if status == http.StatusCreated {
		w.Header().Set("Location", "/api/products/"+p.ID)
	}
	WriteJSON(w, status, out)
	return nil
}

type createProductRequest struct {
	Name        string `json:"name"`
	CatalogID   string `json:"catalogId"`
	BlueprintID string `json:"blueprintId"`
	// From a new photo (the add-product wizard).
	UploadID string `json:"uploadId"`
	Generate bool   `json:"generate"`
	// OwnModel: a draft for the merchant's own .glb/.gltf (POST /products/{id}/model next).
	OwnModel   bool `json:"ownModel"`
	CleanEdges bool `json:"cleanEdges"`
	KeepShadow bool `json:"keepShadow"`
	// Further angles, the shape POST /api/jobs takes.
	MoreImages []moreImageRequest `json:"moreImages"`
}

// createProduct serves POST /api/products {name, catalogId?, blueprintId}.
func createProduct(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req createProductRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		p, err := s.CreateProduct(r.Context(), currentWorkspace(r), catalog.NewProduct{Name: req.Name, CatalogID: req.CatalogID,
			BlueprintID: req.BlueprintID, UploadID: req.UploadID, Generate: req.Generate,
			CleanEdges: req.CleanEdges, KeepShadow: req.KeepShadow, MoreImages: moreImages(req.MoreImages), OwnModel: req.OwnModel})
		if err != nil {
			return err
		}
		return writeWrittenProduct(w, r, s, http.StatusCreated, p)
	}
}

// getProduct serves GET /api/products/{id}.
func getProduct(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return writeProduct(w, r, s, http.StatusOK, chi.URLParam(r, "id"))
	}
}

type patchProductRequest struct {
	Name        *string   `json:"name"`
	Description *string   `json:"description"`
	ProductURL  *string   `json:"productUrl"`
	Tags        *[]string `json:"tags"`
	CatalogID   *string   `json:"catalogId"`
}

// patchProduct serves PATCH /api/products/{id}; absent fields are unchanged.
func patchProduct(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req patchProductRequest
		if err := DecodeJSON(r, &req); err != nil {
			return err
		}
		p, err := s.UpdateProduct(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), catalog.ProductPatch{
			Name: req.Name, Description: req.Description, ProductURL: req.ProductURL, Tags: req.Tags, CatalogID: req.CatalogID})
		if err != nil {
			return err
		}
		return writeWrittenProduct(w, r, s, http.StatusOK, p)
	}
}

// deleteProduct serves DELETE /api/products/{id}.
func deleteProduct(s *catalog.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := s.DeleteProduct(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
		return nil
	}
}

// rebuildProduct serves POST /api/products/{id}/rebuild: a new build of the
// product's photos (one AI credit per photo, 402 when too few are left).
func rebuildProduct(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.RebuildProduct(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		return writeWrittenProduct(w, r, s, http.StatusAccepted, p)
	}
}
