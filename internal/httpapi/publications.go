package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/publish"
)

// Publication routes: share links, embeds and QR codes of the caller's
// blueprints. Changes that alter a public page also drop this instance's
// cached copy at once (other instances hear it through NOTIFY).

type createPublicationBody struct {
	BlueprintID string `json:"blueprintId"`
}

// createPublication serves POST /api/publications: 201 with a new link, or
// 200 with the blueprint's existing live one.
func createPublication(s *publish.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body createPublicationBody
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		p, created, err := s.Create(r.Context(), currentWorkspace(r), body.BlueprintID)
		if err != nil {
			return err
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		WriteJSON(w, status, p)
		return nil
	}
}

// listPublications serves GET /api/publications[?blueprintId=].
func listPublications(s *publish.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := s.List(r.Context(), currentWorkspace(r), r.URL.Query().Get("blueprintId"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": list})
		return nil
	}
}

// getPublication serves GET /api/publications/{id}.
func getPublication(s *publish.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.Get(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, p)
		return nil
	}
}

// unpublish serves DELETE /api/publications/{id}: the link stops working at once.
func unpublish(s *publish.Service, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.Unpublish(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		return answerChanged(w, pages, http.StatusOK, p, err)
	}
}

// publishVersion serves POST /api/publications/{id}/versions.
func publishVersion(s *publish.Service, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.NewVersion(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		return answerChanged(w, pages, http.StatusCreated, p, err)
	}
}

type lockBody struct {
	Version *int `json:"version"`
	Live    bool `json:"live"`
}

// lockPublication serves POST /api/publications/{id}/lock: {live: true}
// freezes the page as shoppers see it now (a new version when the product
// has changed since the latest one), {version: n} pins an existing version,
// {version: 0} unlocks.
func lockPublication(s *publish.Service, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body lockBody
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.Live == (body.Version != nil) {
			return fault.New(fault.Invalid, "invalid_version",
				"Send live: true to lock the page as shoppers see it now, or the version to lock (version), 0 to unlock.")
		}
		var p publish.Publication
		var err error
		if body.Live {
			p, err = s.LockLive(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		} else {
			p, err = s.Lock(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), *body.Version)
		}
		return answerChanged(w, pages, http.StatusOK, p, err)
	}
}

// answerChanged answers a change to a publication: its cached public page
// is dropped (the change shows on the next view) and the publication is
// returned.
func answerChanged(w http.ResponseWriter, pages *publish.Pages, status int, p publish.Publication, err error) error {
	if err != nil {
		return err
	}
	if pages != nil {
		pages.Invalidate(p.Slug)
	}
	WriteJSON(w, status, p)
	return nil
}

// setEmbedOrigins serves PUT /api/publications/{id}/embed-origins
// {origins:[...]}: the sites allowed to frame the embed page (issue 11 item
// 10); [] allows any site.
func setEmbedOrigins(s *publish.Service, pages *publish.Pages) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Origins *[]string `json:"origins"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.Origins == nil {
			return fault.New(fault.Invalid, "invalid_embed_origins", "Send the sites allowed to embed this model (origins), or [] for any site.")
		}
		p, err := s.SetEmbedOrigins(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), *body.Origins)
		return answerChanged(w, pages, http.StatusOK, p, err)
	}
}

// publicationQR serves GET /api/publications/{id}/qr.png: the merchant's
// "Download QR" (also for unpublished links, which then lead to a 404 page).
func publicationQR(s *publish.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.Get(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		png, err := publish.QRCode(p.ShareURL)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Disposition", `attachment; filename="photo3d-qr-`+p.Slug+`.png"`)
		publish.WritePNG(w, r, png)
		return nil
	}
}
