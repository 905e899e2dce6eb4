package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// newCatalogueStack is the creation stack with the catalogue and
// subscription routes mounted, as cmd/api wires them.
func newCatalogueStack(t *testing.T) creationStack { return newCatalogueStackTB(t) }

func newCatalogueStackTB(t testing.TB) creationStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	svc := catalog.NewService(env.DB.Pool, env.Store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs}).WithModels(env.Blobs, 0).WithRiver(env.River).
		WithModelWait(2 * time.Minute) // a hung-worker guard: assertions read the 200/400, never a 202
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL), MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc})
	return creationStack{env: env, h: h, tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), creationBase)}
}

func startTrialFor(t *testing.T, s creationStack, user string) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(context.Background(), s.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := s.env.Subs.StartTrial(context.Background(), tx, user, 7)
		return err
	}))
}

type productReply struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Status        string   `json:"status"`
	StatusLabel   string   `json:"statusLabel"`
	FailureReason string   `json:"failureReason"`
	ThumbnailURL  string   `json:"thumbnailUrl"`
	ModelURL      string   `json:"modelUrl"`
	Tags          []string `json:"tags"`
	CatalogID     string   `json:"catalogId"`
	ProductURL    string   `json:"productUrl"`
	BlueprintID   string   `json:"blueprintId"`
	Timeline      []struct {
		Kind string `json:"kind"`
	} `json:"timeline"`
}

