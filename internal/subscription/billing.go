package subscription

import (
	"context"

	"github.com/photo3d/photo3d/internal/fault"
)

// Charge is one purchase put to the billing provider.
type Charge struct {
	UserID    string
	Item      string // "plan:pro", "addon:credits", "addon:views"
	Quantity  int64
	AmountINR int64
}

// Billing takes payment for plan changes and add-ons. Real payment is out of
// scope; the interface keeps a real provider (Razorpay, Stripe) a wiring
// change instead of a rewrite of the subscription rules.
type Billing interface {
	// Name is recorded on PlanChanged and AddonPurchased events.
	Name() string
	// Charge takes payment or returns a *fault.Error saying why not.
	Charge(ctx context.Context, c Charge) error
}

// TestMode accepts every purchase without money changing hands, so
// development and demos can exercise upgrades and add-ons end to end.
type TestMode struct{}

// Name implements Billing.
func (TestMode) Name() string { return "test-mode" }

// Charge implements Billing: always accepted.
func (TestMode) Charge(context.Context, Charge) error { return nil }

// NoBilling refuses every purchase: a deployment without a payment provider
// must never hand out paid plans or add-ons for free.
type NoBilling struct{}

// Name implements Billing.
func (NoBilling) Name() string { return "none" }

// errBillingOff is what NoBilling answers.
var errBillingOff = fault.New(fault.Forbidden, "billing_disabled",
	"Purchases are not available on this server. Please contact support to change your plan.")

// Charge implements Billing: always refused.
func (NoBilling) Charge(context.Context, Charge) error { return errBillingOff }

// CheckoutBilling is the Billing of a server whose purchases are paid on a
// provider's hosted page: nothing is ever granted by a direct request, only
// by the provider's confirmation (Service.ApplyProviderEvent).
type CheckoutBilling struct{ Provider string }

// Name implements Billing.
func (c CheckoutBilling) Name() string { return c.Provider }

// Charge implements Billing: always refused, pointing to Checkout.
func (CheckoutBilling) Charge(context.Context, Charge) error { return errUseCheckout }

// BillingFor maps the BILLING_PROVIDER setting (test-mode | none | stripe)
// to a provider.
func BillingFor(name string) Billing {
	switch name {
	case "test-mode":
		return TestMode{}
	case "stripe":
		return CheckoutBilling{Provider: "stripe"}
	}
	return NoBilling{}
}
