package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// A binary compiled before the web app was built (a fresh clone: only
// dist/.keep) tells whoever opens it how to build the app.
func TestHandlerWithoutBuiltApp(t *testing.T) {
	t.Parallel()
	h := handlerFor(fstest.MapFS{".keep": &fstest.MapFile{}})
	for _, p := range []string{"/", "/workspace/upload"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		require.Equal(t, http.StatusServiceUnavailable, rec.Code, p)
		require.Contains(t, rec.Header().Get("Content-Type"), "text/html")
		require.Contains(t, rec.Body.String(), "Web app not built: run make run")
	}
}

func TestHandlerServesTheApp(t *testing.T) {
	t.Parallel()
	h := handlerFor(fstest.MapFS{
		"index.html":      &fstest.MapFile{Data: []byte("<!doctype html><title>app</title>")},
		"assets/app-1.js": &fstest.MapFile{Data: []byte("1")},
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/workspace/blueprints", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "<title>app</title>")

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/assets/app-1.js", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Header().Get("Cache-Control"), "immutable")

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/assets/missing.js", nil))
	require.Equal(t, http.StatusNotFound, rec.Code)
}
