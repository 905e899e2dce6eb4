package httpapi

// Attack tests of issue 28's account and integrator findings (items 2, 10,
// 11, 12, 13 and 14), named TestSecurity… like the rest; README.md's
// "Security" table lists them.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"
)

// Item 13: a write-scope API key could start the trial and buy add-ons
// (money spent by a script, or by whoever stole its key). Trials, add-ons
// and billing are session-only; the same requests with a session work.
func TestSecurityAPIKeyCannotSpendMoney(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a := s.env.User(t)
	k := s.newKey(t, a, "shop sync", "read", "write", "publish")
	ctx := context.Background()
	before, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)

	for _, c := range []struct {
		path string
		body any
	}{
		{"/api/subscription/trial", map[string]any{}},
		{"/api/subscription/addons", map[string]any{"kind": "credits"}},
		{"/api/subscription/addons", map[string]any{"kind": "views"}},
		{"/api/subscription/plan", map[string]any{"plan": "pro"}},
	} {
		res, r := s.withKey(t, k.Secret, "POST", c.path, c.body, "Idempotency-Key", "k-"+c.path)
		require.Equal(t, http.StatusForbidden, res.StatusCode, c.path)
		require.Equal(t, "session_required", errCode(r), c.path)
		require.Contains(t, r.Error.Message, "trials, add-ons or billing", c.path)
	}
	after, err := s.env.Subs.Get(ctx, s.env.DB.Pool, a)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing was bought or started")
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND type <> 'subscription.opened.v1'`,
		"subscription-"+a).Scan(&n))
	require.Zero(t, n, "no subscription event")

	// The merchant, signed in, can.
	res, r := s.jsonCall(t, a, "POST", "/api/subscription/trial", map[string]any{})
	require.Less(t, res.StatusCode, 300, "%+v", r.Error)
	res, r = s.jsonCall(t, a, "POST", "/api/subscription/addons", map[string]any{"kind": "credits"})
	require.Less(t, res.StatusCode, 300, "%+v", r.Error)

	// Every route that spends money is session-only, whoever adds it later:
	// the router's POST/PUT/PATCH/DELETE under /api/subscription and every
	// route under /api/billing.
	var checked int
	require.NoError(t, chi.Walk(s.srv.Config.Handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		money := strings.HasPrefix(route, "/api/billing/") || strings.HasPrefix(route, "/api/subscription/") && method != "GET"
		if money {
			checked++
			require.True(t, sessionOnly(method, route), "%s %s must refuse API keys", method, route)
		}
		return nil
	}))
	require.GreaterOrEqual(t, checked, 3)
	require.True(t, sessionOnly("POST", "/api/billing/checkout"), "billing routes added later are covered by the prefix")
}

// Item 11: the webhook secret was not "shown once": an idempotent retry of
// POST /api/webhooks answered it again for 24 h (and idempotency_keys kept
// it). The replay now answers the endpoint with "secret": null and a note,
// and the stored answer never holds the secret.
func TestSecurityWebhookSecretIsNotReplayed(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user := s.env.User(t)
	post := func() *httptest.ResponseRecorder {
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		req := httptest.NewRequest("POST", "/api/webhooks", strings.NewReader(`{"url":"https://shop.example/hook","events":["lead.captured"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set(IdempotencyHeader, "register-hook-1")
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		return rec
	}
	first := post()
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var created struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &created))
	secret, _ := created.Data["secret"].(string)
	require.Regexp(t, `^whsec_`, secret)

	again := post()
	require.Equal(t, http.StatusCreated, again.Code, again.Body.String())
	require.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	require.NotContains(t, again.Body.String(), secret, "the replay does not repeat the secret")
	var replay struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(again.Body.Bytes(), &replay))
	require.Equal(t, created.Data["id"], replay.Data["id"], "the same endpoint, registered once")
	require.Nil(t, replay.Data["secret"])
	require.Contains(t, replay.Data["secretNote"], "shown once")

	var stored int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM idempotency_keys WHERE position($1::bytea IN body) > 0`, []byte(secret)).Scan(&stored))
	require.Zero(t, stored, "the secret is not kept for replays")
	var endpoints int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoints WHERE user_id = $1`, user).Scan(&endpoints))
	require.Equal(t, 1, endpoints)
}
