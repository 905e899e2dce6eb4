// Package stripebilling is the Stripe adapter of the subscription package's
// CheckoutProvider port: Checkout Sessions for Pro (subscription mode) and
// add-on packs (one-time payments), the Customer Portal, subscription reads
// for reconciliation, and verified webhooks turned into provider-neutral
// subscription.ProviderEvents. Everything Stripe-specific stays here, so a
// second provider is a second adapter, not a change of the rules.
package stripebilling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/photo3d/photo3d/internal/config"
	"github.com/photo3d/photo3d/internal/subscription"
)

// Name is the provider name recorded on events.
const Name = "stripe"

// Config is the Stripe part of the server configuration.
type Config struct {
	SecretKey     string // STRIPE_SECRET_KEY (or its file)
	WebhookSecret string // STRIPE_WEBHOOK_SECRET (or its file)
	PricePro      string // STRIPE_PRICE_PRO: the ₹1,999 monthly recurring price
	PriceCredits  string // STRIPE_PRICE_CREDITS: one pack of 20 AI credits
	PriceViews    string // STRIPE_PRICE_VIEWS: one pack of 10,000 public views
	APIBase       string // STRIPE_API_BASE: empty for Stripe itself; stripe-mock in tests
	HTTPClient    *http.Client
}

// Provider talks to Stripe. It never logs the secret key: stripe-go's own
// logging is off (LeveledLogger with no output).
type Provider struct {
	client        *stripe.Client
	secretKey     string
	webhookSecret string
	prices        map[string]string
}

// New builds the adapter; every setting is required.
func New(c Config) (*Provider, error) {
	var missing []string
	for name, v := range map[string]string{"STRIPE_SECRET_KEY": c.SecretKey, "STRIPE_WEBHOOK_SECRET": c.WebhookSecret,
		"STRIPE_PRICE_PRO": c.PricePro, "STRIPE_PRICE_CREDITS": c.PriceCredits, "STRIPE_PRICE_VIEWS": c.PriceViews} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("BILLING_PROVIDER=stripe needs %v", missing)
	}
	cfg := &stripe.BackendConfig{LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
		HTTPClient: c.HTTPClient, MaxNetworkRetries: stripe.Int64(2)}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if c.APIBase != "" {
		cfg.URL = stripe.String(c.APIBase)
	}
	api := stripe.GetBackendWithConfig(stripe.APIBackend, cfg)
	backends := &stripe.Backends{API: api, Connect: api, Uploads: api, MeterEvents: api}
	return &Provider{
		client:        stripe.NewClient(c.SecretKey, stripe.WithBackends(backends)),
		secretKey:     c.SecretKey,
		webhookSecret: c.WebhookSecret,
		prices: map[string]string{subscription.PurchasePro: c.PricePro,
			subscription.PurchaseCredits: c.PriceCredits, subscription.PurchaseViews: c.PriceViews},
	}, nil
}

// Name implements subscription.CheckoutProvider.
func (*Provider) Name() string { return Name }

// CreateCustomer implements subscription.CheckoutProvider. The idempotency
// key makes a retried request return the same customer instead of a twin.
func (p *Provider) CreateCustomer(ctx context.Context, userID, email string) (string, error) {
	params := &stripe.CustomerCreateParams{Metadata: map[string]string{"user_id": userID}}
	if email != "" {
		params.Email = stripe.String(email)
	}
	params.SetIdempotencyKey("photo3d-customer-" + userID)
	c, err := p.client.V1Customers.Create(ctx, params)
	if err != nil {
		return "", p.scrub("create stripe customer", err)
	}
	return c.ID, nil
}

