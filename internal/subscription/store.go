package subscription

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// This file is the package's only SQL: the subscriptions read model, the
// per-job credit holds and the view leases, all maintained by Project.

const recordColumns = `user_id, plan, trial_started_at, trial_days, trial_ever_started,
	ai_credits_purchased, ai_credits_used, ai_credits_reserved,
	public_views_purchased, public_views_used, public_views_leased, version,
	COALESCE(billing_customer_id, ''), COALESCE(billing_subscription_id, ''), billing_status,
	billing_period_end, billing_cancel_at_end, billing_grace_until, billing_state_at`

var errNoSubscription = fault.New(fault.NotFound, "not_found", "Subscription not found.")

func scanRecord(row pgx.Row) (Record, error) {
	var r Record
	var plan string
	err := row.Scan(&r.UserID, &plan, &r.TrialStartedAt, &r.TrialDays, &r.TrialEverStarted,
		&r.AICreditsPurchased, &r.AICreditsUsed, &r.AICreditsReserved,
		&r.PublicViewsPurchased, &r.PublicViewsUsed, &r.PublicViewsLeased, &r.Version,
		&r.Billing.CustomerID, &r.Billing.SubscriptionID, &r.Billing.Status,
		&r.Billing.PeriodEnd, &r.Billing.CancelAtPeriodEnd, &r.Billing.GraceUntil, &r.Billing.StateAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Record{}, errNoSubscription
	}
	if err != nil {
		return Record{}, fmt.Errorf("read subscription: %w", err)
	}
	r.Plan = Plan(plan)
	return r, nil
}

// loadRecord reads a user's record without locking (reads).
func loadRecord(ctx context.Context, q pgdb.Querier, userID string) (Record, error) {
	return scanRecord(q.QueryRow(ctx, `SELECT `+recordColumns+` FROM subscriptions WHERE user_id = $1`, userID))
}

// lockRecord reads and row-locks a user's record for the rest of tx: every
// money operation on one user is serialised here, so its decision and its
// append with the row's version as expected version see the same state.
func lockRecord(ctx context.Context, tx pgx.Tx, userID string) (Record, error) {
	return scanRecord(tx.QueryRow(ctx, `SELECT `+recordColumns+` FROM subscriptions WHERE user_id = $1 FOR UPDATE`, userID))
}

type reservation struct {
	UserID string
	Amount int64
	State  string
}

func loadReservation(ctx context.Context, tx pgx.Tx, jobID string) (reservation, bool, error) {
	var r reservation
	err := tx.QueryRow(ctx, `SELECT user_id, amount, state FROM credit_reservations WHERE job_id = $1`, jobID).
		Scan(&r.UserID, &r.Amount, &r.State)
	if errors.Is(err, pgx.ErrNoRows) {
		return reservation{}, false, nil
	}
	if err != nil {
		return reservation{}, false, fmt.Errorf("read reservation %s: %w", jobID, err)
	}
	return r, true, nil
}

type lease struct {
	UserID   string
	Granted  int64
	Consumed int64
	Returned int64
	Open     bool
}

func (l lease) remaining() int64 { return l.Granted - l.Consumed - l.Returned }

func loadLease(ctx context.Context, tx pgx.Tx, leaseID string) (lease, bool, error) {
	var l lease
	err := tx.QueryRow(ctx, `SELECT user_id, granted, consumed, returned, open FROM view_leases WHERE lease_id = $1`, leaseID).
		Scan(&l.UserID, &l.Granted, &l.Consumed, &l.Returned, &l.Open)
	if errors.Is(err, pgx.ErrNoRows) {
		return lease{}, false, nil
	}
	if err != nil {
		return lease{}, false, fmt.Errorf("read lease %s: %w", leaseID, err)
	}
	return l, true, nil
}

type expiredLease struct {
	ID        string
	Remaining int64
}

func expiredLeases(ctx context.Context, tx pgx.Tx, userID string, at any) ([]expiredLease, error) {
	rows, err := tx.Query(ctx, `SELECT lease_id, granted - consumed - returned FROM view_leases
		WHERE user_id = $1 AND open AND expires_at <= $2 ORDER BY lease_id`, userID, at)
	if err != nil {
		return nil, fmt.Errorf("list expired leases: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (expiredLease, error) {
		var l expiredLease
		err := row.Scan(&l.ID, &l.Remaining)
		return l, err
	})
}

