package publish_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

// Two api instances, 200 concurrent views, a balance of 100: exactly 100 are
// served, the ledger records exactly 100, and the owner is told once.
func TestMeterNeverOversells(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "trial")
	p := e.Publish(t, owner, e.Blueprint(t, owner, "Stool"))
	e.Downgrade(t, owner)
	e.SetViewBalance(t, owner, 100)

	a, b := e.Meter, e.NewMeter()
	var served atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := a
			if i%2 == 1 {
				m = b
			}
			if m.Take(e.Ctx, owner, p.ID) {
				served.Add(1)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 100, served.Load())
	require.False(t, a.Take(e.Ctx, owner, p.ID))

	require.NoError(t, a.Flush(e.Ctx))
	require.NoError(t, b.Flush(e.Ctx))
	v := e.Subscription(t, owner)
	require.EqualValues(t, 100, v.PublicViewsUsed)
	require.EqualValues(t, 0, *v.PublicViewsBalance)

	time.Sleep(100 * time.Millisecond) // past ExhaustedRetry: both instances ask the ledger again
	require.False(t, a.Take(e.Ctx, owner, p.ID))
	require.False(t, b.Take(e.Ctx, owner, p.ID))
	exhausted := 0
	for _, typ := range e.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}) {
		if typ == "publication.views_exhausted.v1" {
			exhausted++
		}
	}
	require.Equal(t, 1, exhausted, "the owner is told once per exhaustion")

	// Buying views ends the exhaustion; running out again tells the owner again.
	e.SetViewBalance(t, owner, 3)
	time.Sleep(100 * time.Millisecond)
	for range 3 {
		require.True(t, a.Take(e.Ctx, owner, p.ID))
	}
	require.False(t, a.Take(e.Ctx, owner, p.ID))
	exhausted = 0
	for _, typ := range e.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}) {
		if typ == "publication.views_exhausted.v1" {
			exhausted++
		}
	}
	require.Equal(t, 2, exhausted)
}

// Served views reach publicViewsUsed within a flush; unused leased views go
// back to the balance on shutdown.
func TestMeterFlushesAndReturnsOnClose(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	p := e.Publish(t, owner, e.Blueprint(t, owner, "Bench"))
	before := *e.Subscription(t, owner).PublicViewsBalance

	m := e.NewMeter()
	ctx, cancel := contextWithCancel(e)
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	for range 7 {
		require.True(t, m.Take(e.Ctx, owner, p.ID))
	}
	// The meter flushes every 2 s; the generous bound only matters on a busy machine.
	require.Eventually(t, func() bool { return e.Subscription(t, owner).PublicViewsUsed == 7 }, 30*time.Second, 20*time.Millisecond)
	require.Positive(t, e.Subscription(t, owner).PublicViewsLeased, "the rest of the block is still leased")

	cancel()
	<-done
	require.NoError(t, m.Close(e.Ctx))
	v := e.Subscription(t, owner)
	require.EqualValues(t, 7, v.PublicViewsUsed)
	require.EqualValues(t, 0, v.PublicViewsLeased)
	require.Equal(t, before-7, *v.PublicViewsBalance)
	require.False(t, m.Take(e.Ctx, owner, p.ID), "a closed meter serves nothing")
}

// Unlimited plans are served without limit and still counted.
func TestMeterUnlimitedOwner(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	p := e.Publish(t, owner, e.Blueprint(t, owner, "Desk"))
	_, err := e.DB.Pool.Exec(e.Ctx, `UPDATE subscriptions SET plan = 'enterprise' WHERE user_id = $1`, owner)
	require.NoError(t, err)
	for range 500 {
		require.True(t, e.Meter.Take(e.Ctx, owner, p.ID))
	}
	require.NoError(t, e.Meter.Close(e.Ctx))
	require.EqualValues(t, 500, e.Subscription(t, owner).PublicViewsUsed)
}