// CreateCheckout implements subscription.CheckoutProvider: Pro is a
// subscription-mode session, packs a payment-mode session with quantity =
// packs. client_reference_id and metadata tell the webhook what was bought.
func (p *Provider) CreateCheckout(ctx context.Context, r subscription.CheckoutRequest) (subscription.CheckoutSession, error) {
	meta := map[string]string{"kind": r.Kind, "packs": strconv.FormatInt(r.Packs, 10), "user_id": r.UserID}
	params := &stripe.CheckoutSessionCreateParams{
		Customer:          stripe.String(r.CustomerID),
		ClientReferenceID: stripe.String(r.UserID),
		SuccessURL:        stripe.String(r.SuccessURL),
		CancelURL:         stripe.String(r.CancelURL),
		Metadata:          meta,
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Price: stripe.String(p.prices[r.Kind]), Quantity: stripe.Int64(r.Packs)}},
	}
	if !r.ExpiresAt.IsZero() {
		params.ExpiresAt = stripe.Int64(r.ExpiresAt.Unix())
	}
	if r.Kind == subscription.PurchasePro {
		params.Mode = stripe.String(string(stripe.CheckoutSessionModeSubscription))
		params.SubscriptionData = &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: map[string]string{"user_id": r.UserID}}
	} else {
		params.Mode = stripe.String(string(stripe.CheckoutSessionModePayment))
		params.InvoiceCreation = &stripe.CheckoutSessionCreateInvoiceCreationParams{Enabled: stripe.Bool(true)}
	}
	s, err := p.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return subscription.CheckoutSession{}, p.scrub("create stripe checkout session", err)
	}
	return subscription.CheckoutSession{ID: s.ID, URL: s.URL}, nil
}

// CreatePortal implements subscription.CheckoutProvider.
func (p *Provider) CreatePortal(ctx context.Context, customerID, returnURL string) (string, error) {
	s, err := p.client.V1BillingPortalSessions.Create(ctx, &stripe.BillingPortalSessionCreateParams{
		Customer: stripe.String(customerID), ReturnURL: stripe.String(returnURL)})
	if err != nil {
		return "", p.scrub("create stripe portal session", err)
	}
	return s.URL, nil
}

// Subscription implements subscription.CheckoutProvider.
func (p *Provider) Subscription(ctx context.Context, id string) (subscription.ProviderSubscription, error) {
	s, err := p.client.V1Subscriptions.Retrieve(ctx, id, nil)
	if err != nil {
		return subscription.ProviderSubscription{}, p.scrub("read stripe subscription "+id, err)
	}
	return fromSubscription(s), nil
}

// EraseCustomer cancels the customer's subscription at once (no proration
// or period end: the account is being deleted) and deletes the customer,
// which removes the address and payment methods Stripe holds for us. Both
// are idempotent: a subscription or customer already gone is success, so
// the erasure job can run it again after a crash.
func (p *Provider) EraseCustomer(ctx context.Context, customerID, subscriptionID string) error {
	if subscriptionID != "" {
		if _, err := p.client.V1Subscriptions.Cancel(ctx, subscriptionID, nil); err != nil && !missing(err) {
			return p.scrub("cancel stripe subscription "+subscriptionID, err)
		}
	}
	if customerID != "" {
		if _, err := p.client.V1Customers.Delete(ctx, customerID, nil); err != nil && !missing(err) {
			return p.scrub("delete stripe customer "+customerID, err)
		}
	}
	return nil
}

func missing(err error) bool {
	var se *stripe.Error
	return errors.As(err, &se) && se.Code == stripe.ErrorCodeResourceMissing
}

func fromSubscription(s *stripe.Subscription) subscription.ProviderSubscription {
	out := subscription.ProviderSubscription{ID: s.ID, Status: string(s.Status), CancelAtPeriodEnd: s.CancelAtPeriodEnd}
	if s.Customer != nil {
		out.CustomerID = s.Customer.ID
	}
	// Since API 2025-03-31 the period lives on the items.
	if s.Items != nil {
		for _, it := range s.Items.Data {
			if it.CurrentPeriodEnd > 0 {
				t := time.Unix(it.CurrentPeriodEnd, 0).UTC()
				out.CurrentPeriodEnd = &t
				break
			}
		}
	}
	return out
}

// scrub wraps an API error for the logs with the secret key cut out: an
// error body may quote the Authorization header (stripe-mock does), and
// the key must never reach a log line.
func (p *Provider) scrub(what string, err error) error {
	msg := err.Error()
	if p.secretKey != "" {
		msg = strings.ReplaceAll(msg, p.secretKey, "[redacted]")
	}
	return fmt.Errorf("%s: %s", what, msg)
}

// ErrSignature is a webhook whose signature, timestamp or body is not
// Stripe's: the route answers 400 and nothing is applied.
var ErrSignature = errors.New("stripe webhook signature is not valid")

