package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	stripe "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
)

// The Stripe tests talk to stripe-mock (STRIPE_API_BASE, started by
// ops/test.sh) for every API call and post webhooks signed exactly as
// Stripe signs them (webhook.GenerateTestSignedPayload).

const testWebhookSecret = "whsec_test_0123456789abcdef0123456789abcdef"

func stripeAPIBase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("STRIPE_API_BASE")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("STRIPE_API_BASE is not set: ops/test.sh starts stripe-mock and sets it")
		}
		t.Skip("STRIPE_API_BASE is not set: run through `make test` (ops/test.sh starts stripe-mock)")
	}
	return base
}

func newStripeProvider(t *testing.T, base string) *stripebilling.Provider {
	t.Helper()
	p, err := stripebilling.New(stripebilling.Config{SecretKey: "sk_test_0123456789abcdef0123456789abcdef",
		WebhookSecret: testWebhookSecret, PricePro: "price_pro_inr", PriceCredits: "price_credits_inr",
		PriceViews: "price_views_inr", APIBase: base})
	require.NoError(t, err)
	return p
}

type stripeBundle struct {
	*acctBundle
	clock atomic.Pointer[time.Time]
	seq   int
}

func stripeSetup(t *testing.T, base string) *stripeBundle {
	sb := &stripeBundle{}
	now := time.Now().UTC()
	sb.clock.Store(&now)
	p := newStripeProvider(t, base)
	sb.acctBundle = acctSetup(t, acctOpts{billing: subscription.BillingFor("stripe"), checkout: p, webhooks: p,
		subsNow: func() time.Time { return *sb.clock.Load() }})
	return sb
}

func (sb *stripeBundle) advance(d time.Duration) {
	n := sb.clock.Load().Add(d)
	sb.clock.Store(&n)
}

// stripeEvent is a Stripe event envelope around obj, as Stripe sends it.
func stripeEvent(id, typ string, created time.Time, obj map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": stripe.APIVersion,
		"created": created.Unix(), "livemode": false, "pending_webhooks": 1, "type": typ,
		"data": map[string]any{"object": obj}})
	return b
}

// deliver posts payload signed with secret at signedAt, with no session.
func (sb *stripeBundle) deliver(t *testing.T, payload []byte, secret string, signedAt time.Time) (int, acctReply) {
	t.Helper()
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: signedAt})
	rec, r := sb.send(t, acctReq{method: "POST", path: "/api/billing/stripe/webhook", raw: payload,
		contentType: "application/json", header: http.Header{"Stripe-Signature": {sp.Header}}})
	return rec.Code, r
}

func (sb *stripeBundle) ok(t *testing.T, payload []byte) string {
	t.Helper()
	code, r := sb.deliver(t, payload, testWebhookSecret, time.Now())
	require.Equal(t, 200, code, string(r.Data))
	return acctData[struct{ Outcome string }](t, r).Outcome
}

func (sb *stripeBundle) view(t *testing.T, token string) subscription.View {
	t.Helper()
	rec, r := sb.send(t, acctReq{method: "GET", path: "/api/subscription", token: token})
	require.Equal(t, 200, rec.Code, rec.Body.String())
	return acctData[subscription.View](t, r)
}

func checkoutSession(id, user, customer, kind string, packs int64, sub string) map[string]any {
	o := map[string]any{"id": id, "object": "checkout.session", "client_reference_id": user, "customer": customer,
		"payment_status": "paid", "status": "complete", "currency": "inr", "amount_total": 199900,
		"mode": "subscription", "metadata": map[string]string{"kind": kind, "packs": fmt.Sprint(packs), "user_id": user}}
	if sub != "" {
		o["subscription"] = sub
	} else {
		o["mode"] = "payment"
		o["amount_total"] = packs * 50000
	}
	return o
}

