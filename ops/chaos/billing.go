package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	stripe "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/ops/internal/harness"
)

// billingScenario has Stripe's webhooks arrive as Stripe really sends them
// (each at least twice, newer before older, retried until acknowledged)
// while Postgres is down and coming back. A second api on the same database
// sells through Stripe (stripe-mock answers its API calls); a few merchants
// start Checkout there, and each purchase is then announced by signed
// webhooks. The check is that every payment counted exactly once: Pro is
// on and active, each credits session granted its packs once, the ledger
// holds each event id once with the outcome it had to have, and the
// subscription streams record one payment per Checkout Session or invoice.
type billingScenario struct {
	api       string // base URL of the api that sells through Stripe
	secret    string // its STRIPE_WEBHOOK_SECRET: we sign as Stripe does
	hc        *http.Client
	merchants []*billingMerchant
	outage    bool // the run stops Postgres in the window

	mu         sync.Mutex
	deliveries []billingDelivery
	refused    int // attempts answered 5xx (or cut off) and retried
	refusedOff int // of those, while Postgres was down
	ackedFirst int // deliveries acknowledged before Postgres stopped
}

// billingMerchants is how many merchants pay; each gets its own events.
const billingMerchants = 3

// billingMerchant is one paying merchant and the webhooks its purchases
// cause, in the order they are delivered.
type billingMerchant struct {
	*harness.Merchant
	userID, customerID string
	packs              int64 // credit packs bought in its add-on Checkout
	purchasedBefore    int64 // aiCreditsPurchased before any webhook
	viewsBefore        int64 // publicViewsPurchased before any webhook
	sessions           []string
	invoice            string
	events             []*stripeEvent // each distinct event once
	// steps are delivered one after the other; the deliveries of a step go
	// out concurrently (Stripe retries do overlap).
	steps [][]*stripeEvent
}

// stripeEvent is one event as Stripe sends it, with what it must come to.
type stripeEvent struct {
	id, typ string
	created time.Time
	object  map[string]any
	// fact is what the event announces (a Checkout Session, an invoice, a
	// subscription's creation): events announcing the same fact take
	// effect once between them, under whichever event id came first.
	fact string
	// want is the outcome of that one effective delivery: applied, or
	// stale for a state older than one already applied.
	want string
}

// billingDelivery is one delivery acknowledged with 200.
type billingDelivery struct {
	merchant *billingMerchant
	event    *stripeEvent
	outcome  string
}

func (*billingScenario) name() string { return "billing" }

