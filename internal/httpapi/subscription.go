package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/workspace"
)

// subscriptionView adds the catalogue's usage to the subscription: products
// and galleries used against productLimit and galleryLimit (null = unlimited),
// and the public pages published now, which need public views to stay up
// (the Switch to Free dialog says how many would go offline, issue 50 item 6).
type subscriptionView struct {
	subscription.View
	ProductsUsed  int                 `json:"productsUsed"`
	GalleriesUsed int                 `json:"galleriesUsed"`
	LivePages     workspace.LivePages `json:"livePages"`
}

func getSubscription(subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := subs.Get(r.Context(), d.DB, currentWorkspace(r))
		if err != nil {
			return err
		}
		return writeSubscription(w, r, d, v)
	}
}

// writeSubscription answers every subscription route with the same shape.
func writeSubscription(w http.ResponseWriter, r *http.Request, d Deps, v subscription.View) error {
	out := subscriptionView{View: v}
	if d.Catalog != nil {
		var err error
		if out.ProductsUsed, out.GalleriesUsed, err = d.Catalog.Usage(r.Context(), currentWorkspace(r)); err != nil {
			return err
		}
	}
	if d.Workspace != nil {
		var err error
		if out.LivePages, err = d.Workspace.LivePages(r.Context(), currentWorkspace(r)); err != nil {
			return err
		}
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// changeSubscription runs one subscription change in a transaction and
// answers with the updated view.
func changeSubscription(d Deps, r *http.Request, w http.ResponseWriter, fn func(tx pgx.Tx) (subscription.View, error)) error {
	var v subscription.View
	err := pgdb.WithTx(r.Context(), d.DB, func(tx pgx.Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	if err != nil {
		return err
	}
	return writeSubscription(w, r, d, v)
}

func startTrial(subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		// The trial length is the server's decision: a "days" the client
		// sends is read (older clients send 7) and ignored, never trusted.
		var body struct {
			Days json.RawMessage `json:"days"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		return changeSubscription(d, r, w, func(tx pgx.Tx) (subscription.View, error) {
			return subs.StartTrial(r.Context(), tx, currentWorkspace(r), subscription.DefaultTrialDays)
		})
	}
}

func purchaseAddon(subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Kind   string `json:"kind"`
			Amount *int64 `json:"amount"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		var amount int64
		switch {
		case body.Amount != nil:
			amount = *body.Amount
		case body.Kind == subscription.AddonKindViews:
			amount = subscription.DefaultViewsBuy
		default:
			amount = subscription.DefaultCreditsBuy
		}
		return changeSubscription(d, r, w, func(tx pgx.Tx) (subscription.View, error) {
			return subs.PurchaseAddon(r.Context(), tx, currentWorkspace(r), body.Kind, amount)
		})
	}
}

func changePlan(subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Plan string `json:"plan"`
		}
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		return changeSubscription(d, r, w, func(tx pgx.Tx) (subscription.View, error) {
			return subs.ChangePlan(r.Context(), tx, currentWorkspace(r), subscription.Plan(body.Plan))
		})
	}
}
