package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/apidoc"
)

// serveOpenAPI serves GET /api/openapi.json: the merged OpenAPI document,
// public (integrators read it before they have a key), not enveloped
// (tools expect the bare document) and cached by ETag, since it only
// changes with a new build.
func serveOpenAPI() Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		doc, err := apidoc.Document()
		if err != nil {
			return err // a broken embedded document: 500, and the tests fail first
		}
		w.Header().Set("ETag", doc.ETag)
		w.Header().Set("Cache-Control", "public, max-age=300")
		if match := r.Header.Get("If-None-Match"); match != "" && match == doc.ETag {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(doc.JSON)
		return nil
	}
}
