package subscription

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// WithCheckout returns a copy that sells through a hosted-payment provider;
// grace is how long Pro survives a failed renewal (0: DefaultGracePeriod).
func (s *Service) WithCheckout(p CheckoutProvider, grace time.Duration) *Service {
	c := *s
	c.checkout = p
	c.grace = grace
	if c.grace <= 0 {
		c.grace = DefaultGracePeriod
	}
	return &c
}

// billingInfo is the billing part of a view of r at now.
func (s *Service) billingInfo(r Record, now time.Time) BillingInfo {
	b := r.Billing
	info := BillingInfo{Provider: s.billing.Name(), Status: b.Status, CurrentPeriodEnd: b.PeriodEnd,
		CancelAtPeriodEnd: b.CancelAtPeriodEnd, GraceUntil: b.GraceUntil,
		PaymentFailed: b.GraceUntil != nil && !b.GraceExpired(now) && r.Plan == PlanPro,
		CanManage:     b.CustomerID != "" && s.checkout != nil}
	switch {
	case s.checkout != nil:
		info.Purchases = "checkout"
	case info.Provider == "test-mode":
		info.Purchases = "instant"
		info.Notice = "Test mode: upgrades and add-ons are granted at once and no money is taken. Never use test mode in production."
	default:
		info.Purchases = "disabled"
		info.Notice = errBillingOff.Message
	}
	return info
}

// StartCheckout opens a hosted payment page for kind (pro, credits, views)
// and packs, creating the user's provider customer the first time, or hands
// out again the user's open page for the same purchase (checkout_sessions.go).
// Nothing is granted here: only the provider's paid confirmation grants.
func (s *Service) StartCheckout(ctx context.Context, db *pgxpool.Pool, userID, email, kind string, packs int64, baseURL string) (string, error) {
	if s.checkout == nil {
		return "", errCheckoutUnavailable
	}
	switch kind {
	case PurchasePro:
		packs = 1
	case PurchaseCredits, PurchaseViews:
		if packs < 1 || packs > MaxAddonPacks {
			return "", errCheckoutPacks
		}
	default:
		return "", errCheckoutKind
	}
	r, err := loadRecord(ctx, db, userID)
	if err != nil {
		return "", err
	}
	now := s.now()
	if kind == PurchasePro {
		switch {
		case r.Plan == PlanEnterprise:
			return "", errEnterprise
		case r.Plan == PlanPro && !r.Billing.GraceExpired(now) && r.Billing.SubscriptionID != "" &&
			(r.Billing.Status == "active" || r.Billing.Status == "trialing" || r.Billing.Status == "past_due"):
			return "", errAlreadyPro
		}
	}
	if url, open, err := openCheckout(ctx, db, userID, kind, packs, now); err != nil || open {
		return url, err
	}
	customer, err := s.ensureCustomer(ctx, db, r, email)
	if err != nil {
		return "", err
	}
	expires := now.Add(CheckoutLifetime).UTC().Truncate(time.Second)
	cs, err := s.checkout.CreateCheckout(ctx, CheckoutRequest{UserID: userID, CustomerID: customer, Kind: kind, Packs: packs,
		SuccessURL: baseURL + "/workspace/subscription?checkout=success&kind=" + kind,
		CancelURL:  baseURL + "/workspace/subscription?checkout=cancelled", ExpiresAt: expires})
	if err != nil {
		return "", err
	}
	if err := rememberCheckout(ctx, db, userID, kind, packs, cs, expires, now); err != nil {
		return "", err
	}
	return cs.URL, nil
}

// ensureCustomer returns the user's provider customer, creating and
// remembering it once. Two first purchases racing may each create one at
// the provider; the first remembered wins and the other stays unused.
func (s *Service) ensureCustomer(ctx context.Context, db *pgxpool.Pool, r Record, email string) (string, error) {
	if r.Billing.CustomerID != "" {
		return r.Billing.CustomerID, nil
	}
	id, err := s.checkout.CreateCustomer(ctx, r.UserID, email)
	if err != nil {
		return "", err
	}
	var out string
	err = pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		cur, err := lockRecord(ctx, tx, r.UserID)
		if err != nil {
			return err
		}
		if cur.Billing.CustomerID != "" {
			out = cur.Billing.CustomerID
			return nil
		}
		out = id
		return s.apply(ctx, tx, r.UserID, cur.Version, events.BillingCustomerLinked{
			UserID: r.UserID, Provider: s.checkout.Name(), CustomerID: id, At: s.now().UTC()})
	})
	return out, err
}