func stripeSubscription(id, customer, status string, periodEnd time.Time, cancelAtEnd bool) map[string]any {
	return map[string]any{"id": id, "object": "subscription", "customer": customer, "status": status,
		"cancel_at_period_end": cancelAtEnd, "items": map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "si_1", "object": "subscription_item", "current_period_end": periodEnd.Unix()}}}}
}

func stripeInvoice(id, customer, sub string) map[string]any {
	return map[string]any{"id": id, "object": "invoice", "customer": customer, "currency": "inr",
		"amount_paid": 199900, "amount_due": 199900,
		"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{"subscription": sub}}}
}

func (sb *stripeBundle) customerOf(t *testing.T, userID string) string {
	t.Helper()
	var c string
	require.NoError(t, sb.db.Pool.QueryRow(context.Background(),
		`SELECT COALESCE(billing_customer_id, '') FROM subscriptions WHERE user_id = $1`, userID).Scan(&c))
	return c
}

// TestStripeCheckoutAndWebhooks is the money path of issue 30 against
// stripe-mock: Checkout grants nothing by itself; only a paid, signed
// checkout.session.completed makes Pro; repeats and late, older events
// are applied once or not at all; a bad signature changes nothing; a
// failed renewal keeps Pro for the grace period and then ends it.
func TestStripeCheckoutAndWebhooks(t *testing.T) {
	t.Parallel()
	sb := stripeSetup(t, stripeAPIBase(t))
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	bob := sb.signup(t, "bob@example.com", "password1", "Bob")
	sb.newEvents(t)

	// Upgrade: a Checkout URL, the customer created once and remembered.
	checkout := acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: `{"kind":"pro"}`}
	rec, r := sb.send(t, checkout)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	url := acctData[struct{ URL string }](t, r).URL
	require.True(t, strings.HasPrefix(url, "https://"), url)
	require.Equal(t, []string{"subscription.billing_customer_linked.v1"}, sb.newEvents(t))
	customer := sb.customerOf(t, ada.User.ID)
	require.True(t, strings.HasPrefix(customer, "cus_"), customer)
	rec, _ = sb.send(t, checkout)
	require.Equal(t, 200, rec.Code)
	require.Empty(t, sb.newEvents(t), "the customer is remembered, not created again")
	require.Equal(t, customer, sb.customerOf(t, ada.User.ID))
	v := sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanFree, v.EffectivePlan, "starting Checkout grants nothing")
	require.Equal(t, "checkout", v.Billing.Purchases)
	require.True(t, v.Billing.CanManage)

	sb.run(t, []scenario{
		{"bad kind", acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: `{"kind":"gold"}`},
			400, "invalid_checkout_kind", `Kind must be "pro", "credits" or "views".`, nil},
		{"too many packs", acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: `{"kind":"credits","packs":101}`},
			400, "invalid_packs", "Choose between 1 and 100 packs.", nil},
		{"no session", acctReq{method: "POST", path: "/api/billing/checkout", body: `{"kind":"pro"}`},
			401, "unauthorized", "Please sign in to continue.", nil},
		{"direct upgrade refused: pay through Checkout", acctReq{method: "POST", path: "/api/subscription/plan", token: ada.Token, body: `{"plan":"pro"}`},
			409, "checkout_required", "Purchases on this server are paid through Checkout: use the Upgrade or Buy buttons on the Subscription page.", nil},
		{"direct add-on refused", acctReq{method: "POST", path: "/api/subscription/addons", token: ada.Token, body: `{"kind":"credits"}`},
			409, "checkout_required", "Purchases on this server are paid through Checkout: use the Upgrade or Buy buttons on the Subscription page.", nil},
		{"portal without a customer", acctReq{method: "POST", path: "/api/billing/portal", token: bob.Token},
			409, "no_billing_account", "There is nothing to manage yet: billing starts with your first payment.", nil},
	})

	t0 := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	paid := stripeEvent("evt_paid_pro", "checkout.session.completed", t0,
		checkoutSession("cs_test_pro", ada.User.ID, customer, "pro", 1, "sub_ada"))

	// Bad signatures change nothing: wrong secret, tampered body, stale timestamp.
	for name, try := range map[string]func() (int, acctReply){
		"wrong secret": func() (int, acctReply) { return sb.deliver(t, paid, "whsec_someone_else_0123456789abcdef", time.Now()) },
		"tampered": func() (int, acctReply) {
			sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: paid, Secret: testWebhookSecret, Timestamp: time.Now()})
			body := []byte(strings.Replace(string(paid), `"pro"`, `"pro" `, 1))
			rec, r := sb.send(t, acctReq{method: "POST", path: "/api/billing/stripe/webhook", raw: body, contentType: "application/json",
				header: http.Header{"Stripe-Signature": {sp.Header}}})
			return rec.Code, r
		},
		"older than 5 minutes": func() (int, acctReply) { return sb.deliver(t, paid, testWebhookSecret, time.Now().Add(-6*time.Minute)) },
		"no signature": func() (int, acctReply) {
			rec, r := sb.send(t, acctReq{method: "POST", path: "/api/billing/stripe/webhook", raw: paid, contentType: "application/json"})
			return rec.Code, r
		},
	} {
		code, r := try()
		require.Equal(t, 400, code, name)
		require.Equal(t, "invalid_signature", r.Error.Code, name)
		require.Empty(t, sb.newEvents(t), name)
	}
	var ledger int
	require.NoError(t, sb.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM billing_provider_events`).Scan(&ledger))
	require.Zero(t, ledger, "a refused delivery leaves no ledger row")
	require.Equal(t, subscription.PlanFree, sb.view(t, ada.Token).EffectivePlan)

	// Paid checkout → Pro, once.
	require.Equal(t, "applied", sb.ok(t, paid))
	require.Equal(t, []string{"subscription.payment_received.v1", "subscription.plan_changed.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	v = sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanPro, v.Plan)
	require.Equal(t, "active", v.Billing.Status)
	require.True(t, v.CanSharePublic)
	require.Equal(t, "duplicate", sb.ok(t, paid), "a repeated delivery")
	require.Empty(t, sb.newEvents(t))
	require.Equal(t, "duplicate", sb.ok(t, stripeEvent("evt_paid_pro_again", "checkout.session.completed", t0,
		checkoutSession("cs_test_pro", ada.User.ID, customer, "pro", 1, "sub_ada"))), "the same session under another event id")
	require.Empty(t, sb.newEvents(t))

	// Out of order: the subscription's creation (still incomplete) arrives
	// after the paid checkout it preceded; it must not undo Pro.
	require.Equal(t, "stale", sb.ok(t, stripeEvent("evt_sub_created", "customer.subscription.created", t0.Add(-time.Second),
		stripeSubscription("sub_ada", customer, "incomplete", t0.Add(30*24*time.Hour), false))))
	require.Empty(t, sb.newEvents(t))
	require.Equal(t, subscription.PlanPro, sb.view(t, ada.Token).EffectivePlan)

	// Events in the card data's place carry only Stripe ids.
	var data string
	require.NoError(t, sb.db.Pool.QueryRow(context.Background(),
		`SELECT data::text FROM events WHERE type = 'subscription.payment_received.v1'`).Scan(&data))
	require.Contains(t, data, `"checkoutSessionId": "cs_test_pro"`)
	require.NotContains(t, data, "card")

	// Renewal fails: Pro stays for 7 days with a notice, then Free.
	t1 := t0.Add(30 * 24 * time.Hour)
	sb.advance(30 * 24 * time.Hour)
	failed := stripeEvent("evt_inv_failed", "invoice.payment_failed", t1, stripeInvoice("in_renew", customer, "sub_ada"))
	require.Equal(t, "applied", sb.ok(t, failed))
	require.Equal(t, []string{"subscription.payment_failed.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	require.Equal(t, "duplicate", sb.ok(t, failed))
	v = sb.view(t, ada.Token)
	require.True(t, v.Billing.PaymentFailed)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	require.WithinDuration(t, t1.Add(7*24*time.Hour), *v.Billing.GraceUntil, time.Second)
	// A late, older invoice.paid (the previous month's) is a payment on
	// record but does not clear the newer failure.
	require.Equal(t, "stale", sb.ok(t, stripeEvent("evt_inv_old_paid", "invoice.paid", t1.Add(-time.Hour), stripeInvoice("in_old", customer, "sub_ada"))))
	require.Equal(t, []string{"subscription.payment_received.v1"}, sb.newEvents(t))
	require.True(t, sb.view(t, ada.Token).Billing.PaymentFailed)

	sb.advance(6 * 24 * time.Hour)
	require.True(t, sb.view(t, ada.Token).CanSharePublic, "share pages keep working during the grace period")
	sb.advance(25 * time.Hour)
	v = sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanFree, v.EffectivePlan, "grace over: Free at once")
	require.False(t, v.CanSharePublic)
	require.False(t, v.Billing.PaymentFailed)

	// Stripe's retries succeed after all: Pro again, grace cleared.
	require.Equal(t, "applied", sb.ok(t, stripeEvent("evt_inv_retry_paid", "invoice.paid", t1.Add(8*24*time.Hour), stripeInvoice("in_renew", customer, "sub_ada"))))
	require.Equal(t, []string{"subscription.payment_received.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	v = sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	require.Nil(t, v.Billing.GraceUntil)

	// Cancel in the portal: "Pro until DATE", then Free when it ends.
	rec, r = sb.send(t, acctReq{method: "POST", path: "/api/billing/portal", token: ada.Token})
	require.Equal(t, 200, rec.Code, rec.Body.String())
	require.NotEmpty(t, acctData[struct{ URL string }](t, r).URL)
	end := t1.Add(30 * 24 * time.Hour)
	require.Equal(t, "applied", sb.ok(t, stripeEvent("evt_sub_cancel", "customer.subscription.updated", t1.Add(9*24*time.Hour),
		stripeSubscription("sub_ada", customer, "active", end, true))))
	require.Equal(t, []string{"subscription.billing_synced.v1"}, sb.newEvents(t))
	v = sb.view(t, ada.Token)
	require.True(t, v.Billing.CancelAtPeriodEnd)
	require.WithinDuration(t, end, *v.Billing.CurrentPeriodEnd, time.Second)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	sb.run(t, []scenario{{"downgrade goes through the portal", acctReq{method: "POST", path: "/api/subscription/plan", token: ada.Token, body: `{"plan":"free"}`},
		409, "cancel_in_billing_portal", "Your paid Pro subscription is cancelled in Manage billing; it stays active until the end of the period you paid for.", nil}})
	deleted := stripeEvent("evt_sub_deleted", "customer.subscription.deleted", end, stripeSubscription("sub_ada", customer, "canceled", end, true))
	// ... and an "active" update that was sent before the deletion but
	// arrives after it changes nothing.
	require.Equal(t, "applied", sb.ok(t, deleted))
	require.Equal(t, "stale", sb.ok(t, stripeEvent("evt_sub_late_update", "customer.subscription.updated", end.Add(-time.Hour),
		stripeSubscription("sub_ada", customer, "active", end, false))))
	require.Equal(t, []string{"subscription.plan_changed.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	v = sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanFree, v.Plan)
	require.Equal(t, "canceled", v.Billing.Status)

	// Unknown customers are acknowledged (Stripe stops retrying) and ignored.
	require.Equal(t, "unknown_customer", sb.ok(t, stripeEvent("evt_other", "invoice.paid", end, stripeInvoice("in_x", "cus_nobody", "sub_x"))))
	require.Empty(t, sb.newEvents(t))
	require.Equal(t, "ignored", sb.ok(t, stripeEvent("evt_unrelated", "charge.refunded", end, map[string]any{"id": "ch_1", "object": "charge"})))
}

// TestStripeAddonPacks: a paid add-on Checkout raises the balance exactly
// once, whatever the deliveries; an unpaid one raises nothing.
func TestStripeAddonPacks(t *testing.T) {
	t.Parallel()
	sb := stripeSetup(t, stripeAPIBase(t))
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	rec, _ := sb.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: `{"kind":"credits","packs":2}`})
	require.Equal(t, 200, rec.Code, rec.Body.String())
	customer := sb.customerOf(t, ada.User.ID)
	sb.newEvents(t)
	before := *sb.view(t, ada.Token).AICreditBalance

	unpaid := checkoutSession("cs_credits_unpaid", ada.User.ID, customer, "credits", 2, "")
	unpaid["payment_status"] = "unpaid"
	require.Equal(t, "ignored", sb.ok(t, stripeEvent("evt_unpaid", "checkout.session.completed", time.Now(), unpaid)))
	require.Equal(t, before, *sb.view(t, ada.Token).AICreditBalance)

	paid := stripeEvent("evt_credits", "checkout.session.completed", time.Now(), checkoutSession("cs_credits", ada.User.ID, customer, "credits", 2, ""))
	for range 3 {
		sb.ok(t, paid)
	}
	require.Equal(t, before+40, *sb.view(t, ada.Token).AICreditBalance, "2 packs of 20, once")
	require.Equal(t, []string{"subscription.payment_received.v1", "subscription.addon_purchased.v1"}, sb.newEvents(t))

	views := stripeEvent("evt_views", "checkout.session.completed", time.Now(), checkoutSession("cs_views", ada.User.ID, customer, "views", 1, ""))
	require.Equal(t, "applied", sb.ok(t, views))
	require.Equal(t, int64(10000), sb.view(t, ada.Token).PublicViewsPurchased)
	var price int64
	require.NoError(t, sb.db.Pool.QueryRow(context.Background(),
		`SELECT (data->>'priceInr')::bigint FROM events WHERE type = 'subscription.addon_purchased.v1' AND data->>'kind' = 'credits'`).Scan(&price))
	require.Equal(t, int64(1000), price)
}

// TestStripeTrialConvertsOnlyByPayment: a trial needs no card and ends in
// Pro only when Stripe confirms a payment.
func TestStripeTrialConvertsOnlyByPayment(t *testing.T) {
	t.Parallel()
	sb := stripeSetup(t, stripeAPIBase(t))
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	rec, _ := sb.send(t, acctReq{method: "POST", path: "/api/subscription/trial", token: ada.Token, body: `{}`})
	require.Equal(t, 200, rec.Code, rec.Body.String())
	v := sb.view(t, ada.Token)
	require.True(t, v.TrialActive)
	require.Equal(t, subscription.PlanFree, v.Plan)
	rec, _ = sb.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: `{"kind":"pro"}`})
	require.Equal(t, 200, rec.Code, "Checkout is offered during the trial: %s", rec.Body.String())
	sb.advance(8 * 24 * time.Hour)
	require.Equal(t, subscription.PlanFree, sb.view(t, ada.Token).EffectivePlan, "the trial ends without payment")
	customer := sb.customerOf(t, ada.User.ID)
	sb.ok(t, stripeEvent("evt_trial_paid", "checkout.session.completed", time.Now(), checkoutSession("cs_trial", ada.User.ID, customer, "pro", 1, "sub_t")))
	v = sb.view(t, ada.Token)
	require.Equal(t, subscription.PlanPro, v.Plan)
	require.False(t, v.TrialActive)
}

// TestAPIKeysNeverReachBilling: a leaked API key, whatever its scopes,
// cannot start a payment or open the merchant's billing account; and every
// billing route but the provider's webhook is session-only, so a route
// added later cannot forget it.
func TestAPIKeysNeverReachBilling(t *testing.T) {
	t.Parallel()
	s := newKeyStack(t, 0, false)
	a := s.env.User(t)
	key := s.newKey(t, a, "everything", "read", "write", "publish")
	for _, path := range []string{"/api/billing/checkout", "/api/billing/portal"} {
		res, r := s.withKey(t, key.Secret, "POST", path, map[string]any{"kind": "pro"})
		require.Equal(t, http.StatusForbidden, res.StatusCode, path)
		require.Equal(t, "session_required", errCode(r), path)
	}
	for route := range routedAPI(t, NewRouter(everyRouteDeps())) {
		if strings.Contains(route, "/api/billing/") && route != "POST /api/billing/stripe/webhook" {
			require.True(t, sessionOnlyRoutes[route], "%s must be in sessionOnlyRoutes", route)
		}
	}
}

// TestStripeWebhookNeedsNoSession: the webhook route is outside session
// auth (Stripe has no token) and refuses everything unsigned.
func TestStripeWebhookNeedsNoSession(t *testing.T) {
	t.Parallel()
	sb := stripeSetup(t, stripeAPIBase(t))
	code, r := sb.deliver(t, stripeEvent("evt_x", "invoice.paid", time.Now(), stripeInvoice("in_1", "cus_1", "sub_1")), testWebhookSecret, time.Now())
	require.Equal(t, 200, code)
	require.Equal(t, "unknown_customer", acctData[struct{ Outcome string }](t, r).Outcome)
}

// TestStripeReconciliationRepairsDrift: a missed invoice.paid (we believe
// past_due, Stripe says active) is repaired from stripe-mock's answer; a
// second run changes nothing.
func TestStripeReconciliationRepairsDrift(t *testing.T) {
	t.Parallel()
	sb := stripeSetup(t, stripeAPIBase(t))
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	t0 := time.Now().Add(-time.Hour).UTC()
	sb.ok(t, stripeEvent("evt_r_paid", "checkout.session.completed", t0, checkoutSession("cs_r", ada.User.ID, "cus_r", "pro", 1, "sub_r")))
	sb.ok(t, stripeEvent("evt_r_failed", "invoice.payment_failed", t0.Add(time.Minute), stripeInvoice("in_r", "cus_r", "sub_r")))
	require.True(t, sb.view(t, ada.Token).Billing.PaymentFailed)
	sb.newEvents(t)

	n, err := sb.subs.Reconcile(context.Background(), sb.db.Pool)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"subscription.billing_synced.v1"}, sb.newEvents(t))
	var source string
	require.NoError(t, sb.db.Pool.QueryRow(context.Background(),
		`SELECT data->>'source' FROM events WHERE type = 'subscription.billing_synced.v1' ORDER BY position DESC LIMIT 1`).Scan(&source))
	require.Equal(t, "reconcile", source)
	v := sb.view(t, ada.Token)
	require.False(t, v.Billing.PaymentFailed)
	require.Equal(t, "active", v.Billing.Status)
	n, err = sb.subs.Reconcile(context.Background(), sb.db.Pool)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to repair")
	require.Empty(t, sb.newEvents(t))
}

// stripeSubscriptions is an in-process server answering GET
// /v1/subscriptions/{id} in Stripe's shape with a status the test sets:
// stripe-mock is stateless (it always answers "active"), so the states a
// reconciliation must act on (past_due, canceled) come from here, and so
// does the period end (fixed until the test moves it: a clock read per
// request would move it whenever a second ticks between two passes).
func stripeSubscriptions(t *testing.T, status *atomic.Value, periodEnd *atomic.Pointer[time.Time]) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/v1/subscriptions/")
		if r.Method != "GET" || !ok {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(stripeSubscription(id, "cus_r", status.Load().(string), *periodEnd.Load(), false))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestStripeReconciliationEndsGraceAndMissedCancellations: Pro falls back
// to Free when the grace period ran out (the worker appends it), and a
// cancellation whose webhook never came is found.
func TestStripeReconciliationEndsGraceAndMissedCancellations(t *testing.T) {
	t.Parallel()
	var status atomic.Value
	status.Store("past_due")
	var periodEnd atomic.Pointer[time.Time]
	end := time.Now().Add(20 * 24 * time.Hour).UTC().Truncate(time.Second)
	periodEnd.Store(&end)
	sb := stripeSetup(t, stripeSubscriptions(t, &status, &periodEnd))
	ada := sb.signup(t, "ada@example.com", "password1", "Ada")
	bob := sb.signup(t, "bob@example.com", "password1", "Bob")
	t0 := time.Now().Add(-time.Hour).UTC()
	sb.ok(t, stripeEvent("evt_a_paid", "checkout.session.completed", t0, checkoutSession("cs_a", ada.User.ID, "cus_r", "pro", 1, "sub_a")))
	sb.ok(t, stripeEvent("evt_a_failed", "invoice.payment_failed", t0.Add(time.Minute), stripeInvoice("in_a", "cus_r", "sub_a")))
	sb.ok(t, stripeEvent("evt_b_paid", "checkout.session.completed", t0, checkoutSession("cs_b", bob.User.ID, "cus_b", "pro", 1, "sub_b")))
	sb.newEvents(t)

	ctx := context.Background()
	n, err := sb.subs.Reconcile(ctx, sb.db.Pool) // ada keeps her grace (and learns the period end); bob's starts
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []string{"subscription.billing_synced.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	require.Equal(t, subscription.PlanPro, sb.view(t, ada.Token).EffectivePlan)
	require.True(t, sb.view(t, bob.Token).Billing.PaymentFailed)

	// The grace runs out on the same pass that Stripe moves the period end
	// (still past_due): the new state is recorded and Pro still ends.
	sb.advance(8 * 24 * time.Hour)
	moved := end.Add(time.Hour)
	periodEnd.Store(&moved)
	n, err = sb.subs.Reconcile(ctx, sb.db.Pool)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []string{"subscription.plan_changed.v1", "subscription.billing_synced.v1",
		"subscription.plan_changed.v1", "subscription.billing_synced.v1"}, sb.newEvents(t))
	for _, tok := range []string{ada.Token, bob.Token} {
		v := sb.view(t, tok)
		require.Equal(t, subscription.PlanFree, v.Plan)
		require.Nil(t, v.Billing.GraceUntil)
		require.WithinDuration(t, moved, *v.Billing.CurrentPeriodEnd, 0, "the provider's new period end is recorded")
	}
	var reasons []string
	rows, err := sb.db.Pool.Query(ctx, `SELECT data->>'reason' FROM events WHERE type = 'subscription.plan_changed.v1' AND data->>'to' = 'free'`)
	require.NoError(t, err)
	reasons, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"grace_expired", "grace_expired"}, reasons)
	n, err = sb.subs.Reconcile(ctx, sb.db.Pool)
	require.NoError(t, err)
	require.Zero(t, n, "an ended grace never restarts")

	// Stripe finally cancels; the webhook is lost; reconciliation records it.
	status.Store("canceled")
	n, err = sb.subs.Reconcile(ctx, sb.db.Pool)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, "canceled", sb.view(t, ada.Token).Billing.Status)
	n, err = sb.subs.Reconcile(ctx, sb.db.Pool)
	require.NoError(t, err)
	require.Zero(t, n, "canceled subscriptions are no longer polled")
}

// TestSecurityStripeKeyNeverInErrors: an API error that quotes the
// Authorization header (stripe-mock's 401 does) reaches the logs without
// the secret key.
func TestSecurityStripeKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	const key = "sk_test_not_a_valid_looking_key_0123456789abcdef"
	p, err := stripebilling.New(stripebilling.Config{SecretKey: key, WebhookSecret: testWebhookSecret,
		PricePro: "price_pro", PriceCredits: "price_c", PriceViews: "price_v", APIBase: stripeAPIBase(t)})
	require.NoError(t, err)
	_, err = p.CreateCustomer(context.Background(), "u1", "a@example.com")
	require.Error(t, err)
	require.Contains(t, err.Error(), "[redacted]", "stripe-mock quotes the key it refused: %v", err)
	require.NotContains(t, err.Error(), key)
}

// recorder forwards to stripe-mock and keeps each request's form, so a test
// can read exactly what the server asked Stripe for.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, path string
	form         url.Values
}

func (rc *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	form, _ := url.ParseQuery(string(body))
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{r.Method, r.URL.Path, form})
	rc.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (rc *recorder) posts(path string) []url.Values {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []url.Values
	for _, r := range rc.reqs {
		if r.method == "POST" && r.path == path {
			out = append(out, r.form)
		}
	}
	return out
}

// TestStripeCheckoutSessionParameters: what the server asks Stripe for —
// subscription mode for Pro, a one-time payment with quantity = packs for
// add-ons, the user id as client_reference_id, metadata.kind/packs, the
// remembered customer, and return URLs to the subscription page.
func TestStripeCheckoutSessionParameters(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	p, err := stripebilling.New(stripebilling.Config{SecretKey: "sk_test_0123456789abcdef0123456789abcdef",
		WebhookSecret: testWebhookSecret, PricePro: "price_pro_inr", PriceCredits: "price_credits_inr",
		PriceViews: "price_views_inr", APIBase: stripeAPIBase(t), HTTPClient: &http.Client{Transport: rec}})
	require.NoError(t, err)
	b := acctSetup(t, acctOpts{billing: subscription.BillingFor("stripe"), checkout: p, webhooks: p})
	ada := b.signup(t, "ada@example.com", "password1", "Ada")
	for _, body := range []string{`{"kind":"pro"}`, `{"kind":"credits","packs":3}`, `{"kind":"views"}`} {
		res, r := b.send(t, acctReq{method: "POST", path: "/api/billing/checkout", token: ada.Token, body: body})
		require.Equal(t, 200, res.Code, "%s: %s", body, r.Data)
	}
	customers := rec.posts("/v1/customers")
	require.Len(t, customers, 1, "one customer, remembered")
	require.Equal(t, ada.User.ID, customers[0].Get("metadata[user_id]"))
	require.Equal(t, "ada@example.com", customers[0].Get("email"))

	sessions := rec.posts("/v1/checkout/sessions")
	require.Len(t, sessions, 3)
	want := []struct{ mode, price, qty, kind, packs string }{
		{"subscription", "price_pro_inr", "1", "pro", "1"},
		{"payment", "price_credits_inr", "3", "credits", "3"},
		{"payment", "price_views_inr", "1", "views", "1"},
	}
	for i, w := range want {
		f := sessions[i]
		require.Equal(t, w.mode, f.Get("mode"), w.kind)
		require.Equal(t, w.price, f.Get("line_items[0][price]"), w.kind)
		require.Equal(t, w.qty, f.Get("line_items[0][quantity]"), w.kind)
		require.Equal(t, w.kind, f.Get("metadata[kind]"))
		require.Equal(t, w.packs, f.Get("metadata[packs]"))
		require.Equal(t, ada.User.ID, f.Get("client_reference_id"))
		require.True(t, strings.HasPrefix(f.Get("customer"), "cus_"), f.Get("customer"))
		require.Equal(t, acctBase+"/workspace/subscription?checkout=success&kind="+w.kind, f.Get("success_url"))
		require.Equal(t, acctBase+"/workspace/subscription?checkout=cancelled", f.Get("cancel_url"))
		expires, err := strconv.ParseInt(f.Get("expires_at"), 10, 64)
		require.NoError(t, err, "expires_at of %s", w.kind)
		require.InDelta(t, time.Now().Add(subscription.CheckoutLifetime).Unix(), expires, 60, "the page closes after CheckoutLifetime")
	}
}