// Project applies one subscription event to the read model. The Service
// calls it for every event it appends, in the same transaction (an inline
// projection that does not depend on how the Store was built); Rebuild
// replays it over the whole log. Events of other streams are ignored.
func Project(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	v, at := e.Version, e.OccurredAt
	var err error
	switch ev := e.Data.(type) {
	case events.SubscriptionOpened:
		_, err = tx.Exec(ctx, `INSERT INTO subscriptions (user_id, plan, version, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) ON CONFLICT (user_id) DO NOTHING`, ev.UserID, ev.Plan, v, ev.At)
	case events.TrialStarted:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET trial_started_at = $2, trial_days = $3,
			trial_ever_started = true, version = $4, updated_at = $5 WHERE user_id = $1`, ev.UserID, ev.At, ev.Days, v, at)
	case events.PlanChanged:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET plan = $2, trial_started_at = NULL,
			version = $3, updated_at = $4 WHERE user_id = $1`, ev.UserID, ev.To, v, at)
	case events.BillingCustomerLinked:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET billing_customer_id = $2,
			version = $3, updated_at = $4 WHERE user_id = $1`, ev.UserID, ev.CustomerID, v, at)
	case events.BillingSubscriptionSynced:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET billing_subscription_id = $2, billing_status = $3,
			billing_period_end = $4, billing_cancel_at_end = $5, billing_grace_until = $6,
			billing_state_at = GREATEST(billing_state_at, $7), version = $8, updated_at = $9 WHERE user_id = $1`,
			ev.UserID, ev.SubscriptionID, ev.Status, ev.CurrentPeriodEnd, ev.CancelAtPeriodEnd, ev.GraceUntil, ev.StateAt, v, at)
	case events.PaymentFailed:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET billing_grace_until = $2,
			version = $3, updated_at = $4 WHERE user_id = $1`, ev.UserID, ev.GraceUntil, v, at)
	case events.PaymentReceived:
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET version = $2, updated_at = $3 WHERE user_id = $1`, ev.UserID, v, at)
	case events.AddonPurchased:
		col := "ai_credits_purchased"
		if ev.Kind == AddonKindViews {
			col = "public_views_purchased"
		}
		_, err = tx.Exec(ctx, `UPDATE subscriptions SET `+col+` = `+col+` + $2,
			version = $3, updated_at = $4 WHERE user_id = $1`, ev.UserID, ev.Amount, v, at)
	case events.CreditsReserved:
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET ai_credits_reserved = ai_credits_reserved + $2,
				version = $3, updated_at = $4 WHERE user_id = $1`, []any{ev.UserID, ev.Amount, v, at}},
			stmt{`INSERT INTO credit_reservations (job_id, user_id, amount, state, created_at, updated_at)
				VALUES ($1, $2, $3, 'reserved', $4, $4)`, []any{ev.JobID, ev.UserID, ev.Amount, at}})
	case events.CreditsConsumed:
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET ai_credits_reserved = ai_credits_reserved - $2,
				ai_credits_used = ai_credits_used + $2, version = $3, updated_at = $4 WHERE user_id = $1`,
				[]any{ev.UserID, ev.Amount, v, at}},
			stmt{`UPDATE credit_reservations SET state = 'consumed', updated_at = $2 WHERE job_id = $1`, []any{ev.JobID, at}})
	case events.CreditsReleased:
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET ai_credits_reserved = ai_credits_reserved - $2,
				version = $3, updated_at = $4 WHERE user_id = $1`, []any{ev.UserID, ev.Amount, v, at}},
			stmt{`UPDATE credit_reservations SET state = 'released', updated_at = $2 WHERE job_id = $1`, []any{ev.JobID, at}})
	case events.PublicViewsLeased:
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET public_views_leased = public_views_leased + $2,
				version = $3, updated_at = $4 WHERE user_id = $1`, []any{ev.UserID, ev.Amount, v, at}},
			stmt{`INSERT INTO view_leases (lease_id, user_id, granted, expires_at, created_at)
				VALUES ($1, $2, $3, $4, $5)`, []any{ev.LeaseID, ev.UserID, ev.Amount, ev.Expires, at}})
	case events.PublicViewsConsumed:
		if ev.LeaseID == "" {
			_, err = tx.Exec(ctx, `UPDATE subscriptions SET public_views_used = public_views_used + $2,
				version = $3, updated_at = $4 WHERE user_id = $1`, ev.UserID, ev.Amount, v, at)
			break
		}
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET public_views_leased = public_views_leased - $2,
				public_views_used = public_views_used + $2, version = $3, updated_at = $4 WHERE user_id = $1`,
				[]any{ev.UserID, ev.Amount, v, at}},
			stmt{`UPDATE view_leases SET consumed = consumed + $2 WHERE lease_id = $1`, []any{ev.LeaseID, ev.Amount}})
	case events.PublicViewsLeaseReturned:
		err = execAll(ctx, tx,
			stmt{`UPDATE subscriptions SET public_views_leased = public_views_leased - $2,
				version = $3, updated_at = $4 WHERE user_id = $1`, []any{ev.UserID, ev.Amount, v, at}},
			stmt{`UPDATE view_leases SET returned = returned + $2, open = false WHERE lease_id = $1`, []any{ev.LeaseID, ev.Amount}})
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("project %s: %w", e.Type, err)
	}
	return nil
}

type stmt struct {
	sql  string
	args []any
}

func execAll(ctx context.Context, tx pgx.Tx, stmts ...stmt) error {
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// Rebuild recreates the subscription read model from the event log in tx,
// giving exactly the state incremental projection produced.
func Rebuild(ctx context.Context, tx pgx.Tx, store *eventstore.Store) error {
	if _, err := tx.Exec(ctx, `TRUNCATE subscriptions, credit_reservations, view_leases`); err != nil {
		return fmt.Errorf("clear subscription read model: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+eventstore.Columns+` FROM events WHERE stream_type = $1 ORDER BY position`, events.StreamSubscription)
	if err != nil {
		return fmt.Errorf("read subscription events: %w", err)
	}
	envs, err := store.ScanRows(rows)
	if err != nil {
		return fmt.Errorf("decode subscription events: %w", err)
	}
	for _, e := range envs {
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}