// OpenPortal returns the provider's billing portal for the user.
func (s *Service) OpenPortal(ctx context.Context, q pgdb.Querier, userID, baseURL string) (string, error) {
	if s.checkout == nil {
		return "", errCheckoutUnavailable
	}
	r, err := loadRecord(ctx, q, userID)
	if err != nil {
		return "", err
	}
	if r.Billing.CustomerID == "" {
		return "", errNoBillingAccount
	}
	return s.checkout.CreatePortal(ctx, r.Billing.CustomerID, baseURL+"/workspace/subscription")
}

// Outcomes of ApplyProviderEvent, kept in the ledger and returned for logs.
const (
	OutcomeApplied   = "applied"
	OutcomeDuplicate = "duplicate"
	OutcomeStale     = "stale"
	OutcomeIgnored   = "ignored"
	OutcomeNoUser    = "unknown_customer"
	OutcomeUnchanged = "unchanged"
)

// ApplyProviderEvent applies one verified provider webhook exactly once:
// the ledger row and the domain events it appends commit in tx together, so
// a repeated delivery (same event id) changes nothing, and a state change
// older than the newest one applied (out-of-order delivery) is recorded as
// stale without effect. Payments themselves are facts and are never stale.
func (s *Service) ApplyProviderEvent(ctx context.Context, tx pgx.Tx, ev ProviderEvent) (string, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO billing_provider_events (provider, event_id, event_type, outcome)
		VALUES ($1, $2, $3, 'pending') ON CONFLICT DO NOTHING`, ev.Provider, ev.ID, ev.Type)
	if err != nil {
		return "", fmt.Errorf("record provider event %s: %w", ev.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return OutcomeDuplicate, nil
	}
	outcome, userID, grantRef, err := s.applyProviderEvent(ctx, tx, ev)
	if err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, `UPDATE billing_provider_events SET outcome = $3, user_id = NULLIF($4, ''), grant_ref = NULLIF($5, '')
		WHERE provider = $1 AND event_id = $2`, ev.Provider, ev.ID, outcome, userID, grantRef); err != nil {
		return "", fmt.Errorf("record outcome of provider event %s: %w", ev.ID, err)
	}
	return outcome, nil
}

func (s *Service) applyProviderEvent(ctx context.Context, tx pgx.Tx, ev ProviderEvent) (outcome, userID, grantRef string, err error) {
	if ev.Kind == EventIgnored {
		return OutcomeIgnored, "", "", nil
	}
	r, found, err := s.lockPayer(ctx, tx, ev)
	if err != nil || !found {
		return OutcomeNoUser, "", "", err
	}
	if ev.Kind == EventCheckoutCompleted && ev.CheckoutSessionID != "" {
		if err := closeCheckout(ctx, tx, r.UserID, ev.CheckoutSessionID); err != nil {
			return "", "", "", err
		}
		var seen bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM billing_provider_events WHERE provider = $1 AND grant_ref = $2)`,
			ev.Provider, ev.CheckoutSessionID).Scan(&seen); err != nil {
			return "", "", "", fmt.Errorf("check grant of %s: %w", ev.CheckoutSessionID, err)
		}
		if seen {
			return OutcomeDuplicate, r.UserID, "", nil
		}
		grantRef = ev.CheckoutSessionID
	}
	evs, outcome := s.decide(r, ev)
	if len(evs) > 0 && ev.Kind == EventCheckoutCompleted && ev.CustomerID != "" && r.Billing.CustomerID == "" {
		// A customer Checkout created itself: remember it for the portal
		// and for the invoices that name only the customer.
		evs = append([]events.Event{events.BillingCustomerLinked{UserID: r.UserID, Provider: ev.Provider,
			CustomerID: ev.CustomerID, At: s.now().UTC()}}, evs...)
	}
	if len(evs) == 0 {
		return outcome, r.UserID, "", nil
	}
	if err := s.apply(ctx, tx, r.UserID, r.Version, evs...); err != nil {
		return "", "", "", err
	}
	return outcome, r.UserID, grantRef, nil
}

