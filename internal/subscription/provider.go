package subscription

import (
	"context"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// CheckoutProvider is the port to a payment provider whose purchases happen
// on its own hosted pages (Stripe Checkout today; Razorpay for UPI could be
// a second adapter). The subscription rules never import a provider's SDK:
// the adapter turns our requests into its API calls and its webhooks into
// ProviderEvents, and Service decides what they mean.
type CheckoutProvider interface {
	// Name is recorded on the events the provider's payments append.
	Name() string
	// CreateCustomer makes the provider's customer for a user; called once
	// per user (the id is remembered by BillingCustomerLinked).
	CreateCustomer(ctx context.Context, userID, email string) (string, error)
	// CreateCheckout starts a hosted payment page.
	CreateCheckout(ctx context.Context, req CheckoutRequest) (CheckoutSession, error)
	// CreatePortal opens the hosted billing portal (payment method,
	// invoices, cancellation) for a customer and returns its URL.
	CreatePortal(ctx context.Context, customerID, returnURL string) (string, error)
	// Subscription reads a provider subscription's current state
	// (reconciliation).
	Subscription(ctx context.Context, subscriptionID string) (ProviderSubscription, error)
}

// CheckoutRequest is one purchase to put on a hosted payment page.
type CheckoutRequest struct {
	UserID     string
	CustomerID string
	Kind       string // pro, credits, views
	Packs      int64  // add-on packs; 1 for pro
	SuccessURL string
	CancelURL  string
	ExpiresAt  time.Time // when the page stops taking payment (zero: the provider's default)
}

// CheckoutSession is a hosted payment page the provider made: its id (the
// webhook names it when the session completes) and where to send the browser.
type CheckoutSession struct {
	ID  string
	URL string
}

// The purchase kinds of POST /api/billing/checkout and metadata.kind.
const (
	PurchasePro     = "pro"
	PurchaseCredits = AddonKindCredits
	PurchaseViews   = AddonKindViews
)

// ProviderSubscription is a provider subscription's state.
type ProviderSubscription struct {
	ID                string
	CustomerID        string
	Status            string // active, trialing, past_due, unpaid, canceled, incomplete, incomplete_expired, paused
	CurrentPeriodEnd  *time.Time
	CancelAtPeriodEnd bool
}

// ProviderEventKind is what a provider webhook means to us.
type ProviderEventKind int

// The provider events Service understands; everything else is acknowledged
// and ignored.
const (
	EventIgnored ProviderEventKind = iota
	EventCheckoutCompleted
	EventSubscriptionChanged
	EventSubscriptionDeleted
	EventInvoicePaid
	EventInvoicePaymentFailed
)

// ProviderEvent is one verified provider webhook, provider-neutral.
type ProviderEvent struct {
	Provider string
	ID       string // the provider's event id: the exactly-once key
	Type     string // the provider's event type, for the ledger
	Kind     ProviderEventKind
	Created  time.Time // the provider's creation time: orders state changes

	UserID            string // our user id when the provider echoes it (client reference)
	CustomerID        string
	CheckoutSessionID string
	InvoiceID         string
	Paid              bool   // checkout: payment_status paid
	Purchase          string // checkout: metadata.kind
	Packs             int64  // checkout: metadata.packs
	AmountMinor       int64
	Currency          string
	Subscription      ProviderSubscription
}

// BillingState is what the subscription read model knows of the provider.
type BillingState struct {
	CustomerID        string
	SubscriptionID    string
	Status            string
	PeriodEnd         *time.Time
	CancelAtPeriodEnd bool
	GraceUntil        *time.Time
	StateAt           *time.Time
}

// GraceExpired reports whether a failed renewal's grace period is over.
func (b BillingState) GraceExpired(now time.Time) bool {
	return b.GraceUntil != nil && !now.Before(*b.GraceUntil)
}

// DefaultGracePeriod is how long Pro survives a failed renewal (BILLING_GRACE_PERIOD).
const DefaultGracePeriod = 7 * 24 * time.Hour

// BillingInfo is the billing part of the subscription view: how purchases
// work on this server and where the merchant's paid subscription stands.
type BillingInfo struct {
	Provider string `json:"provider"` // none | test-mode | stripe
	// Purchases: checkout (pay on the provider's page), instant (test
	// mode: granted without payment) or disabled (Notice says why).
	Purchases         string     `json:"purchases"`
	Notice            string     `json:"notice,omitempty"`
	Status            string     `json:"status,omitempty"`
	CurrentPeriodEnd  *time.Time `json:"currentPeriodEnd"`
	CancelAtPeriodEnd bool       `json:"cancelAtPeriodEnd"`
	GraceUntil        *time.Time `json:"graceUntil"`
	PaymentFailed     bool       `json:"paymentFailed"` // a renewal failed and grace is running
	CanManage         bool       `json:"canManage"`     // a provider customer exists: Manage billing works
}

// Faults of the checkout routes.
var (
	errCheckoutUnavailable = fault.New(fault.Conflict, "checkout_unavailable",
		"Online payment is not configured on this server.")
	errCheckoutKind  = fault.New(fault.Invalid, "invalid_checkout_kind", `Kind must be "pro", "credits" or "views".`)
	errCheckoutPacks = fault.New(fault.Invalid, "invalid_packs", "Choose between 1 and 100 packs.")
	errAlreadyPro    = fault.New(fault.Conflict, "already_pro",
		"You already pay for Pro. Use Manage billing to change your payment method or cancel.")
	errEnterprise = fault.New(fault.Conflict, "enterprise_plan",
		"Your Enterprise plan is billed by our sales team; contact support to change it.")
	errNoBillingAccount = fault.New(fault.Conflict, "no_billing_account",
		"There is nothing to manage yet: billing starts with your first payment.")
	errUseCheckout = fault.New(fault.Conflict, "checkout_required",
		"Purchases on this server are paid through Checkout: use the Upgrade or Buy buttons on the Subscription page.")
	errCancelInPortal = fault.New(fault.Conflict, "cancel_in_billing_portal",
		"Your paid Pro subscription is cancelled in Manage billing; it stays active until the end of the period you paid for.")
)