func TestProductsEndToEndOverHTTP(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	bp := s.env.Blueprint(t, user, "ready")

	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Oak chair", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	p := decodeAs[productReply](t, r.Data)
	require.Equal(t, "ready", p.Status)
	require.Equal(t, "3D ready — Configure", p.StatusLabel)
	require.True(t, strings.HasPrefix(p.ThumbnailURL, "/blobs?"), p.ThumbnailURL)
	require.NotEmpty(t, p.ModelURL)
	require.Equal(t, bp, p.BlueprintID)
	require.Equal(t, []string{}, p.Tags)
	require.NotEmpty(t, p.Timeline)

	// Validation: clear messages, nothing stored.
	for _, c := range []struct {
		body    map[string]any
		code    string
		message string
	}{
		{map[string]any{"productUrl": "javascript:alert(1)"}, "invalid_product_url", "Enter a product URL starting with http:// or https://, for example https://shop.example.com/item."},
		{map[string]any{"name": "   "}, "name_required", "Please enter a product name."},
		{map[string]any{"name": strings.Repeat("x", 101)}, "name_too_long", "Product names can be at most 100 characters."},
		{map[string]any{"tags": make([]string, 21)}, "tag_empty", "Tags cannot be empty."},
		{map[string]any{"tags": []string{strings.Repeat("t", 31)}}, "tag_too_long", "Tags can be at most 30 characters."},
		{map[string]any{"description": strings.Repeat("d", 2001)}, "description_too_long", "Descriptions can be at most 2000 characters."},
	} {
		rec, r := s.json(t, user, "PATCH", "/api/products/"+p.ID, c.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		require.Equal(t, c.code, r.Error.Code)
		require.Equal(t, c.message, r.Error.Message)
	}
	rec, _ = s.call(t, user, "PATCH", "/api/products/"+p.ID, "application/json", []byte(`{"name":"A"} {"name":"B"}`))
	require.Equal(t, http.StatusBadRequest, rec.Code, "trailing JSON is refused")

	rec, r = s.json(t, user, "PATCH", "/api/products/"+p.ID, map[string]any{"productUrl": "https://shop.example.com/oak",
		"tags": []string{"wood", " Wood ", "chairs"}, "description": "Solid oak."})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	p = decodeAs[productReply](t, r.Data)
	require.Equal(t, []string{"wood", "chairs"}, p.Tags)
	require.Equal(t, "https://shop.example.com/oak", p.ProductURL)

	// Free plan: the second product is allowed, the third refused with the spec's text.
	rec, _ = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Second", "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code)
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Third", "blueprintId": bp})
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Equal(t, "Free plan limited to 2 products. Upgrade to Pro for 50 listings.", r.Error.Message)

	rec, r = s.json(t, user, "GET", "/api/subscription", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	sub := decodeAs[struct {
		ProductLimit  *int64 `json:"productLimit"`
		ProductsUsed  int    `json:"productsUsed"`
		GalleryLimit  *int64 `json:"galleryLimit"`
		GalleriesUsed int    `json:"galleriesUsed"`
	}](t, r.Data)
	require.EqualValues(t, 2, *sub.ProductLimit)
	require.Equal(t, 2, sub.ProductsUsed)
	require.EqualValues(t, 0, *sub.GalleryLimit)

	rec, r = s.json(t, user, "POST", "/api/galleries", map[string]any{"name": "Spring"})
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Equal(t, "Galleries are a Pro feature (Pro allows up to 10 galleries and public sharing of collections).", r.Error.Message)

	rec, r = s.json(t, user, "GET", "/api/products?status=ready&sort=name&pageSize=20", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	page := decodeAs[struct {
		Items    []productReply `json:"items"`
		Total    int            `json:"total"`
		Page     int            `json:"page"`
		PageSize int            `json:"pageSize"`
	}](t, r.Data)
	require.Equal(t, 2, page.Total)
	require.Equal(t, 1, page.Page)
	require.Equal(t, 20, page.PageSize)
	require.Equal(t, "Oak chair", page.Items[0].Name)

	for _, q := range []string{"pageSize=15", "status=broken", "from=2025-13-01", "sort=price", "page=0", "from=2025-02-02&to=2025-02-01"} {
		rec, _ := s.json(t, user, "GET", "/api/products?"+q, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, q)
	}
}

// TestCatalogueRoutesAreOwnerScoped: every route with an id answers 404 to
// another merchant, and changes nothing.
func TestCatalogueRoutesAreOwnerScoped(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	owner, stranger := s.env.User(t), s.env.User(t)
	startTrialFor(t, s, owner)
	startTrialFor(t, s, stranger)
	bp := s.env.Blueprint(t, owner, "error")
	_, r := s.json(t, owner, "POST", "/api/products", map[string]any{"name": "Mine", "blueprintId": bp})
	p := decodeAs[productReply](t, r.Data)
	_, r = s.json(t, owner, "POST", "/api/catalogs", map[string]any{"name": "Extra"})
	c := decodeAs[struct{ ID string }](t, r.Data)
	_, r = s.json(t, owner, "POST", "/api/galleries", map[string]any{"name": "G", "productIds": []string{p.ID}})
	g := decodeAs[struct{ ID string }](t, r.Data)
	require.NotEmpty(t, g.ID)

	strangerBP := s.env.Blueprint(t, stranger, "ready")
	before := s.eventCount(t, "product.deleted.v1") + s.eventCount(t, "catalog.deleted.v1") + s.eventCount(t, "gallery.deleted.v1")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/products/" + p.ID, nil},
		{"PATCH", "/api/products/" + p.ID, map[string]any{"name": "Theirs"}},
		{"DELETE", "/api/products/" + p.ID, nil},
		{"POST", "/api/products/" + p.ID + "/rebuild", nil},
		{"GET", "/api/catalogs/" + c.ID, nil},
		{"PATCH", "/api/catalogs/" + c.ID, map[string]any{"name": "Theirs"}},
		{"DELETE", "/api/catalogs/" + c.ID, nil},
		{"GET", "/api/catalogs/" + c.ID + "/products", nil},
		{"GET", "/api/galleries/" + g.ID, nil},
		{"PATCH", "/api/galleries/" + g.ID, map[string]any{"name": "Theirs"}},
		{"DELETE", "/api/galleries/" + g.ID, nil},
		{"PUT", "/api/galleries/" + g.ID + "/products", map[string]any{"productIds": []string{}}},
		// Someone else's ids inside a body are not found either.
		{"POST", "/api/products", map[string]any{"name": "X", "blueprintId": bp}},
		{"POST", "/api/products", map[string]any{"name": "X", "blueprintId": strangerBP, "catalogId": c.ID}},
		{"POST", "/api/galleries", map[string]any{"name": "X", "productIds": []string{p.ID}}},
		{"GET", "/api/products/not-a-uuid", nil},
	} {
		rec, _ := s.json(t, stranger, c.method, c.path, c.body)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", c.method, c.path, rec.Body.String())
	}
	after := s.eventCount(t, "product.deleted.v1") + s.eventCount(t, "catalog.deleted.v1") + s.eventCount(t, "gallery.deleted.v1")
	require.Equal(t, before, after)
	for _, path := range []string{"/api/products", "/api/catalogs", "/api/galleries"} {
		rec, r := s.json(t, stranger, "GET", path, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.NotContains(t, string(r.Data), p.ID)
		require.NotContains(t, string(r.Data), c.ID)
		require.NotContains(t, string(r.Data), g.ID)
	}
	for _, path := range []string{"/api/products", "/api/catalogs", "/api/galleries", "/api/products/" + p.ID} {
		rec, _ := s.json(t, "", "GET", path, nil)
		require.Equal(t, http.StatusUnauthorized, rec.Code, path)
	}
	// The owner still sees everything.
	rec, _ := s.json(t, owner, "GET", "/api/galleries/"+g.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
}