func (b *billingScenario) setup(ctx context.Context, c *chaosRun) error {
	b.outage = c.o.pgAt > 0 && c.o.pgAt < c.o.chaos
	b.hc = &http.Client{Timeout: 10 * time.Second}
	root, err := harness.Root()
	if err != nil {
		return err
	}
	mockPath, err := harness.FindStripeMock(ctx, c.o.stripeMock, root, filepath.Join(c.tmp, "stripe-mock-bin"), c.log)
	if err != nil {
		return err
	}
	mock, mockBase, err := harness.StartStripeMock(ctx, mockPath, c.log)
	if err != nil {
		return err
	}
	c.onStop(func() { mock.Stop(5 * time.Second) })

	// stripe-mock accepts only a "valid looking" test key: sk_test_ and
	// letters or digits (no more underscores); the api wants 32 bytes.
	b.secret = "whsec_chaos_" + randomHex(16)
	api, base, err := c.st.StartAPI(ctx, "api-stripe", "BILLING_PROVIDER=stripe",
		"STRIPE_SECRET_KEY=sk_test_"+randomHex(16), "STRIPE_WEBHOOK_SECRET="+b.secret,
		"STRIPE_PRICE_PRO=price_pro_inr", "STRIPE_PRICE_CREDITS=price_credits_inr", "STRIPE_PRICE_VIEWS=price_views_inr",
		"STRIPE_API_BASE="+mockBase)
	if err != nil {
		return err
	}
	c.onStop(func() { api.Stop(10 * time.Second) })
	b.api = base

	// Sign-ups wait for the verification mail: do the merchants together.
	b.merchants = make([]*billingMerchant, billingMerchants)
	errs := make([]error, billingMerchants)
	var wg sync.WaitGroup
	for i := range b.merchants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.merchants[i], errs[i] = b.newMerchant(ctx, c, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i, m := range b.merchants {
		m.plan(i, now)
	}
	return nil
}

// newMerchant signs merchant i up on the Stripe api (harness.SignUp would
// start a trial and buy test-mode credits, which this api refuses), opens
// Checkout for Pro and for credit packs, and notes the customer that
// Checkout linked and the credits bought so far.
func (b *billingScenario) newMerchant(ctx context.Context, c *chaosRun, i int) (*billingMerchant, error) {
	m := &billingMerchant{Merchant: &harness.Merchant{Base: b.api, HTTP: &http.Client{Timeout: 30 * time.Second}},
		packs: int64(2 + i)}
	email := fmt.Sprintf("chaos.billing.%d.%d@example.com", i, time.Now().UnixNano())
	const password = "chaos billing 1234"
	if err := m.Call(ctx, "POST", "/api/auth/signup", map[string]any{"email": email, "password": password, "name": "Chaos Billing"}, "", nil); err != nil {
		return nil, err
	}
	if err := c.st.Verifier()(ctx, m.Merchant, email); err != nil {
		return nil, err
	}
	var auth struct {
		Token string
		User  struct{ ID string }
	}
	if err := m.Call(ctx, "POST", "/api/auth/login", map[string]any{"email": email, "password": password}, "", &auth); err != nil {
		return nil, err
	}
	m.Token, m.userID = auth.Token, auth.User.ID
	for _, body := range []map[string]any{{"kind": "pro"}, {"kind": "credits", "packs": m.packs}} {
		var out struct{ URL string }
		if err := m.Call(ctx, "POST", "/api/billing/checkout", body, "", &out); err != nil {
			return nil, fmt.Errorf("start Checkout %v: %w", body, err)
		}
		if out.URL == "" {
			return nil, fmt.Errorf("Checkout %v answered no URL", body)
		}
	}
	// The customer id is not shown by the API; the read model has it (it is
	// Stripe's id, not personal data).
	if err := c.st.Pool.QueryRow(ctx, `SELECT coalesce(billing_customer_id, '') FROM subscriptions WHERE user_id = $1`,
		m.userID).Scan(&m.customerID); err != nil {
		return nil, fmt.Errorf("read the billing customer of %s: %w", m.userID, err)
	}
	if !strings.HasPrefix(m.customerID, "cus_") {
		return nil, fmt.Errorf("Checkout linked no Stripe customer to %s (got %q)", m.userID, m.customerID)
	}
	v, err := m.view(ctx)
	if err != nil {
		return nil, err
	}
	if v.EffectivePlan != subscription.PlanFree || v.Billing.Purchases != "checkout" {
		return nil, fmt.Errorf("before any payment: plan %s, purchases %q (want free, checkout: Checkout grants nothing)",
			v.EffectivePlan, v.Billing.Purchases)
	}
	m.purchasedBefore, m.viewsBefore = v.AICreditsPurchased, v.PublicViewsPurchased
	return m, nil
}

func (m *billingMerchant) view(ctx context.Context) (subscription.View, error) {
	var v subscription.View
	err := m.Call(ctx, "GET", "/api/subscription", nil, "", &v)
	return v, err
}

// plan writes merchant i's webhooks. Stripe stamps each event with the
// second it happened: the subscription is created (still incomplete), the
// Pro Checkout completes, its first invoice is paid, then the credits
// Checkout completes. Even merchants get them in that order, odd ones
// nearly reversed, so the older Pro Checkout arrives after the invoice that
// already made Pro (it stays a recorded payment, marked stale). Every event
// is delivered twice at once and once more at the end; each Checkout
// Session is also announced under a second event id.
func (m *billingMerchant) plan(i int, now time.Time) {
	sfx := fmt.Sprintf("%d_%s", i, randomHex(4))
	sub, inv := "sub_chaos_"+sfx, "in_chaos_"+sfx
	csPro, csCredits := "cs_chaos_pro_"+sfx, "cs_chaos_credits_"+sfx
	m.sessions, m.invoice = []string{csPro, csCredits}, inv
	reversed := i%2 == 1
	proWant := subscription.OutcomeApplied
	if reversed {
		proWant = subscription.OutcomeStale
	}
	ev := func(id, typ string, age time.Duration, obj map[string]any, fact, want string) *stripeEvent {
		e := &stripeEvent{id: id + "_" + sfx, typ: typ, created: now.Add(-age), object: obj, fact: fact, want: want}
		m.events = append(m.events, e)
		return e
	}
	subCreated := ev("evt_chaos_sub_created", "customer.subscription.created", 3*time.Second,
		map[string]any{"id": sub, "object": "subscription", "customer": m.customerID, "status": "incomplete",
			"cancel_at_period_end": false, "items": map[string]any{"object": "list", "data": []any{
				map[string]any{"id": "si_" + sfx, "object": "subscription_item", "current_period_end": now.Add(30 * 24 * time.Hour).Unix()}}}},
		sub+" created", subscription.OutcomeStale)
	proSession := m.session(csPro, subscription.PurchasePro, 1, sub)
	pro := ev("evt_chaos_pro", "checkout.session.completed", 2*time.Second, proSession, csPro, proWant)
	proAgain := ev("evt_chaos_pro_again", "checkout.session.completed", 2*time.Second, proSession, csPro, proWant)
	invoice := ev("evt_chaos_invoice_paid", "invoice.paid", time.Second,
		map[string]any{"id": inv, "object": "invoice", "customer": m.customerID, "currency": "inr",
			"amount_paid": 199900, "amount_due": 199900,
			"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{"subscription": sub}}},
		inv, subscription.OutcomeApplied)
	creditSession := m.session(csCredits, subscription.PurchaseCredits, m.packs, "")
	credits := ev("evt_chaos_credits", "checkout.session.completed", 0, creditSession, csCredits, subscription.OutcomeApplied)
	creditsAgain := ev("evt_chaos_credits_again", "checkout.session.completed", 0, creditSession, csCredits, subscription.OutcomeApplied)

	proStep := []*stripeEvent{pro, pro, proAgain}
	subStep := []*stripeEvent{subCreated, subCreated}
	invoiceStep := []*stripeEvent{invoice, invoice}
	creditStep := []*stripeEvent{credits, credits, creditsAgain}
	late := []*stripeEvent{pro, subCreated, invoice, credits}
	if reversed {
		m.steps = [][]*stripeEvent{creditStep, invoiceStep, proStep, subStep, late}
	} else {
		m.steps = [][]*stripeEvent{proStep, subStep, invoiceStep, creditStep, late}
	}
}

// session is a completed, paid Checkout Session as Stripe sends it.
func (m *billingMerchant) session(id, kind string, packs int64, sub string) map[string]any {
	o := map[string]any{"id": id, "object": "checkout.session", "client_reference_id": m.userID, "customer": m.customerID,
		"payment_status": "paid", "status": "complete", "currency": "inr", "mode": "payment", "amount_total": packs * 50000,
		"metadata": map[string]string{"kind": kind, "packs": fmt.Sprint(packs), "user_id": m.userID}}
	if sub != "" {
		o["mode"], o["subscription"], o["amount_total"] = "subscription", sub, 199900
	}
	return o
}

// payload is the event's body, the same bytes on every attempt.
func (e *stripeEvent) payload() []byte {
	b, _ := json.Marshal(map[string]any{"id": e.id, "object": "event", "api_version": stripe.APIVersion,
		"created": e.created.Unix(), "livemode": false, "pending_webhooks": 1, "type": e.typ,
		"data": map[string]any{"object": e.object}})
	return b
}

// during delivers every merchant's webhooks. With an outage, the first
// merchant starts just before Postgres is due to stop and paces its steps,
// so some of its transactions are cut by the shutdown itself; the others
// start once Postgres is down, so their first deliveries are refused until
// it is back and then race each other. Without one, all start mid-window.
func (b *billingScenario) during(ctx context.Context, c *chaosRun) error {
	windowStart := time.Now()
	errs := make([]error, len(b.merchants))
	var wg sync.WaitGroup
	for i, m := range b.merchants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var due <-chan struct{}
			gap := time.Duration(0)
			switch {
			case b.outage && i == 0:
				due, gap = after(time.Until(windowStart.Add(c.o.pgAt-200*time.Millisecond))), 150*time.Millisecond
			case b.outage:
				due = c.pgStopped
			default:
				due = after(c.o.chaos / 2)
			}
			select {
			case <-due:
			case <-ctx.Done():
				errs[i] = errors.New("the chaos window ended before the webhooks were due (did Postgres stop?)")
				return
			}
			errs[i] = b.play(ctx, c, m, gap)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// after is a channel closed once d has passed.
func after(d time.Duration) <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(d, func() { close(ch) })
	return ch
}

// play delivers a merchant's steps in order, each step's deliveries at
// once, gap apart.
func (b *billingScenario) play(ctx context.Context, c *chaosRun, m *billingMerchant, gap time.Duration) error {
	for _, step := range m.steps {
		errs := make([]error, len(step))
		var wg sync.WaitGroup
		for j, e := range step {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[j] = b.deliver(ctx, c, m, e)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		select {
		case <-time.After(gap):
		case <-ctx.Done():
		}
	}
	return nil
}

// deliver posts one event until it is acknowledged, as Stripe does: a 5xx
// or a connection error is retried after a short back-off (Stripe waits
// longer; the window is short), each attempt signed afresh (the signature
// is valid for 5 minutes). Any other refusal (a bad signature's 400) means
// the event would never be applied: that fails the run.
func (b *billingScenario) deliver(ctx context.Context, c *chaosRun, m *billingMerchant, e *stripeEvent) error {
	payload := e.payload()
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: b.secret, Timestamp: time.Now()})
		req, err := http.NewRequestWithContext(ctx, "POST", b.api+"/api/billing/stripe/webhook", bytes.NewReader(payload))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Stripe-Signature", sp.Header)
		res, err := b.hc.Do(req)
		status, body := 0, []byte(nil)
		if err == nil {
			body, _ = io.ReadAll(io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
			status = res.StatusCode
		}
		switch {
		case status == http.StatusOK:
			var env struct {
				Data struct{ Outcome string }
			}
			if err := json.Unmarshal(body, &env); err != nil || env.Data.Outcome == "" {
				return fmt.Errorf("event %s: 200 without an outcome: %s", e.id, body)
			}
			b.mu.Lock()
			b.deliveries = append(b.deliveries, billingDelivery{merchant: m, event: e, outcome: env.Data.Outcome})
			select {
			case <-c.pgStopped:
			default:
				b.ackedFirst++
			}
			b.mu.Unlock()
			return nil
		case status != 0 && status < 500 && status != http.StatusTooManyRequests:
			return fmt.Errorf("event %s: refused with %d (Stripe would retry it in vain): %s", e.id, status, body)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("event %s: not acknowledged when the window ended (%d attempts)", e.id, attempt)
		}
		b.mu.Lock()
		b.refused++
		select {
		case <-c.pgStarted:
		default:
			if b.outage {
				b.refusedOff++
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("event %s: not acknowledged when the window ended (%d attempts)", e.id, attempt)
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, time.Second)
	}
}

func (b *billingScenario) check(ctx context.Context, c *chaosRun) (string, error) {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	b.mu.Lock()
	deliveries, refused, refusedOff, ackedFirst := b.deliveries, b.refused, b.refusedOff, b.ackedFirst
	b.mu.Unlock()
	want := 0
	for _, m := range b.merchants {
		for _, s := range m.steps {
			want += len(s)
		}
	}
	if len(deliveries) != want {
		fail("%d of %d deliveries acknowledged", len(deliveries), want)
	}
	if b.outage && refusedOff == 0 {
		fail("no delivery was refused while Postgres was down: the webhooks did not cross the outage")
	}

	// What the api answered: per fact, at most one delivery took effect, with
	// the outcome it had to have; every other one was a duplicate. (A
	// delivery whose answer was lost after its commit shows up only in the
	// ledger, checked below.)
	answers := map[string]int{}
	effective := map[*billingMerchant]map[string][]string{}
	for _, d := range deliveries {
		answers[d.outcome]++
		if d.outcome == subscription.OutcomeDuplicate {
			continue
		}
		if effective[d.merchant] == nil {
			effective[d.merchant] = map[string][]string{}
		}
		effective[d.merchant][d.event.fact] = append(effective[d.merchant][d.event.fact], d.event.id+": "+d.outcome)
		if d.outcome != d.event.want {
			fail("event %s (%s) answered %s, want %s", d.event.id, d.event.fact, d.outcome, d.event.want)
		}
	}
	for m, facts := range effective {
		for fact, got := range facts {
			if len(got) > 1 {
				fail("merchant %s: %s took effect %d times: %v", m.userID, fact, len(got), got)
			}
		}
	}

	var ids, sessions, users []string
	for _, m := range b.merchants {
		users = append(users, m.userID)
		sessions = append(sessions, m.sessions...)
		for _, e := range m.events {
			ids = append(ids, e.id)
		}
	}
	// The ledger (no personal data): every event id once, the fact's one
	// effective row with the wanted outcome (and the session as its grant),
	// the others duplicates, nothing pending, nothing else for these users.
	type row struct{ outcome, grant, user string }
	ledger := map[string]row{}
	rows, err := c.st.Pool.Query(ctx, `SELECT event_id, outcome, coalesce(grant_ref, ''), coalesce(user_id, '')
		FROM billing_provider_events WHERE provider = 'stripe' AND event_id = ANY($1)`, ids)
	if err != nil {
		return "", fmt.Errorf("read the billing ledger: %w", err)
	}
	for rows.Next() {
		var id string
		var r row
		if err := rows.Scan(&id, &r.outcome, &r.grant, &r.user); err != nil {
			rows.Close()
			return "", err
		}
		if _, seen := ledger[id]; seen {
			fail("ledger: event %s recorded twice", id)
		}
		ledger[id] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	var ledgerRows, grants int
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM billing_provider_events WHERE user_id = ANY($1)`, users).Scan(&ledgerRows); err != nil {
		return "", err
	}
	if ledgerRows != len(ids) {
		fail("ledger: %d rows for the paying merchants, want %d (one per distinct event)", ledgerRows, len(ids))
	}
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM billing_provider_events WHERE provider = 'stripe' AND grant_ref = ANY($1)`,
		sessions).Scan(&grants); err != nil {
		return "", err
	}
	if grants != len(sessions) {
		fail("ledger: %d grants for %d Checkout Sessions", grants, len(sessions))
	}
	for _, m := range b.merchants {
		byFact := map[string][]string{}
		for _, e := range m.events {
			r, ok := ledger[e.id]
			switch {
			case !ok:
				fail("ledger: event %s (%s) is missing: a delivery was lost", e.id, e.fact)
				continue
			case r.user != m.userID:
				fail("ledger: event %s recorded for user %q, want %s", e.id, r.user, m.userID)
			case r.outcome == "pending":
				fail("ledger: event %s still pending", e.id)
			}
			if r.outcome == subscription.OutcomeDuplicate {
				continue
			}
			byFact[e.fact] = append(byFact[e.fact], e.id)
			if r.outcome != e.want {
				fail("ledger: event %s (%s) is %s, want %s", e.id, e.fact, r.outcome, e.want)
			}
			if strings.HasPrefix(e.fact, "cs_") && r.grant != e.fact {
				fail("ledger: event %s took effect without granting session %s (grant %q)", e.id, e.fact, r.grant)
			}
		}
		said := map[string]bool{}
		for _, e := range m.events {
			if n := len(byFact[e.fact]); n != 1 && !said[e.fact] {
				said[e.fact] = true
				fail("ledger: %s took effect under %d event ids %v, want exactly 1", e.fact, n, byFact[e.fact])
			}
		}
		if err := m.checkStream(ctx, c, fail); err != nil {
			return "", err
		}
		v, err := m.view(ctx)
		if err != nil {
			return "", err
		}
		bought := m.packs * subscription.CreditsPackSize
		switch {
		case v.Plan != subscription.PlanPro || v.EffectivePlan != subscription.PlanPro:
			fail("merchant %s: plan %s (effective %s) after paying, want pro", m.userID, v.Plan, v.EffectivePlan)
		case v.Billing.Status != "active" || v.Billing.Provider != "stripe":
			fail("merchant %s: billing %s %q, want stripe active", m.userID, v.Billing.Provider, v.Billing.Status)
		}
		if got := v.AICreditsPurchased - m.purchasedBefore; got != bought {
			fail("merchant %s: %d AI credits bought, want %d (%d packs of %d, once)", m.userID, got, bought, m.packs, subscription.CreditsPackSize)
		}
		if v.PublicViewsPurchased != m.viewsBefore {
			fail("merchant %s: public views bought changed from %d to %d", m.userID, m.viewsBefore, v.PublicViewsPurchased)
		}
	}
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "; "))
	}

	var credits []string
	for _, m := range b.merchants {
		credits = append(credits, fmt.Sprint(m.packs*subscription.CreditsPackSize))
	}
	during := "no outage"
	if b.outage {
		during = fmt.Sprintf("%d while Postgres was stopping or down; %d deliveries acknowledged before it stopped", refusedOff, ackedFirst)
	}
	return fmt.Sprintf("%d merchants paid through Stripe Checkout (stripe-mock); %d webhook deliveries of %d events, "+
		"%d attempts refused and retried (%s); answers: %d applied, %d stale, %d duplicate; "+
		"Pro active for all, AI credits bought %s exactly once; ledger: each event once, %d grants for %d sessions",
		len(b.merchants), len(deliveries), len(ids), refused, during,
		answers[subscription.OutcomeApplied], answers[subscription.OutcomeStale], answers[subscription.OutcomeDuplicate],
		strings.Join(credits, "/"), grants, len(sessions)), nil
}

