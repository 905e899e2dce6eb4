package subscription

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Reconcile compares every paying account with the provider's subscription
// state and repairs drift (a webhook that never arrived), then ends the
// grace periods that ran out. It appends only what changed and returns how
// many accounts it changed. Safe to run concurrently with webhooks: each
// account is decided under its row lock.
func (s *Service) Reconcile(ctx context.Context, db *pgxpool.Pool) (int, error) {
	rows, err := db.Query(ctx, `SELECT user_id, COALESCE(billing_subscription_id, '') FROM subscriptions
		WHERE (billing_subscription_id IS NOT NULL AND billing_status NOT IN ('canceled', 'incomplete_expired'))
		   OR (plan = 'pro' AND billing_grace_until IS NOT NULL) ORDER BY user_id`)
	if err != nil {
		return 0, fmt.Errorf("list paying accounts: %w", err)
	}
	type payer struct{ user, sub string }
	payers, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payer, error) {
		var p payer
		return p, row.Scan(&p.user, &p.sub)
	})
	if err != nil {
		return 0, fmt.Errorf("list paying accounts: %w", err)
	}
	changed := 0
	for _, p := range payers {
		var remote *ProviderSubscription
		if p.sub != "" && s.checkout != nil {
			got, err := s.checkout.Subscription(ctx, p.sub)
			if err != nil {
				return changed, fmt.Errorf("read provider subscription of %s: %w", p.user, err)
			}
			remote = &got
		}
		var did bool
		err := pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
			var err error
			did, err = s.reconcileOne(ctx, tx, p.user, p.sub, remote)
			return err
		})
		if err != nil {
			return changed, err
		}
		if did {
			changed++
		}
	}
	return changed, nil
}

func (s *Service) reconcileOne(ctx context.Context, tx pgx.Tx, userID, subID string, remote *ProviderSubscription) (bool, error) {
	r, err := lockRecord(ctx, tx, userID)
	if err != nil {
		return false, err
	}
	now := s.now().UTC()
	var evs []events.Event
	if remote != nil && r.Billing.SubscriptionID == subID {
		ev := ProviderEvent{Provider: s.providerName(), Kind: EventSubscriptionChanged, Created: now,
			CustomerID: remote.CustomerID, Subscription: *remote}
		evs, _ = s.subscriptionState(r, ev, *remote, now)
		for i, e := range evs {
			if pc, ok := e.(events.PlanChanged); ok {
				pc.Reason = "reconcile"
				evs[i] = pc
			}
		}
	}
	evs = s.endExpiredGrace(r, evs, now)
	if len(evs) == 0 {
		return false, nil
	}
	return true, s.apply(ctx, tx, userID, r.Version, evs...)
}

// endExpiredGrace adds the fall back to Free when r's grace period, as it
// stands after evs (the provider's state just read), has run out. It is
// decided after the provider's state, not instead of it: a provider that
// moved the period end on the same pass would otherwise hide an expired
// grace until the next pass.
func (s *Service) endExpiredGrace(r Record, evs []events.Event, now time.Time) []events.Event {
	if r.Plan != PlanPro {
		return evs
	}
	grace, synced := r.Billing.GraceUntil, -1
	for i, e := range evs {
		switch e := e.(type) {
		case events.PlanChanged:
			return evs // the provider's state already changes the plan
		case events.BillingSubscriptionSynced:
			grace, synced = e.GraceUntil, i
		}
	}
	if grace == nil || now.Before(*grace) {
		return evs
	}
	pc := events.PlanChanged{UserID: r.UserID, From: string(PlanPro), To: string(PlanFree),
		Provider: s.providerName(), Reason: "grace_expired", At: now}
	if synced >= 0 {
		sy := evs[synced].(events.BillingSubscriptionSynced)
		sy.GraceUntil = nil
		evs[synced] = sy
		return append([]events.Event{pc}, evs...)
	}
	b := r.Billing
	return append(evs, pc, events.BillingSubscriptionSynced{UserID: r.UserID, Provider: s.providerName(), Source: "reconcile",
		SubscriptionID: b.SubscriptionID, Status: b.Status, CurrentPeriodEnd: b.PeriodEnd,
		CancelAtPeriodEnd: b.CancelAtPeriodEnd, StateAt: now, At: now})
}

// ReconcileArgs is the periodic billing reconciliation.
type ReconcileArgs struct{}

// Kind implements river.JobArgs.
func (ReconcileArgs) Kind() string { return "billing_reconcile" }

// DefaultReconcileInterval is how often billing is reconciled
// (BILLING_RECONCILE_INTERVAL): a missed webhook or an expired grace
// period is repaired within this long.
const DefaultReconcileInterval = 15 * time.Minute

// PeriodicReconcile schedules ReconcileWorker every interval and at start-up.
func PeriodicReconcile(interval time.Duration) *river.PeriodicJob {
	if interval <= 0 {
		interval = DefaultReconcileInterval
	}
	return river.NewPeriodicJob(river.PeriodicInterval(interval),
		func() (river.JobArgs, *river.InsertOpts) { return ReconcileArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// ReconcileWorker runs Service.Reconcile. Idempotent: a second run finds
// nothing to change.
type ReconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	DB      *pgxpool.Pool
	Service *Service
	Logger  *slog.Logger
}

// Work implements river.Worker.
func (w *ReconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	n, err := w.Service.Reconcile(ctx, w.DB)
	if err != nil {
		return err
	}
	if n > 0 && w.Logger != nil {
		w.Logger.Info("billing reconciled", "accounts_changed", n)
	}
	return nil
}
