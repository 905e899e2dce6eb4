package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/catalog"
)

// replacePhoto serves POST /api/products/{id}/photo {uploadId}: the product
// gets the uploaded photo and is rebuilt from it (one credit), keeping its
// configuration; 202 with the product, now building (issue 29 item 17). A
// draft only takes the photo: 200, no build and no credit (issue 50 P12).
func replacePhoto(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			UploadID string `json:"uploadId"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		p, err := s.ReplacePhoto(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), body.UploadID)
		if err != nil {
			return err
		}
		if p.Status == catalog.StatusDraft {
			// A draft only took the new photo: nothing runs (issue 50 P12).
			return writeWrittenProduct(w, r, s, http.StatusOK, p)
		}
		return writeWrittenProduct(w, r, s, http.StatusAccepted, p)
	}
}
