package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/publish"
)

// Gallery pages (issue 29 item 14): publishing a gallery gives it a public
// page /g/{slug} (the grid of its live products), an embed and a QR code.
// The gallery detail carries its live publication; unpublishing is DELETE
// /api/publications/{id}, as for every link.

// mountGalleryPublishing adds POST /api/galleries/{id}/publish.
func mountGalleryPublishing(priv chi.Router, pubs *publish.Service, pages *publish.Pages) {
	if pubs == nil {
		return
	}
	priv.Method("POST", "/galleries/{id}/publish", publishGallery(pubs, pages))
}

// publishGallery serves POST /api/galleries/{id}/publish: 201 with a new
// link, or 200 with the gallery's live one.
func publishGallery(pubs *publish.Service, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, created, err := pubs.PublishGallery(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		writePublished(w, pages, p.Slug, p, created)
		return nil
	}
}

// getGalleryWithPage serves GET /api/galleries/{id}: the gallery, its
// products and, when it has one, its live public page.
func getGalleryWithPage(s *catalog.Service, pubs *publish.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		g, ps, err := s.Gallery(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		var page *publish.Publication
		if pubs != nil {
			if page, err = pubs.ForGallery(r.Context(), currentWorkspace(r), g.ID); err != nil {
				return err
			}
		}
		return writeGalleryPage(w, r, s, g, ps, page)
	}
}

// mountGalleryPages adds the public gallery page, its embed, thumbnails, QR
// and view beacon.
func mountGalleryPages(pub chi.Router, pages *publish.Pages) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		pub.MethodFunc(m, "/g/{slug}", func(w http.ResponseWriter, r *http.Request) {
			pages.ServeGallery(w, r, chi.URLParam(r, "slug"), false)
		})
		pub.MethodFunc(m, "/g/{slug}/embed", func(w http.ResponseWriter, r *http.Request) {
			pages.ServeGallery(w, r, chi.URLParam(r, "slug"), true)
		})
		pub.MethodFunc(m, "/g/{slug}/t/{file}", func(w http.ResponseWriter, r *http.Request) {
			pages.ServeGalleryThumb(w, r, chi.URLParam(r, "slug"), chi.URLParam(r, "file"))
		})
		pub.MethodFunc(m, "/g/{slug}/qr.png", func(w http.ResponseWriter, r *http.Request) {
			pages.ServeQR(w, r, chi.URLParam(r, "slug"))
		})
	}
	// The page's view beacon: the counted view (a GET of the page is free).
	pub.Get("/g/{slug}/view.gif", func(w http.ResponseWriter, r *http.Request) {
		pages.ServeGalleryView(w, r, chi.URLParam(r, "slug"))
	})
}
