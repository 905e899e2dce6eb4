package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/channels/shopify/shopifytest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/upload"
)

const shopToken = "shpat_0123456789abcdef0123456789abcdef"

// shopifyStack is the catalogue stack with the Shopify channel pointed at
// an in-process fake store (SHOPIFY_API_BASE), its waits recorded.
func shopifyStack(t *testing.T) (productPubStack, *shopifytest.Fake, *[]time.Duration) {
	t.Helper()
	fake := shopifytest.New(t, shopToken, map[string]string{"gid://shopify/Product/42": "Lounge Chair", "gid://shopify/Product/43": "Oak Table"})
	var mu sync.Mutex
	waits := &[]time.Duration{}
	svc := &shopify.Service{Key: shopify.TokenKey([]byte("creation-test-secret-0123456789abcdef")), APIBase: fake.Server.URL,
		Client: func(shop, token, base string) *shopify.Client {
			c := shopify.NewClient(shop, token, base)
			c.Sleep = func(_ context.Context, d time.Duration) error {
				mu.Lock()
				*waits = append(*waits, d)
				mu.Unlock()
				return nil
			}
			return c
		}}
	env := jobtest.New(t, creationBase)
	svc.DB = env.DB.Pool
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{}, publish.Projection{}))
	cat := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL)
	h := NewRouter(Deps{Logger: log, DB: env.DB.Pool, Tokens: tokens, MaxBodyBytes: 1 << 20, Uploads: env.Uploads, Jobs: env.Jobs,
		Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: cat, Shopify: svc, ChannelFiles: channels.NewQueue(env.River)})
	return productPubStack{creationStack: creationStack{env: env, h: h, tokens: tokens}}, fake, waits
}

// Issue 32, item 2, against a fake Shopify speaking the Admin GraphQL
// shapes: connect (the token is checked, kept sealed and never returned),
// search the store's products by title, send the model (staged upload →
// productCreateMedia with MODEL_3D and IMAGE), send again (the earlier
// media are replaced), THROTTLED answers waited out at the restore rate,
// userErrors shown as a clear message, another merchant's product a 404,
// and disconnect removing the token.
func TestShopifyConnectSearchSendAndReplace(t *testing.T) {
	t.Parallel()
	s, fake, waits := shopifyStack(t)
	user, id := s.readyProduct(t, "Lounge Chair")
	var thumb string
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT thumbnail_key FROM products WHERE id = $1`, id).Scan(&thumb))
	require.NotEmpty(t, thumb)
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), thumb, jobtest.PNG(t, 32, 32), nil))

	rec, r := s.json(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/42"})
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "shopify_not_connected", r.Error.Code)

	rec, r = s.json(t, user, "PUT", "/api/channels/shopify", map[string]any{"shop": "my-store.myshopify.com", "token": "shpat_wrong"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "shopify_token_refused", r.Error.Code)
	rec, r = s.json(t, user, "PUT", "/api/channels/shopify", map[string]any{"shop": "evil.example.com", "token": shopToken})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "invalid_shop", r.Error.Code)

	body := string(s.ok(t, user, "PUT", "/api/channels/shopify", map[string]any{"shop": "https://My-Store.myshopify.com/", "token": shopToken}))
	require.Contains(t, body, `"shop":"my-store.myshopify.com"`)
	require.Contains(t, body, `"connected":true`)
	require.NotContains(t, body, "shpat_")
	require.NotContains(t, string(s.ok(t, user, "GET", "/api/channels/shopify", nil)), "shpat_")
	var sealed []byte
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT token_sealed FROM channel_shopify WHERE user_id = $1`, user).Scan(&sealed))
	require.NotContains(t, string(sealed), shopToken, "the token is encrypted at rest")

	var found struct{ Items []shopify.Product }
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/channels/shopify/products?query=lounge", nil), &found))
	require.Equal(t, []shopify.Product{{ID: "gid://shopify/Product/42", Title: "Lounge Chair"}}, found.Items)

	// The commerce GLB is the worker's (security review 3, H1): until it
	// is made the send answers 503 and queues it.
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/42"})
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "channel_file_pending", r.Error.Code)
	require.Equal(t, "30", rec.Header().Get("Retry-After"))
	require.Empty(t, fake.MediaOf("gid://shopify/Product/42"))
	startModelWorker(t, s.env, s.env.Store)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var report struct{ Assets []channels.Asset }
		require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id+"/channels", nil), &report))
		if report.Assets[1].State == channels.StateReady {
			break
		}
		require.True(t, time.Now().Before(deadline), "commerce GLB still pending")
	}

	// First send, throttled twice on the way: waits follow the restore rate.
	fake.ThrottleNext = 2
	var sent shopify.Sent
	require.NoError(t, json.Unmarshal(s.ok(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/42"}), &sent))
	require.Len(t, *waits, 2)
	for _, w := range *waits {
		require.Equal(t, 500*time.Millisecond, w, "(60 requested − 10 available) / 100 restored per second")
	}
	require.Len(t, sent.Media, 2)
	require.Zero(t, sent.Replaced)
	media := fake.MediaOf("gid://shopify/Product/42")
	require.Len(t, media, 2)
	require.Equal(t, "MODEL_3D", media[0].Type)
	require.Equal(t, "IMAGE", media[1].Type)
	require.Equal(t, "Lounge Chair in 3D", media[0].Alt)
	gltfvalidate.Validate(t, fake.Uploads[media[0].Source])

	// Again: one model on the product, not two.
	require.NoError(t, json.Unmarshal(s.ok(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/42"}), &sent))
	require.Equal(t, 2, sent.Replaced)
	again := fake.MediaOf("gid://shopify/Product/42")
	require.Len(t, again, 2)
	require.NotEqual(t, media[0].ID, again[0].ID)

	// Shopify's userErrors become the merchant's message.
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/999"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "shopify_refused", r.Error.Code)
	require.Equal(t, "Shopify refused the media: productId: Product does not exist", r.Error.Message)
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "42; DROP"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "invalid_shopify_product", r.Error.Code)

	// Another merchant: not their product, and not their store.
	other := s.env.User(t)
	rec, _ = s.json(t, other, "POST", "/api/products/"+id+"/channels/shopify", map[string]any{"shopifyProductId": "gid://shopify/Product/42"})
	require.Equal(t, http.StatusNotFound, rec.Code)
	rec, r = s.json(t, other, "GET", "/api/channels/shopify/products?query=lounge", nil)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "shopify_not_connected", r.Error.Code)

	// Disconnect removes the token.
	rec, _ = s.json(t, user, "DELETE", "/api/channels/shopify", nil)
	require.Equal(t, http.StatusNoContent, rec.Code)
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM channel_shopify WHERE user_id = $1`, user).Scan(&n))
	require.Zero(t, n)
	require.True(t, strings.Contains(string(s.ok(t, user, "GET", "/api/channels/shopify", nil)), `"connected":false`))
}
