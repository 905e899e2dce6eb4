package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// replacePhoto serves POST /api/products/{id}/photo {uploadId}: the product
// gets the uploaded photo and is rebuilt from it (one credit), keeping its
// configuration; 202 with the product, now building (issue 29 item 17).
func replacePhoto(s productDeps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			UploadID string `json:"uploadId"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		p, err := s.ReplacePhoto(r.Context(), currentUser(r), chi.URLParam(r, "id"), body.UploadID)
		if err != nil {
			return err
		}
		return writeProduct(w, r, s, http.StatusAccepted, p.ID)
	}
}
