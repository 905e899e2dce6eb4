package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/publish"
)

// Product publishing (issue 13): the publish step, the product's model with
// its variants, and the merchant's leads. Every route is owner-scoped
// through the product: another merchant's product id answers 404.

func newProductDeps(d Deps) productDeps {
	pd := productDeps{Service: d.Catalog, pubs: d.Publications, variants: d.Variants, teams: d.Teams}
	if pd.variants == nil && d.Blobs != nil {
		pd.variants = glbvariants.NewCache(d.Blobs.Bucket)
	}
	return pd
}

// variantsOf is what the GLB builder needs of a configuration.
func variantsOf(cfg catalog.Config) []glbvariants.Variant {
	out := make([]glbvariants.Variant, 0, len(cfg.Variants))
	for _, v := range cfg.Variants {
		out = append(out, glbvariants.Variant{ID: v.ID, Material: v.Material, Parts: v.Parts})
	}
	return out
}

// productModelURL signs the product's configurator GLB (the model with its
// variants as KHR_materials_variants). Its key carries a hash of the model
// and the variants, so a changed configuration is a new URL and the browser
// refetches. A model the builder cannot read is answered as it is.
func productModelURL(ctx context.Context, s productDeps, p catalog.Product) (string, error) {
	key := p.ModelKey
	if s.variants != nil && len(p.Config.Variants) > 0 {
		if k, err := s.variants.ConfiguratorKey(ctx, p.ModelKey, variantsOf(p.Config)); err == nil {
			key = k
		}
	}
	return s.SignedURL(ctx, key)
}

func mountProductPublishing(priv chi.Router, pd productDeps, pages *publish.Pages) {
	if pd.pubs == nil {
		return
	}
	priv.Method("POST", "/products/{id}/publish", publishProduct(pd, pages))
	priv.Method("GET", "/products/{id}/leads", listLeads(pd))
	priv.Method("GET", "/products/{id}/leads.csv", leadsCSV(pd))
	priv.Method("DELETE", "/products/{id}/leads/{leadId}", deleteLead(pd))
}

type publishProductBody struct {
	RequireEmail   bool `json:"requireEmail"`
	AllowDeepLinks bool `json:"allowDeepLinks"`
}

// publishProduct serves POST /api/products/{id}/publish {requireEmail,
// allowDeepLinks}: 201 with a new link, or 200 with the product's live link
// and the new settings.
func publishProduct(pd productDeps, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body publishProductBody
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		set := publish.ProductSettings{RequireEmail: body.RequireEmail, AllowDeepLinks: body.AllowDeepLinks}
		if underApproval(r) {
			return requestApproval(pd.teams, w, r, chi.URLParam(r, "id"), set)
		}
		if ws, ok := auth.WorkspaceFrom(r.Context()); ok && ws.RequireApproval {
			p, created, err := pd.pubs.PublishPinned(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), set)
			if err != nil {
				return err
			}
			writePublished(w, pages, p.Slug, p, created)
			return nil
		}
		p, created, err := pd.pubs.PublishProduct(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), set)
		if err != nil {
			return err
		}
		writePublished(w, pages, p.Slug, p, created)
		return nil
	}
}

// writePublished answers a publish request: 201 with a new link, 200 with
// the live one; the public page drops its cached copy first.
func writePublished(w http.ResponseWriter, pages *publish.Pages, slug string, v any, created bool) {
	if pages != nil {
		pages.Invalidate(slug)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	WriteJSON(w, status, v)
}

// ownProduct checks the product is the caller's (404 otherwise).
func ownProduct(pd productDeps, r *http.Request) (string, error) {
	id := chi.URLParam(r, "id")
	_, err := pd.Product(r.Context(), currentWorkspace(r), id)
	return id, err
}

// listLeads serves GET /api/products/{id}/leads?limit=&cursor= →
// {items:[{id,email,createdAt,variantId}], nextCursor}: newest first,
// limit 1–500 (default 50), nextCursor empty on the last page.
func listLeads(pd productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := ownProduct(pd, r)
		if err != nil {
			return err
		}
		limit := 0
		if v := r.URL.Query().Get("limit"); v != "" {
			if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
				limit = -1 // refused with the service's message
			}
		}
		page, err := pd.pubs.Leads(r.Context(), currentWorkspace(r), id, limit, r.URL.Query().Get("cursor"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, page)
		return nil
	}
}

// leadsCSV serves GET /api/products/{id}/leads.csv as a download: every
// lead, streamed from the database in batches.
func leadsCSV(pd productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := ownProduct(pd, r)
		if err != nil {
			return err
		}
		x, err := pd.pubs.LeadsExportFor(r.Context(), currentWorkspace(r), id)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+x.FileName(time.Now())+`"`)
		w.Header().Set("Cache-Control", "private, no-store")
		w.WriteHeader(http.StatusOK)
		return pd.pubs.WriteLeadsCSV(r.Context(), w, currentWorkspace(r), id, x)
	}
}

// deleteLead serves DELETE /api/products/{id}/leads/{leadId}: the address is gone for good.
func deleteLead(pd productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if _, err := pd.Product(r.Context(), currentWorkspace(r), id); err != nil {
			return err
		}
		leadID := chi.URLParam(r, "leadId")
		if err := pd.pubs.DeleteLead(r.Context(), currentWorkspace(r), id, leadID); err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"id": leadID, "deleted": true})
		return nil
	}
}
