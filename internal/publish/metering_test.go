package publish_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/publish"
)

// syncBuffer is a bytes.Buffer safe for the meter's goroutine to write while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

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

	// The meter logs what its flushes hit, so a failure below says why
	// instead of only "condition never satisfied".
	var logged syncBuffer
	m := publish.NewMeter(e.DB.Pool, e.Subs, e.Store, slog.New(slog.NewTextHandler(&logged, nil)), e.MeterCfg)
	ctx, cancel := contextWithCancel(e)
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	for range 7 {
		require.True(t, m.Take(e.Ctx, owner, p.ID))
	}
	// The meter flushes every 50 ms here; the generous bound only matters on
	// a busy machine. Each read has its own deadline and a failed read is
	// just "not yet": a read that hung or called FailNow inside Eventually's
	// goroutine would stall every later tick until the timeout.
	used := func() int64 {
		rctx, rcancel := context.WithTimeout(e.Ctx, 5*time.Second)
		defer rcancel()
		v, err := e.Subs.Get(rctx, e.DB.Pool, owner)
		if err != nil {
			return -1
		}
		return v.PublicViewsUsed
	}
	if !assert.Eventually(t, func() bool { return used() == 7 }, 30*time.Second, 20*time.Millisecond) {
		t.Fatalf("views used: %d; meter log:\n%s", used(), logged.String())
	}
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

// blockingLedger holds the first LeaseViews until released, so a test can
// run a flush while an owner's first lease is being requested.
type blockingLedger struct {
	publish.ViewLedger
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (l *blockingLedger) LeaseViews(ctx context.Context, tx pgx.Tx, userID, leaseID string, want int64, ttl time.Duration) (int64, error) {
	l.once.Do(func() {
		close(l.entered)
		<-l.release
	})
	return l.ViewLedger.LeaseViews(ctx, tx, userID, leaseID, want, ttl)
}

// A flush that runs while an owner's first lease is being requested sees an
// owner with no lease and no views yet. It used to drop that owner from the
// meter while the request went on: the views served from the new lease were
// then never written to the ledger (7 served, 6 recorded, under load).
func TestMeterKeepsOwnerWhoseFirstLeaseIsInFlight(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.Owner(t, "pro")
	p := e.Publish(t, owner, e.Blueprint(t, owner, "Lamp"))
	ledger := &blockingLedger{ViewLedger: e.Subs, entered: make(chan struct{}), release: make(chan struct{})}
	m := publish.NewMeter(e.DB.Pool, ledger, e.Store, e.Log, e.MeterCfg)

	first := make(chan bool)
	go func() { first <- m.Take(e.Ctx, owner, p.ID) }()
	<-ledger.entered
	require.NoError(t, m.Flush(e.Ctx)) // the owner looks idle: no lease, no view
	close(ledger.release)
	require.True(t, <-first)
	for range 6 {
		require.True(t, m.Take(e.Ctx, owner, p.ID))
	}
	require.NoError(t, m.Flush(e.Ctx))
	require.EqualValues(t, 7, e.Subscription(t, owner).PublicViewsUsed, "every served view is recorded")
	require.NoError(t, m.Close(e.Ctx))
	v := e.Subscription(t, owner)
	require.EqualValues(t, 7, v.PublicViewsUsed)
	require.EqualValues(t, 0, v.PublicViewsLeased, "no lease is left behind")
}
