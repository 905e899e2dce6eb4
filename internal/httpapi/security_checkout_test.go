package httpapi

// Attack test of the third security review's L5: one signed-in user could
// create Stripe Checkout Sessions without limit, spending the platform
// account's Stripe rate limit for every merchant. README.md's "Security"
// table lists it.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
)

// sessionCounter forwards to stripe-mock and counts the Checkout Sessions
// created, remembering the id of the last one.
type sessionCounter struct {
	mu      sync.Mutex
	created int
	lastID  string
}

func (c *sessionCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != "POST" || r.URL.Path != "/v1/checkout/sessions" {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	var s struct{ ID string }
	_ = json.Unmarshal(body, &s)
	c.mu.Lock()
	c.created++
	c.lastID = s.ID
	c.mu.Unlock()
	return res, nil
}

func (c *sessionCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.created
}

// L5: 40 clicks on "Buy 100 view packs" in 0.3 s made 40 Checkout Sessions
// at Stripe. Now a click reuses the account's open session for the same
// purchase (until it is paid or near its end), and an account may start
// at most 10 checkouts a minute (429 with Retry-After past that).
func TestSecurityCheckoutSessionsAreLimitedAndReused(t *testing.T) {
	t.Parallel()
	stripeMock := &sessionCounter{}
	p, err := stripebilling.New(stripebilling.Config{SecretKey: "sk_test_0123456789abcdef0123456789abcdef",
		WebhookSecret: testWebhookSecret, PricePro: "price_pro_inr", PriceCredits: "price_credits_inr",
		PriceViews: "price_views_inr", APIBase: stripeAPIBase(t), HTTPClient: &http.Client{Transport: stripeMock}})
	require.NoError(t, err)
	sb := &stripeBundle{}
	now := time.Now().UTC()
	sb.clock.Store(&now)
	sb.acctBundle = acctSetup(t, acctOpts{billing: subscription.BillingFor("stripe"), checkout: p, webhooks: p,
		subsNow: func() time.Time { return *sb.clock.Load() }})
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	checkout := func(body string) (int, string) {
		t.Helper()
		rec, r := sb.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: body})
		if rec.Code != http.StatusOK {
			return rec.Code, ""
		}
		return rec.Code, acctData[struct{ URL string }](t, r).URL
	}
	const views = `{"kind":"views","packs":100}`

	// Five clicks on the same purchase: one session at Stripe, one URL.
	code, first := checkout(views)
	require.Equal(t, http.StatusOK, code)
	for range 4 {
		code, url := checkout(views)
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, first, url)
	}
	require.Equal(t, 1, stripeMock.count(), "the open session is reused")
	viewsSession := stripeMock.lastID

	// Another purchase is another session.
	code, _ = checkout(`{"kind":"credits","packs":3}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 2, stripeMock.count())

	// A completed session is never handed out again.
	sb.ok(t, stripeEvent("evt_views_paid", "checkout.session.completed", time.Now(),
		checkoutSession(viewsSession, ada.User.ID, sb.customerOf(t, ada.User.ID), "views", 100, "")))
	code, _ = checkout(views)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 3, stripeMock.count(), "paid: a new session for the next purchase")

	// Nor one about to expire.
	sb.advance(24 * time.Hour)
	code, _ = checkout(views)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 4, stripeMock.count(), "expired: a new session")

	// Ten checkouts a minute per account, reused or not; then 429.
	for range 2 {
		code, _ = checkout(views)
		require.Equal(t, http.StatusOK, code)
	}
	rec, r := sb.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: views})
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	require.Equal(t, "rate_limited", r.Error.Code)
	require.NotEmpty(t, rec.Header().Get("Retry-After"))
	require.Equal(t, 4, stripeMock.count())

	// Another merchant is not limited by Ada's clicks.
	bob := sb.signup(t, "bob@example.com", "password1", "Bob")
	rec, _ = sb.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: bob.Token, body: views})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}
