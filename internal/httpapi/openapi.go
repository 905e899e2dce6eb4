package httpapi

import (
	"net/http"
	"strings"

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
		if notModified(r.Header.Get("If-None-Match"), doc.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(doc.JSON)
		return nil
	}
}

// notModified reports whether If-None-Match names etag: exactly, weakly
// (W/), or as the compressing middleware rewrote it ("…-z-gzip", see
// compress.go), since a browser revalidates with the ETag it received.
func notModified(ifNoneMatch, etag string) bool {
	base := strings.TrimSuffix(etag, `"`)
	for _, m := range strings.Split(ifNoneMatch, ",") {
		m = strings.TrimPrefix(strings.TrimSpace(m), "W/")
		if m == etag || m == "*" || strings.HasPrefix(m, base+"-z") {
			return true
		}
	}
	return false
}
