package subscription

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// Each click on Upgrade or Buy used to create a Checkout Session at the
// provider, so one user looping on it spent the platform account's provider
// rate limit, and checkout, the portal and reconciliation then failed for
// every merchant (third security review, L5). A click now reuses the
// account's open session for the same purchase; the per-account limit on
// the route (internal/httpapi) bounds the rest.
const (
	// CheckoutLifetime is how long a hosted payment page takes payment
	// (the provider's minimum is 30 minutes).
	CheckoutLifetime = time.Hour
	// checkoutReuseMargin: a session is handed out again only while this
	// much of it is left, so the buyer has time to pay before it closes.
	checkoutReuseMargin = 10 * time.Minute
)

// openCheckout is the URL of the user's open session for (kind, packs) with
// time left to pay, if there is one.
func openCheckout(ctx context.Context, q pgdb.Querier, userID, kind string, packs int64, now time.Time) (string, bool, error) {
	var url string
	err := q.QueryRow(ctx, `SELECT url FROM billing_checkout_sessions
		WHERE user_id = $1 AND kind = $2 AND packs = $3 AND expires_at > $4`,
		userID, kind, packs, now.Add(checkoutReuseMargin)).Scan(&url)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("find open checkout of %s: %w", userID, err)
	}
	return url, true, nil
}

// rememberCheckout keeps a new session for reuse (replacing the user's
// earlier one for the same purchase) and drops every expired session.
func rememberCheckout(ctx context.Context, q pgdb.Querier, userID, kind string, packs int64, cs CheckoutSession, expires, now time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM billing_checkout_sessions WHERE expires_at <= $1`, now); err != nil {
		return fmt.Errorf("prune expired checkouts: %w", err)
	}
	if _, err := q.Exec(ctx, `INSERT INTO billing_checkout_sessions (user_id, kind, packs, session_id, url, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (user_id, kind, packs) DO UPDATE
		SET session_id = EXCLUDED.session_id, url = EXCLUDED.url, expires_at = EXCLUDED.expires_at, created_at = now()`,
		userID, kind, packs, cs.ID, cs.URL, expires); err != nil {
		return fmt.Errorf("remember checkout of %s: %w", userID, err)
	}
	return nil
}

// closeCheckout forgets a session the provider reports completed: it never
// takes a second payment, so the next click must start a new one.
func closeCheckout(ctx context.Context, tx pgx.Tx, userID, sessionID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM billing_checkout_sessions WHERE user_id = $1 AND session_id = $2`, userID, sessionID); err != nil {
		return fmt.Errorf("close checkout %s: %w", sessionID, err)
	}
	return nil
}