// lockPayer finds and locks the user an event is about: the client
// reference we put on the Checkout Session, else the remembered customer.
func (s *Service) lockPayer(ctx context.Context, tx pgx.Tx, ev ProviderEvent) (Record, bool, error) {
	userID := ev.UserID
	if userID == "" && ev.CustomerID != "" {
		err := tx.QueryRow(ctx, `SELECT user_id FROM subscriptions WHERE billing_customer_id = $1`, ev.CustomerID).Scan(&userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return Record{}, false, nil
		}
		if err != nil {
			return Record{}, false, fmt.Errorf("find customer %s: %w", ev.CustomerID, err)
		}
	}
	if userID == "" {
		return Record{}, false, nil
	}
	r, err := lockRecord(ctx, tx, userID)
	if err == errNoSubscription {
		return Record{}, false, nil
	}
	return r, err == nil, err
}

// decide turns a provider event into our events for record r.
func (s *Service) decide(r Record, ev ProviderEvent) ([]events.Event, string) {
	now := s.now().UTC()
	stale := r.Billing.StateAt != nil && ev.Created.Before(*r.Billing.StateAt)
	sub := ev.Subscription
	paid := func(kind string, packs int64) events.PaymentReceived {
		return events.PaymentReceived{UserID: r.UserID, Provider: ev.Provider, ProviderEventID: ev.ID, Kind: kind, Packs: packs,
			CustomerID: ev.CustomerID, SubscriptionID: sub.ID, CheckoutSessionID: ev.CheckoutSessionID, InvoiceID: ev.InvoiceID,
			AmountMinor: ev.AmountMinor, Currency: ev.Currency, At: now}
	}
	var out []events.Event
	switch ev.Kind {
	case EventCheckoutCompleted:
		if !ev.Paid {
			return nil, OutcomeIgnored
		}
		switch ev.Purchase {
		case PurchaseCredits, PurchaseViews:
			if ev.Packs < 1 || ev.Packs > MaxAddonPacks {
				return nil, OutcomeIgnored
			}
			size, price := int64(CreditsPackSize), int64(PriceCreditsPack)
			if ev.Purchase == PurchaseViews {
				size, price = ViewsPackSize, PriceViewsPack
			}
			return []events.Event{paid(ev.Purchase, ev.Packs), events.AddonPurchased{UserID: r.UserID, Kind: ev.Purchase,
				Amount: ev.Packs * size, PriceINR: ev.Packs * price, Provider: ev.Provider, At: now}}, OutcomeApplied
		case PurchasePro:
			out = append(out, paid(PurchasePro, 1))
			if stale {
				return out, OutcomeStale
			}
			if sub.Status == "" {
				sub.Status = "active"
			}
			if sub.ID == "" {
				sub.ID = r.Billing.SubscriptionID
			}
			out = append(out, s.toPro(r, "checkout", now)...)
			return append(out, s.synced(r, ev, sub, nil, now)), OutcomeApplied
		}
		return nil, OutcomeIgnored
	case EventInvoicePaid:
		if sub.ID == "" {
			return nil, OutcomeIgnored
		}
		out = append(out, paid(PurchasePro, 0))
		if stale || (r.Billing.SubscriptionID != "" && sub.ID != r.Billing.SubscriptionID) {
			return out, OutcomeStale
		}
		sub.Status = "active"
		sub.CurrentPeriodEnd, sub.CancelAtPeriodEnd = firstTime(sub.CurrentPeriodEnd, r.Billing.PeriodEnd), r.Billing.CancelAtPeriodEnd
		out = append(out, s.toPro(r, "payment_received", now)...)
		return append(out, s.synced(r, ev, sub, nil, now)), OutcomeApplied
	case EventInvoicePaymentFailed:
		if sub.ID == "" || stale || (r.Billing.SubscriptionID != "" && sub.ID != r.Billing.SubscriptionID) {
			return nil, OutcomeStale
		}
		grace := s.graceFrom(r, ev.Created)
		sub.Status = "past_due"
		sub.CurrentPeriodEnd, sub.CancelAtPeriodEnd = firstTime(sub.CurrentPeriodEnd, r.Billing.PeriodEnd), r.Billing.CancelAtPeriodEnd
		out = append(out, events.PaymentFailed{UserID: r.UserID, Provider: ev.Provider, ProviderEventID: ev.ID, CustomerID: ev.CustomerID,
			SubscriptionID: sub.ID, InvoiceID: ev.InvoiceID, GraceUntil: grace, At: now})
		return append(out, s.synced(r, ev, sub, &grace, now)), OutcomeApplied
	case EventSubscriptionChanged, EventSubscriptionDeleted:
		if stale {
			return nil, OutcomeStale
		}
		if ev.Kind == EventSubscriptionDeleted && sub.Status != "canceled" {
			sub.Status = "canceled"
		}
		return s.subscriptionState(r, ev, sub, now)
	}
	return nil, OutcomeIgnored
}

