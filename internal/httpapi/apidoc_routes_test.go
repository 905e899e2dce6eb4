package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/apidoc"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/dashboard"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
	"github.com/photo3d/photo3d/internal/team"
	"github.com/photo3d/photo3d/internal/upload"
	"github.com/photo3d/photo3d/internal/webhook"
	"github.com/photo3d/photo3d/internal/workspace"
)

// everyRouteDeps sets every Deps field that mounts routes, so the walk
// below sees the whole surface; the services are never called (chi.Walk
// only lists routes), so empty values are enough. A new Deps field that
// gates routes belongs here too.
func everyRouteDeps() Deps {
	return Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Notifications: &notify.Service{}, Workspace: &workspace.Reader{}, Dashboard: &dashboard.Service{},
		Uploads: &upload.Service{}, Jobs: &job.Service{}, DevMode: true, Catalog: &catalog.Service{},
		Publications: &publish.Service{}, PublicPages: &publish.Pages{}, Accounts: &account.Service{},
		Subscriptions: &subscription.Service{}, Outbox: &mail.Outbox{}, Shoppers: &analytics.Collector{},
		Analytics: &analytics.Reader{}, Web: http.NotFoundHandler(), APIKeys: &apikey.Service{}, Webhooks: &webhook.Service{},
		StripeWebhooks: &stripebilling.Provider{}, Exports: &privacy.Exports{}, Feeds: &googlefeed.Service{}, Shopify: &shopify.Service{}, Experiments: &experiment.Service{},
		Teams: &team.Service{}}
}

// routedAPI lists "METHOD /api/path" for every route the real router serves
// under /api (paths with chi's {params}).
func routedAPI(t *testing.T, h http.Handler) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	require.NoError(t, chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.Replace(route, "/*/", "/", -1) // chi writes groups as "/*/"
		if strings.HasPrefix(route, "/api/") {
			out[method+" "+route] = true
		}
		return nil
	}))
	return out
}

// documentedAPI lists "METHOD /api/path" for every operation in the
// merged OpenAPI document.
func documentedAPI(t *testing.T) map[string]bool {
	t.Helper()
	built, err := apidoc.Document()
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(built.JSON, &doc))
	out := map[string]bool{}
	for p, item := range doc.Paths {
		for m := range item {
			out[strings.ToUpper(m)+" "+p] = true
		}
	}
	return out
}

// TestOpenAPIMatchesRouter is the CI check of issue 17: every /api route
// of the real router has an operation in the OpenAPI document and every
// documented operation is a real route. Fix a failure by adding or
// removing the operation in internal/apidoc/fragments/<area>.json.
func TestOpenAPIMatchesRouter(t *testing.T) {
	t.Parallel()
	routed := routedAPI(t, NewRouter(everyRouteDeps()))
	documented := documentedAPI(t)
	var undocumented, missing []string
	for r := range routed {
		if !documented[r] {
			undocumented = append(undocumented, r)
		}
	}
	for d := range documented {
		if !routed[d] {
			missing = append(missing, d)
		}
	}
	sort.Strings(undocumented)
	sort.Strings(missing)
	require.True(t, len(routed) > 50, "the walk found only %d routes: is a Deps field missing in everyRouteDeps?", len(routed))
	if len(undocumented) > 0 {
		t.Errorf("%d routes without an operation in internal/apidoc/fragments (document them):\n  %s", len(undocumented), strings.Join(undocumented, "\n  "))
	}
	if len(missing) > 0 {
		t.Errorf("%d documented operations that no route serves (remove them or fix the path):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// TestOpenAPIServedPublicWithETag: integrators (and the /docs/api page)
// read the document without signing in; a revalidation with the ETag is a
// 304 without the body; /docs/api itself is the web app's page.
func TestOpenAPIServedPublicWithETag(t *testing.T) {
	t.Parallel()
	d := everyRouteDeps()
	d.Web = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "<!doctype html>app") })
	h := NewRouter(d)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json"))
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Contains(t, doc.Paths, "/api/jobs")
	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)

	req := httptest.NewRequest("GET", "/api/openapi.json", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusNotModified, rec.Code)
	require.Empty(t, rec.Body.String())
	// Through compression the browser holds the rewritten ETag; it revalidates too.
	req = httptest.NewRequest("GET", "/api/openapi.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, "gzip", rec.Header().Get("Content-Encoding"))
	req = httptest.NewRequest("GET", "/api/openapi.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusNotModified, rec.Code)

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/docs/api", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "app")
}
