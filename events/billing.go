package events

import "time"

// Billing events (issue 30), on the same subscription-{userId} stream as the
// balances they change. They carry the payment provider's ids (customer,
// subscription, Checkout Session, invoice, event) so a payment can be traced
// to the provider's dashboard, and never card data, names or addresses: the
// provider keeps those, the log keeps only what happened.

// BillingCustomerLinked remembers the provider's customer created for a user,
// once, so every later Checkout and the Customer Portal use the same one.
type BillingCustomerLinked struct {
	UserID     string    `json:"userId"`
	Provider   string    `json:"provider" erase:"keep"`
	CustomerID string    `json:"customerId"`
	At         time.Time `json:"at"`
}

// EventType implements Event.
func (BillingCustomerLinked) EventType() string { return "subscription.billing_customer_linked.v1" }

// PaymentReceived is money the provider confirmed: a paid Checkout Session
// (Pro or add-on packs) or a paid renewal invoice.
type PaymentReceived struct {
	UserID            string    `json:"userId"`
	Provider          string    `json:"provider" erase:"keep"`
	ProviderEventID   string    `json:"providerEventId"`
	Kind              string    `json:"kind" erase:"keep"` // pro, credits, views
	Packs             int64     `json:"packs,omitempty"`
	CustomerID        string    `json:"customerId,omitempty"`
	SubscriptionID    string    `json:"subscriptionId,omitempty"`
	CheckoutSessionID string    `json:"checkoutSessionId,omitempty"`
	InvoiceID         string    `json:"invoiceId,omitempty"`
	AmountMinor       int64     `json:"amountMinor"` // in the currency's minor unit (paise)
	Currency          string    `json:"currency" erase:"keep"`
	At                time.Time `json:"at"`
}

// EventType implements Event.
func (PaymentReceived) EventType() string { return "subscription.payment_received.v1" }

// PaymentFailed is a renewal the provider could not charge: Pro stays until
// GraceUntil, then falls back to Free unless a retry succeeds.
type PaymentFailed struct {
	UserID          string    `json:"userId"`
	Provider        string    `json:"provider" erase:"keep"`
	ProviderEventID string    `json:"providerEventId"`
	CustomerID      string    `json:"customerId,omitempty"`
	SubscriptionID  string    `json:"subscriptionId,omitempty"`
	InvoiceID       string    `json:"invoiceId,omitempty"`
	GraceUntil      time.Time `json:"graceUntil"`
	At              time.Time `json:"at"`
}

// EventType implements Event.
func (PaymentFailed) EventType() string { return "subscription.payment_failed.v1" }

// BillingSubscriptionSynced records the provider subscription's state as we
// now believe it (from a webhook or from reconciliation): status, period end,
// whether it cancels at period end, and whether a grace period is running.
type BillingSubscriptionSynced struct {
	UserID            string     `json:"userId"`
	Provider          string     `json:"provider" erase:"keep"`
	Source            string     `json:"source" erase:"keep"` // webhook | reconcile
	ProviderEventID   string     `json:"providerEventId,omitempty"`
	SubscriptionID    string     `json:"subscriptionId"`
	Status            string     `json:"status" erase:"keep"`
	CurrentPeriodEnd  *time.Time `json:"currentPeriodEnd,omitempty"`
	CancelAtPeriodEnd bool       `json:"cancelAtPeriodEnd"`
	GraceUntil        *time.Time `json:"graceUntil,omitempty"`
	StateAt           time.Time  `json:"stateAt"` // the provider's time of this state
	At                time.Time  `json:"at"`
}

// EventType implements Event.
func (BillingSubscriptionSynced) EventType() string { return "subscription.billing_synced.v1" }

func billingEvents() []Event {
	return []Event{BillingCustomerLinked{}, PaymentReceived{}, PaymentFailed{}, BillingSubscriptionSynced{}}
}