// subscriptionState applies a provider subscription's status: active makes
// Pro (and ends a grace), past_due/unpaid starts or keeps the grace period,
// canceled ends Pro. A different subscription than the one we follow only
// counts when it is active (a new purchase), never to end Pro.
func (s *Service) subscriptionState(r Record, ev ProviderEvent, sub ProviderSubscription, now time.Time) ([]events.Event, string) {
	other := r.Billing.SubscriptionID != "" && sub.ID != r.Billing.SubscriptionID
	var out []events.Event
	switch sub.Status {
	case "active", "trialing":
		out = append(out, s.toPro(r, "subscription_active", now)...)
		out = append(out, s.synced(r, ev, sub, nil, now))
	case "past_due", "unpaid":
		if other {
			return nil, OutcomeStale
		}
		var grace *time.Time
		if r.Plan == PlanPro { // a grace that already ran out (now Free) never restarts
			g := s.graceFrom(r, ev.Created)
			grace = &g
		}
		out = append(out, s.synced(r, ev, sub, grace, now))
	case "canceled", "incomplete_expired":
		if other {
			return nil, OutcomeStale
		}
		if r.Plan == PlanPro {
			out = append(out, events.PlanChanged{UserID: r.UserID, From: string(r.Plan), To: string(PlanFree),
				Provider: ev.Provider, Reason: "subscription_canceled", At: now})
		}
		out = append(out, s.synced(r, ev, sub, nil, now))
	default: // incomplete, paused: not paid (yet); remember, grant nothing
		if other {
			return nil, OutcomeStale
		}
		out = append(out, s.synced(r, ev, sub, r.Billing.GraceUntil, now))
	}
	if len(out) == 1 && unchanged(r, out[0]) {
		return nil, OutcomeUnchanged
	}
	return out, OutcomeApplied
}

// toPro is the PlanChanged that makes r a paying Pro, if it is not one yet;
// a running trial ends here: "a trial converts only by payment".
func (s *Service) toPro(r Record, reason string, now time.Time) []events.Event {
	if r.Plan == PlanPro && !r.TrialActive(now) {
		return nil
	}
	if r.Plan == PlanEnterprise {
		return nil
	}
	return []events.Event{events.PlanChanged{UserID: r.UserID, From: string(r.Plan), To: string(PlanPro),
		Provider: s.providerName(), Reason: reason, At: now}}
}

func (s *Service) providerName() string {
	if s.checkout != nil {
		return s.checkout.Name()
	}
	return s.billing.Name()
}

func (s *Service) synced(r Record, ev ProviderEvent, sub ProviderSubscription, grace *time.Time, now time.Time) events.BillingSubscriptionSynced {
	source := "webhook"
	if ev.ID == "" {
		source = "reconcile"
	}
	stateAt := ev.Created.UTC()
	return events.BillingSubscriptionSynced{UserID: r.UserID, Provider: ev.Provider, Source: source, ProviderEventID: ev.ID,
		SubscriptionID: sub.ID, Status: sub.Status, CurrentPeriodEnd: utc(sub.CurrentPeriodEnd),
		CancelAtPeriodEnd: sub.CancelAtPeriodEnd, GraceUntil: utc(grace), StateAt: stateAt, At: now}
}

// unchanged reports whether a lone Synced event would restate r as it is.
func unchanged(r Record, e events.Event) bool {
	sy, ok := e.(events.BillingSubscriptionSynced)
	if !ok {
		return false
	}
	b := r.Billing
	return sy.SubscriptionID == b.SubscriptionID && sy.Status == b.Status && sy.CancelAtPeriodEnd == b.CancelAtPeriodEnd &&
		sameTime(sy.CurrentPeriodEnd, b.PeriodEnd) && sameTime(sy.GraceUntil, b.GraceUntil)
}

// graceFrom keeps a running grace period, or starts one at from.
func (s *Service) graceFrom(r Record, from time.Time) time.Time {
	if r.Billing.GraceUntil != nil {
		return r.Billing.GraceUntil.UTC()
	}
	return from.Add(s.grace).UTC()
}

func firstTime(a, b *time.Time) *time.Time {
	if a != nil {
		return a
	}
	return b
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Truncate(time.Second).Equal(b.Truncate(time.Second))
}