// ParseWebhook verifies a delivery with webhook.ConstructEvent (HMAC over
// the exact bytes, 5-minute timestamp tolerance, matching API version) and
// turns it into a ProviderEvent.
func (p *Provider) ParseWebhook(payload []byte, signature string) (subscription.ProviderEvent, error) {
	e, err := webhook.ConstructEvent(payload, signature, p.webhookSecret)
	if err != nil {
		return subscription.ProviderEvent{}, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return toProviderEvent(e)
}

func toProviderEvent(e stripe.Event) (subscription.ProviderEvent, error) {
	out := subscription.ProviderEvent{Provider: Name, ID: e.ID, Type: string(e.Type), Created: time.Unix(e.Created, 0).UTC()}
	if e.Data == nil {
		return out, nil
	}
	raw := e.Data.Raw
	switch e.Type {
	case "checkout.session.completed":
		var s stripe.CheckoutSession
		if err := json.Unmarshal(raw, &s); err != nil {
			return out, fmt.Errorf("decode checkout session: %w", err)
		}
		out.Kind = subscription.EventCheckoutCompleted
		out.CheckoutSessionID = s.ID
		out.UserID = s.ClientReferenceID
		out.Paid = s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid
		out.Purchase = s.Metadata["kind"]
		out.Packs, _ = strconv.ParseInt(s.Metadata["packs"], 10, 64)
		out.AmountMinor, out.Currency = s.AmountTotal, string(s.Currency)
		if s.Customer != nil {
			out.CustomerID = s.Customer.ID
		}
		if s.Subscription != nil {
			out.Subscription.ID = s.Subscription.ID
		}
	case "customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted":
		var s stripe.Subscription
		if err := json.Unmarshal(raw, &s); err != nil {
			return out, fmt.Errorf("decode subscription: %w", err)
		}
		out.Kind = subscription.EventSubscriptionChanged
		if e.Type == "customer.subscription.deleted" {
			out.Kind = subscription.EventSubscriptionDeleted
		}
		out.Subscription = fromSubscription(&s)
		out.CustomerID = out.Subscription.CustomerID
	case "invoice.paid", "invoice.payment_failed":
		var in stripe.Invoice
		if err := json.Unmarshal(raw, &in); err != nil {
			return out, fmt.Errorf("decode invoice: %w", err)
		}
		out.Kind = subscription.EventInvoicePaid
		out.AmountMinor = in.AmountPaid
		if e.Type == "invoice.payment_failed" {
			out.Kind = subscription.EventInvoicePaymentFailed
			out.AmountMinor = in.AmountDue
		}
		out.InvoiceID, out.Currency = in.ID, string(in.Currency)
		if in.Customer != nil {
			out.CustomerID = in.Customer.ID
		}
		if in.Parent != nil && in.Parent.SubscriptionDetails != nil && in.Parent.SubscriptionDetails.Subscription != nil {
			out.Subscription.ID = in.Parent.SubscriptionDetails.Subscription.ID
		}
		for _, l := range linesOf(in) {
			if l > 0 {
				t := time.Unix(l, 0).UTC()
				out.Subscription.CurrentPeriodEnd = &t
			}
		}
	}
	return out, nil
}

// linesOf is the period end of an invoice's lines (the renewed period).
func linesOf(in stripe.Invoice) []int64 {
	if in.Lines == nil {
		return nil
	}
	var out []int64
	for _, l := range in.Lines.Data {
		if l.Period != nil {
			out = append(out, l.Period.End)
		}
	}
	return out
}

// FromConfig builds the adapter from the server configuration, or returns
// nil when BILLING_PROVIDER is not stripe.
func FromConfig(provider string, c StripeSettings) (*Provider, error) {
	if provider != Name {
		return nil, nil
	}
	return New(Config{SecretKey: c.SecretKey.Reveal(), WebhookSecret: c.WebhookSecret.Reveal(),
		PricePro: c.PricePro, PriceCredits: c.PriceCredits, PriceViews: c.PriceViews, APIBase: c.APIBase})
}

// StripeSettings is config.StripeConfig (aliased to keep this package free
// of the config package's other concerns).
type StripeSettings = config.StripeConfig
