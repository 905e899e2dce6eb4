package subscription_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

type bundle struct {
	db    *dbtest.DB
	store *eventstore.Store
	svc   *subscription.Service
	ctx   context.Context
}

func setup(t *testing.T) bundle {
	db := dbtest.New(t)
	store := eventstore.New(events.Domain())
	return bundle{db: db, store: store, svc: subscription.NewService(store, subscription.TestMode{}), ctx: context.Background()}
}

func (b bundle) tx(t *testing.T, fn func(tx pgx.Tx) error) error {
	t.Helper()
	return pgdb.WithTx(b.ctx, b.db.Pool, fn)
}

func (b bundle) open(t *testing.T, userID string) {
	t.Helper()
	require.NoError(t, b.tx(t, func(tx pgx.Tx) error { return b.svc.Open(b.ctx, tx, userID) }))
}

func (b bundle) view(t *testing.T, userID string) subscription.View {
	t.Helper()
	v, err := b.svc.Get(b.ctx, b.db.Pool, userID)
	require.NoError(t, err)
	return v
}

func (b bundle) types(t *testing.T, userID string) []string {
	t.Helper()
	envs, _, err := b.store.Load(b.ctx, b.db.Pool, subscription.Stream(userID))
	require.NoError(t, err)
	var out []string
	for _, e := range envs {
		out = append(out, e.Type)
	}
	return out
}

func TestOpenStartsOnFreePlan(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	v := b.view(t, "u1")
	require.Equal(t, subscription.PlanFree, v.Plan)
	require.Equal(t, subscription.PlanFree, v.EffectivePlan)
	require.Equal(t, 7, v.TrialDays)
	require.Equal(t, ptr(5), v.AICreditBalance)
	require.Equal(t, ptr(0), v.PublicViewsBalance)
	require.Equal(t, []string{"subscription.opened.v1"}, b.types(t, "u1"))

	_, err := b.svc.Get(b.ctx, b.db.Pool, "nobody")
	require.True(t, fault.IsKind(err, fault.NotFound))
	// Opening twice is a stream conflict, never a second row.
	err = b.tx(t, func(tx pgx.Tx) error { return b.svc.Open(b.ctx, tx, "u1") })
	require.ErrorIs(t, err, eventstore.ErrConflict)
}

func TestReserveConsumeReleaseAreIdempotentPerJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	run := func(fn func(tx pgx.Tx) error) error { return b.tx(t, fn) }

	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReserveCredits(b.ctx, tx, "u1", "job-a", 2) }))
	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReserveCredits(b.ctx, tx, "u1", "job-a", 2) }))
	v := b.view(t, "u1")
	require.Equal(t, int64(2), v.AICreditsReserved)
	require.Equal(t, ptr(3), v.AICreditBalance)

	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ConsumeCredits(b.ctx, tx, "u1", "job-a") }))
	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ConsumeCredits(b.ctx, tx, "u1", "job-a") }))
	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReleaseCredits(b.ctx, tx, "u1", "job-a", "late") }))
	v = b.view(t, "u1")
	require.Equal(t, int64(0), v.AICreditsReserved)
	require.Equal(t, int64(2), v.AICreditsUsed)
	require.Equal(t, ptr(3), v.AICreditBalance)

	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReserveCredits(b.ctx, tx, "u1", "job-b", 3) }))
	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReleaseCredits(b.ctx, tx, "u1", "job-b", "build failed") }))
	require.NoError(t, run(func(tx pgx.Tx) error { return b.svc.ReleaseCredits(b.ctx, tx, "u1", "job-b", "build failed") }))
	err := run(func(tx pgx.Tx) error { return b.svc.ConsumeCredits(b.ctx, tx, "u1", "job-b") })
	require.Error(t, err)
	v = b.view(t, "u1")
	require.Equal(t, ptr(3), v.AICreditBalance)
	require.Equal(t, int64(0), v.AICreditsReserved)

	// Not enough: nothing changes and the contract error is returned.
	err = run(func(tx pgx.Tx) error { return b.svc.ReserveCredits(b.ctx, tx, "u1", "job-c", 4) })
	require.True(t, subscription.IsInsufficientCredits(err))
	fe, _ := fault.As(err)
	require.Equal(t, fault.PaymentRequired, fe.Kind)
	require.Equal(t, "Not enough AI credits. Buy more credits or upgrade your plan on the Subscription page.", fe.Message)

	err = run(func(tx pgx.Tx) error { return b.svc.ConsumeCredits(b.ctx, tx, "u1", "job-unknown") })
	require.ErrorIs(t, err, subscription.ErrNoReservation)
	// Another user's job is not found for this user.
	b.open(t, "u2")
	err = run(func(tx pgx.Tx) error { return b.svc.ConsumeCredits(b.ctx, tx, "u2", "job-a") })
	require.ErrorIs(t, err, subscription.ErrNoReservation)

	require.Equal(t, []string{"subscription.opened.v1", "subscription.credits_reserved.v1", "subscription.credits_consumed.v1",
		"subscription.credits_reserved.v1", "subscription.credits_released.v1"}, b.types(t, "u1"))
}

func TestReservationRollsBackWithTheCallersTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	boom := errors.New("job insert failed")
	err := b.tx(t, func(tx pgx.Tx) error {
		if err := b.svc.ReserveCredits(b.ctx, tx, "u1", "job-a", 5); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, ptr(5), b.view(t, "u1").AICreditBalance)
}

// 1,000 concurrent reservations of 1 credit against a balance of 5: exactly 5
// succeed, the rest get "Not enough AI credits", and nothing goes negative.
func TestThousandConcurrentReservations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	const n = 1000
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := b.tx(t, func(tx pgx.Tx) error {
				return b.svc.ReserveCredits(b.ctx, tx, "u1", fmt.Sprintf("job-%d", i), 1)
			})
			switch {
			case err == nil:
				ok.Add(1)
			case subscription.IsInsufficientCredits(err):
				refused.Add(1)
			default:
				t.Errorf("reservation %d: unexpected error %v", i, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Equal(t, int32(5), ok.Load())
	require.Equal(t, int32(n-5), refused.Load())
	v := b.view(t, "u1")
	require.Equal(t, int64(5), v.AICreditsReserved)
	require.Equal(t, ptr(0), v.AICreditBalance)
	var holds int
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `SELECT count(*) FROM credit_reservations WHERE user_id = 'u1'`).Scan(&holds))
	require.Equal(t, 5, holds)
	require.Len(t, b.types(t, "u1"), 6)
}

func TestTrialAddonsAndPlanChanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	now := time.Now()
	svc := b.svc.WithClock(func() time.Time { return now })
	call := func(fn func(tx pgx.Tx) (subscription.View, error)) (subscription.View, error) {
		var v subscription.View
		err := b.tx(t, func(tx pgx.Tx) error {
			var err error
			v, err = fn(tx)
			return err
		})
		return v, err
	}

	v, err := call(func(tx pgx.Tx) (subscription.View, error) { return svc.StartTrial(b.ctx, tx, "u1", 7) })
	require.NoError(t, err)
	require.True(t, v.TrialActive)
	require.True(t, v.TrialEverStarted)
	require.Equal(t, subscription.PlanPro, v.EffectivePlan)
	require.Equal(t, ptr(50), v.AICreditBalance)

	_, err = call(func(tx pgx.Tx) (subscription.View, error) { return svc.StartTrial(b.ctx, tx, "u1", 7) })
	require.True(t, fault.IsKind(err, fault.Conflict))

	v, err = call(func(tx pgx.Tx) (subscription.View, error) { return svc.PurchaseAddon(b.ctx, tx, "u1", "credits", 20) })
	require.NoError(t, err)
	require.Equal(t, int64(20), v.AICreditsPurchased)
	require.Equal(t, ptr(70), v.AICreditBalance)
	v, err = call(func(tx pgx.Tx) (subscription.View, error) { return svc.PurchaseAddon(b.ctx, tx, "u1", "views", 10000) })
	require.NoError(t, err)
	require.Equal(t, ptr(35000), v.PublicViewsBalance)

	// Downgrading to free ends the trial; trialEverStarted stays.
	v, err = call(func(tx pgx.Tx) (subscription.View, error) {
		return svc.ChangePlan(b.ctx, tx, "u1", subscription.PlanFree)
	})
	require.NoError(t, err)
	require.False(t, v.TrialActive)
	require.True(t, v.TrialEverStarted)
	require.Nil(t, v.TrialStartedAt)
	require.Equal(t, ptr(25), v.AICreditBalance)

	v, err = call(func(tx pgx.Tx) (subscription.View, error) {
		return svc.ChangePlan(b.ctx, tx, "u1", subscription.PlanPro)
	})
	require.NoError(t, err)
	require.Equal(t, subscription.PlanPro, v.Plan)
	// Same plan, no trial: nothing appended.
	_, err = call(func(tx pgx.Tx) (subscription.View, error) {
		return svc.ChangePlan(b.ctx, tx, "u1", subscription.PlanPro)
	})
	require.NoError(t, err)
	require.Equal(t, []string{"subscription.opened.v1", "subscription.trial_started.v1", "subscription.addon_purchased.v1",
		"subscription.addon_purchased.v1", "subscription.plan_changed.v1", "subscription.plan_changed.v1"}, b.types(t, "u1"))

	// With billing off, purchases are refused and nothing changes.
	off := subscription.NewService(b.store, subscription.NoBilling{})
	_, err = call(func(tx pgx.Tx) (subscription.View, error) { return off.PurchaseAddon(b.ctx, tx, "u1", "credits", 20) })
	require.True(t, fault.IsKind(err, fault.Forbidden))
}