// checkStream reads the merchant's subscription stream: one payment
// received per Checkout Session and per invoice (a stale one is still a
// payment), one add-on purchase of the credits bought, one change to Pro.
func (m *billingMerchant) checkStream(ctx context.Context, c *chaosRun, fail func(string, ...any)) error {
	rows, err := c.st.Pool.Query(ctx, `SELECT type, coalesce(data->>'checkoutSessionId', ''), coalesce(data->>'invoiceId', ''),
		coalesce(data->>'kind', ''), coalesce((data->>'amount')::bigint, 0), coalesce(data->>'to', '')
		FROM events WHERE stream_id = $1 AND type IN ('subscription.payment_received.v1', 'subscription.addon_purchased.v1', 'subscription.plan_changed.v1')`,
		subscription.Stream(m.userID))
	if err != nil {
		return fmt.Errorf("read the subscription stream of %s: %w", m.userID, err)
	}
	defer rows.Close()
	payments := map[string]int{}
	var addons []string
	toPro := 0
	for rows.Next() {
		var typ, session, invoice, kind, to string
		var amount int64
		if err := rows.Scan(&typ, &session, &invoice, &kind, &amount, &to); err != nil {
			return err
		}
		switch typ {
		case "subscription.payment_received.v1":
			payments[session+invoice]++
		case "subscription.addon_purchased.v1":
			addons = append(addons, fmt.Sprintf("%s %d", kind, amount))
		case "subscription.plan_changed.v1":
			if to == string(subscription.PlanPro) {
				toPro++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	wantPayments := map[string]int{m.invoice: 1}
	for _, s := range m.sessions {
		wantPayments[s] = 1
	}
	if !sameCounts(payments, wantPayments) {
		fail("merchant %s: payments received %v, want %v (one per session and invoice)", m.userID, sorted(payments), sorted(wantPayments))
	}
	if want := fmt.Sprintf("credits %d", m.packs*subscription.CreditsPackSize); len(addons) != 1 || addons[0] != want {
		fail("merchant %s: add-on purchases %v, want [%s]", m.userID, addons, want)
	}
	if toPro != 1 {
		fail("merchant %s: %d changes to Pro, want 1", m.userID, toPro)
	}
	return nil
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(out)
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
