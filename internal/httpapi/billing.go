package httpapi

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

// ProviderWebhooks verifies a payment provider's webhook delivery and turns
// it into a provider-neutral event (stripebilling.Provider).
type ProviderWebhooks interface {
	ParseWebhook(payload []byte, signature string) (subscription.ProviderEvent, error)
}

var errBadProviderSignature = fault.New(fault.Invalid, "invalid_signature",
	"The webhook signature is not valid.")

// mountBilling adds the billing routes. Checkout and the portal are for the
// signed-in person only (sessionOnlyRoutes: an API key can never spend the
// merchant's money or open their billing account); the provider's webhook is
// public, because its signature is the authorization.
func mountBilling(api, priv chi.Router, d Deps) {
	if d.Subscriptions == nil {
		return
	}
	priv.With(checkoutLimit()).Method("POST", "/billing/checkout", startCheckout(d))
	priv.Method("POST", "/billing/portal", openBillingPortal(d))
	if d.StripeWebhooks != nil {
		api.Method("POST", "/billing/stripe/webhook", providerWebhook(d, d.StripeWebhooks))
	}
}

// CheckoutPerMinute is how many checkouts one account may start a minute.
// Each may cost a call to the provider with the platform's secret key, and
// the provider's rate limit is the platform's: one account looping on
// Upgrade must not make checkout, the portal and reconciliation fail for
// every merchant (third security review, L5). A person clicking again gets
// the same open page (subscription.StartCheckout) well within it.
const CheckoutPerMinute = 10

// checkoutLimit counts POST /api/billing/checkout per account (the route is
// session-only, so the account is the person), answering 429 with
// Retry-After past CheckoutPerMinute.
func checkoutLimit() func(http.Handler) http.Handler {
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, errTooManyAttempts) })
	byAccount := func(r *http.Request) (string, error) { return "user:" + currentPerson(r), nil }
	return httprate.LimitBy(CheckoutPerMinute, time.Minute, byAccount, onLimit)
}

func startCheckout(d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Kind  string `json:"kind"`
			Packs int64  `json:"packs"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.Kind != subscription.PurchasePro && body.Packs == 0 {
			body.Packs = 1
		}
		var email string
		if d.Accounts != nil {
			u, err := d.Accounts.Get(r.Context(), d.DB, currentPerson(r))
			if err != nil {
				return err
			}
			email = u.Email
		}
		url, err := d.Subscriptions.StartCheckout(r.Context(), d.DB, currentWorkspace(r), email, body.Kind, body.Packs, d.BillingReturnURL)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]string{"url": url})
		return nil
	}
}

func openBillingPortal(d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		url, err := d.Subscriptions.OpenPortal(r.Context(), d.DB, currentWorkspace(r), d.BillingReturnURL)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]string{"url": url})
		return nil
	}
}

// providerWebhook applies one verified delivery exactly once. A bad
// signature answers 400 and touches nothing; an internal failure answers
// 500 so the provider retries the delivery later (the ledger row rolled
// back with everything else).
func providerWebhook(d Deps, p ProviderWebhooks) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		payload, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return fault.New(fault.TooLarge, "too_large", "The webhook body is too large.")
			}
			return errBadProviderSignature
		}
		ev, err := p.ParseWebhook(payload, r.Header.Get("Stripe-Signature"))
		if err != nil {
			d.Logger.Warn("billing webhook refused", "reason", err.Error())
			return errBadProviderSignature
		}
		var outcome string
		err = pgdb.WithTx(r.Context(), d.DB, func(tx pgx.Tx) error {
			var err error
			outcome, err = d.Subscriptions.ApplyProviderEvent(r.Context(), tx, ev)
			return err
		})
		if err != nil {
			return err
		}
		d.Logger.Info("billing webhook", "provider", ev.Provider, "event_id", ev.ID, "type", ev.Type, "outcome", outcome)
		WriteJSON(w, http.StatusOK, map[string]string{"outcome": outcome})
		return nil
	}
}