func TestViewLeases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	now := time.Now()
	svc := b.svc.WithClock(func() time.Time { return now })
	run := func(fn func(tx pgx.Tx) error) error { return b.tx(t, fn) }
	lease := func(id string, want int64) int64 {
		var got int64
		require.NoError(t, run(func(tx pgx.Tx) error {
			var err error
			got, err = svc.LeaseViews(b.ctx, tx, "u1", id, want, time.Minute)
			return err
		}))
		return got
	}

	require.Equal(t, int64(0), lease("l0", 100), "free plan has 0 public views")
	require.NoError(t, run(func(tx pgx.Tx) error {
		_, err := svc.PurchaseAddon(b.ctx, tx, "u1", "views", 150)
		return err
	}))
	require.Equal(t, int64(100), lease("l1", 100))
	require.Equal(t, int64(100), lease("l1", 100), "same lease id is idempotent")
	require.Equal(t, int64(50), lease("l2", 100), "grants what is left")
	require.Equal(t, ptr(0), b.view(t, "u1").PublicViewsBalance)

	require.NoError(t, run(func(tx pgx.Tx) error { return svc.ConsumeViews(b.ctx, tx, "u1", "l1", 30) }))
	err := run(func(tx pgx.Tx) error { return svc.ConsumeViews(b.ctx, tx, "u1", "l1", 71) })
	require.ErrorIs(t, err, subscription.ErrLeaseExceeded)
	// 60 left unused of l1's 70: the other 10 were served and not yet reported.
	require.NoError(t, run(func(tx pgx.Tx) error { return svc.ReturnLease(b.ctx, tx, "u1", "l1", 60) }))
	require.NoError(t, run(func(tx pgx.Tx) error { return svc.ReturnLease(b.ctx, tx, "u1", "l1", 60) }))
	v := b.view(t, "u1")
	require.Equal(t, int64(40), v.PublicViewsUsed)
	require.Equal(t, int64(50), v.PublicViewsLeased)
	require.Equal(t, ptr(60), v.PublicViewsBalance)

	// An expired lease's unused views come back before the next lease is granted.
	later := svc.WithClock(func() time.Time { return now.Add(2 * time.Minute) })
	var got int64
	require.NoError(t, run(func(tx pgx.Tx) error {
		var err error
		got, err = later.LeaseViews(b.ctx, tx, "u1", "l3", 1000, time.Minute)
		return err
	}))
	require.Equal(t, int64(110), got)
	v = b.view(t, "u1")
	require.Equal(t, int64(110), v.PublicViewsLeased)
	require.Equal(t, ptr(0), v.PublicViewsBalance)

	b.open(t, "u2")
	err = run(func(tx pgx.Tx) error { return svc.ConsumeViews(b.ctx, tx, "u2", "l3", 1) })
	require.ErrorIs(t, err, subscription.ErrNoLease, "another user's lease")
}

func TestRebuildMatchesIncrementalProjection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.open(t, "u1")
	b.open(t, "u2")
	require.NoError(t, b.tx(t, func(tx pgx.Tx) error {
		if _, err := b.svc.StartTrial(b.ctx, tx, "u1", 3); err != nil {
			return err
		}
		if err := b.svc.ReserveCredits(b.ctx, tx, "u1", "j1", 4); err != nil {
			return err
		}
		if err := b.svc.ConsumeCredits(b.ctx, tx, "u1", "j1"); err != nil {
			return err
		}
		if _, err := b.svc.PurchaseAddon(b.ctx, tx, "u2", "views", 10); err != nil {
			return err
		}
		if _, err := b.svc.LeaseViews(b.ctx, tx, "u2", "l1", 5, time.Minute); err != nil {
			return err
		}
		// Billing state from a provider: paid Pro, then a failed renewal.
		at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
		for _, ev := range []subscription.ProviderEvent{
			{Provider: "stripe", ID: "evt_1", Kind: subscription.EventCheckoutCompleted, Created: at, UserID: "u2", CustomerID: "cus_2",
				CheckoutSessionID: "cs_1", Paid: true, Purchase: "pro", Packs: 1, Subscription: subscription.ProviderSubscription{ID: "sub_2"}},
			{Provider: "stripe", ID: "evt_2", Kind: subscription.EventInvoicePaymentFailed, Created: at.Add(time.Minute), CustomerID: "cus_2",
				InvoiceID: "in_1", Subscription: subscription.ProviderSubscription{ID: "sub_2"}},
		} {
			if out, err := b.svc.ApplyProviderEvent(b.ctx, tx, ev); err != nil || out != subscription.OutcomeApplied {
				return fmt.Errorf("apply %s: %s %w", ev.ID, out, err)
			}
		}
		return nil
	}))
	before := []subscription.View{b.view(t, "u1"), b.view(t, "u2")}
	require.True(t, before[1].Billing.PaymentFailed)
	require.NoError(t, b.tx(t, func(tx pgx.Tx) error { return subscription.Rebuild(b.ctx, tx, b.store) }))
	require.Equal(t, before, []subscription.View{b.view(t, "u1"), b.view(t, "u2")})
}
