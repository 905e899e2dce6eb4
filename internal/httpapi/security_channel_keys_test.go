package httpapi

// Attack test of the third security review's L4: an API key could manage
// the merchant's Shopify connection (and use its stored Admin token to
// search their store) and rotate the Google feed URL. README.md's
// "Security" table lists it.

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/apikey"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels/googlefeed"
	"github.com/photo3d/photo3d/internal/channels/shopify"
	"github.com/photo3d/photo3d/internal/channels/shopify/shopifytest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/upload"
)

// newChannelKeyStack is the API-key stack with the channel routes mounted:
// Shopify against an in-process fake store, and the Google feed.
func newChannelKeyStack(t *testing.T) keyStack {
	t.Helper()
	fake := shopifytest.New(t, shopToken, map[string]string{"gid://shopify/Product/42": "Lounge Chair"})
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	env := jobtest.New(t, base)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{},
		publish.Projection{}, apikey.Projection{}))
	keys := apikey.NewService(env.DB.Pool, store)
	cat := catalog.NewService(env.DB.Pool, store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs})
	shop := &shopify.Service{DB: env.DB.Pool, Key: shopify.TokenKey([]byte("creation-test-secret-0123456789abcdef")), APIBase: fake.Server.URL}
	tokens := auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), base)
	srv.Config.Handler = NewRouter(Deps{Logger: log, DB: env.DB.Pool, Tokens: tokens, MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: cat, APIKeys: keys,
		Shopify: shop, Feeds: &googlefeed.Service{DB: env.DB.Pool, BaseURL: base}})
	srv.Start()
	t.Cleanup(srv.Close)
	return keyStack{liveStack: liveStack{env: env, srv: srv, tokens: tokens}, keys: keys}
}

// L4: a leaked integration key (read, write and publish) could point the
// merchant's Shopify connection at the attacker's store (the next "Send to
// Shopify" goes there), disconnect it, search the merchant's store with
// their Admin token, or break the Merchant Center feed by rotating its URL.
// All four are session-only now; the merchant, signed in, still can.
func TestSecurityAPIKeyCannotManageShopifyOrRotateFeed(t *testing.T) {
	t.Parallel()
	s := newChannelKeyStack(t)
	merchant := s.env.User(t)
	res, r := s.jsonCall(t, merchant, "PUT", "/api/channels/shopify", map[string]any{"shop": "merchant.myshopify.com", "token": shopToken})
	require.Equal(t, http.StatusOK, res.StatusCode, "%+v", r.Error)
	res, r = s.jsonCall(t, merchant, "GET", "/api/channels/google-feed", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "%+v", r.Error)
	feed := decodeAs[map[string]string](t, r.Data)["url"]
	require.NotEmpty(t, feed)

	key := s.newKey(t, merchant, "shop sync", "read", "write", "publish")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		// The attacker's store, with a token the (fake) store accepts.
		{"PUT", "/api/channels/shopify", map[string]any{"shop": "attacker.myshopify.com", "token": shopToken}},
		{"GET", "/api/channels/shopify/products?query=lounge", nil},
		{"POST", "/api/channels/google-feed/rotate", nil},
		{"DELETE", "/api/channels/shopify", nil},
	} {
		res, r := s.withKey(t, key.Secret, c.method, c.path, c.body)
		require.Equal(t, http.StatusForbidden, res.StatusCode, "%s %s answered %+v %s", c.method, c.path, r.Error, r.Data)
		require.Equal(t, "session_required", errCode(r), "%s %s", c.method, c.path)
	}

	// Nothing changed: the merchant's store, still connected; the same feed URL.
	res, r = s.jsonCall(t, merchant, "GET", "/api/channels/shopify", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	conn := decodeAs[map[string]any](t, r.Data)
	require.Equal(t, "merchant.myshopify.com", conn["shop"])
	require.Equal(t, true, conn["connected"])
	res, r = s.jsonCall(t, merchant, "GET", "/api/channels/google-feed", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, feed, decodeAs[map[string]string](t, r.Data)["url"])

	// A read key still sees whether a store is connected (no token in it).
	res, r = s.withKey(t, key.Secret, "GET", "/api/channels/shopify", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "%+v", r.Error)
	require.NotContains(t, string(r.Data), "shpat_")

	// The merchant, signed in, manages the connection and the feed.
	res, r = s.jsonCall(t, merchant, "GET", "/api/channels/shopify/products?query=lounge", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "%+v", r.Error)
	res, r = s.jsonCall(t, merchant, "POST", "/api/channels/google-feed/rotate", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "%+v", r.Error)
	require.NotEqual(t, feed, decodeAs[map[string]string](t, r.Data)["url"])
	res, _ = s.jsonCall(t, merchant, "DELETE", "/api/channels/shopify", nil)
	require.Equal(t, http.StatusNoContent, res.StatusCode)
}
