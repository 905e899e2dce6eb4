package eventstore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

type counted struct {
	N int `json:"n"`
}

func (counted) EventType() string { return "test.counted.v1" }

type bundle struct {
	db    *dbtest.DB
	store *eventstore.Store
}

func setup(t testing.TB, opts ...eventstore.Option) bundle {
	db := dbtest.New(t)
	return bundle{db: db, store: eventstore.New(events.NewRegistry(counted{}), opts...)}
}

func (b bundle) appendTx(ctx context.Context, stream events.Stream, expected int64, evs ...events.Event) error {
	return pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		_, err := b.store.Append(ctx, tx, stream, expected, evs...)
		return err
	})
}

// appendCommitted appends in a transaction of its own with AppendCommitted
// (one round trip when the store has no inline projections).
func (b bundle) appendCommitted(ctx context.Context, stream events.Stream, expected int64, evs ...events.Event) error {
	_, err := b.store.AppendCommitted(ctx, b.db.Pool, stream, expected, evs...)
	return err
}

// appenders are the two ways to append; the concurrency tests hold for both.
var appenders = map[string]func(bundle, context.Context, events.Stream, int64, ...events.Event) error{
	"in-tx":     bundle.appendTx,
	"committed": bundle.appendCommitted,
}

func TestAppendAndLoadRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := eventstore.WithMetadata(context.Background(), eventstore.Metadata{Actor: "user-1", RequestID: "req-1"})
	s := events.Stream{Type: "test", ID: "a"}
	require.NoError(t, b.appendTx(ctx, s, 0, counted{1}, counted{2}))
	require.NoError(t, b.appendTx(ctx, s, 2, counted{3}))

	got, version, err := b.store.Load(ctx, b.db.Pool, s)
	require.NoError(t, err)
	require.Equal(t, int64(3), version)
	require.Len(t, got, 3)
	for i, e := range got {
		require.Equal(t, int64(i+1), e.Version)
		require.Equal(t, counted{i + 1}, e.Data)
		require.Equal(t, "test-a", e.StreamID)
		require.Equal(t, "req-1", e.Metadata.RequestID)
		require.NotZero(t, e.TransactionID)
	}
	require.Less(t, got[0].Position, got[2].Position)
}

func TestAppendConflictExactlyOneWins(t *testing.T) {
	t.Parallel()
	for name, appendTo := range appenders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testConflictExactlyOneWins(t, appendTo)
		})
	}
}

func testConflictExactlyOneWins(t *testing.T, appendTo func(bundle, context.Context, events.Stream, int64, ...events.Event) error) {
	b := setup(t)
	ctx := context.Background()
	s := events.Stream{Type: "test", ID: "race"}
	require.NoError(t, appendTo(b, ctx, s, 0, counted{0}))

	var wins, conflicts atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			err := appendTo(b, ctx, s, 1, counted{i})
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, eventstore.ErrConflict):
				conflicts.Add(1)
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	require.Equal(t, int32(1), wins.Load())
	require.Equal(t, int32(1), conflicts.Load())

	// A stale version that no longer matches is a conflict too, not a gap.
	err := appendTo(b, ctx, s, 5, counted{9})
	var ce *eventstore.ConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, int64(5), ce.Expected)
	_, version, err := b.store.Load(ctx, b.db.Pool, s)
	require.NoError(t, err)
	require.Equal(t, int64(2), version)
}

func TestFiftyGoroutinesAppendContiguousVersions(t *testing.T) {
	t.Parallel()
	for name, appendTo := range appenders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testFiftyGoroutines(t, appendTo)
		})
	}
}

func testFiftyGoroutines(t *testing.T, appendTo func(bundle, context.Context, events.Stream, int64, ...events.Event) error) {
	b := setup(t)
	ctx := context.Background()
	s := events.Stream{Type: "test", ID: "busy"}
	const writers, each = 50, 4
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; {
				v, err := b.store.Version(ctx, b.db.Pool, s)
				if err != nil {
					t.Error(err)
					return
				}
				err = appendTo(b, ctx, s, v, counted{w*100 + i})
				if errors.Is(err, eventstore.ErrConflict) {
					continue // reload and retry, as callers do
				}
				if err != nil {
					t.Error(err)
					return
				}
				i++
			}
		}(w)
	}
	wg.Wait()
	got, version, err := b.store.Load(ctx, b.db.Pool, s)
	require.NoError(t, err)
	require.Equal(t, int64(writers*each), version)
	seen := map[int]bool{}
	for i, e := range got {
		require.Equal(t, int64(i+1), e.Version, "versions must be contiguous")
		n := e.Data.(counted).N
		require.False(t, seen[n], "duplicate event %d", n)
		seen[n] = true
	}
	require.Len(t, seen, writers*each)
}

func TestUnknownEventTypeIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	err := b.appendTx(context.Background(), events.Stream{Type: "test", ID: "x"}, 0, events.JobFailed{})
	require.ErrorIs(t, err, events.ErrUnknownType)
}

func TestInlineProjectionRunsInTheAppendTransaction(t *testing.T) {
	t.Parallel()
	inline := eventstore.InlineFunc(func(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
		n := e.Data.(counted).N
		if n < 0 {
			return fmt.Errorf("negative")
		}
		_, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, last_position) VALUES ($1, $2)`, fmt.Sprint("inline-", n), e.Position)
		return err
	})
	b := setup(t, eventstore.WithInline(inline))
	ctx := context.Background()
	require.NoError(t, b.appendTx(ctx, events.Stream{Type: "test", ID: "i"}, 0, counted{1}))
	// A failing inline projection rolls back the event too.
	require.Error(t, b.appendTx(ctx, events.Stream{Type: "test", ID: "j"}, 0, counted{-1}))

	var rows, evs int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM projection_checkpoints WHERE name LIKE 'inline-%'`).Scan(&rows))
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&evs))
	require.Equal(t, 1, rows)
	require.Equal(t, 1, evs)
}

func TestAppendCommittedStoresNotifiesAndFallsBackForInline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := eventstore.WithMetadata(context.Background(), eventstore.Metadata{Actor: "user-2"})
	conn, err := b.db.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "LISTEN "+eventstore.NotifyChannel)
	require.NoError(t, err)

	s := events.Stream{Type: "test", ID: "one-trip"}
	out, err := b.store.AppendCommitted(ctx, b.db.Pool, s, 0, counted{1}, counted{2})
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.Equal(t, []int64{1, 2}, []int64{out[0].Version, out[1].Version})
	require.Equal(t, counted{2}, out[1].Data)
	require.Equal(t, "user-2", out[1].Metadata.Actor)
	require.NotZero(t, out[0].TransactionID)
	require.Equal(t, out[0].TransactionID, out[1].TransactionID, "one transaction")
	// The worker's projections are woken once it commits.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := conn.Conn().WaitForNotification(waitCtx)
	require.NoError(t, err)
	require.Equal(t, eventstore.NotifyChannel, n.Channel)

	got, version, err := b.store.Load(ctx, b.db.Pool, s)
	require.NoError(t, err)
	require.Equal(t, int64(2), version)
	require.Equal(t, out[1].Position, got[1].Position)

	// With inline projections it uses a real transaction: a failing
	// projection rolls the event back.
	inline := eventstore.InlineFunc(func(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
		if e.Data.(counted).N < 0 {
			return fmt.Errorf("negative")
		}
		_, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, last_position) VALUES ($1, $2)`, "committed-inline", e.Position)
		return err
	})
	withInline := eventstore.New(events.NewRegistry(counted{}), eventstore.WithInline(inline))
	_, err = withInline.AppendCommitted(ctx, b.db.Pool, events.Stream{Type: "test", ID: "inl"}, 0, counted{1})
	require.NoError(t, err)
	_, err = withInline.AppendCommitted(ctx, b.db.Pool, events.Stream{Type: "test", ID: "inl-bad"}, 0, counted{-1})
	require.Error(t, err)
	var rows int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM projection_checkpoints WHERE name = 'committed-inline'`).Scan(&rows))
	require.Equal(t, 1, rows)
	_, version, err = b.store.Load(ctx, b.db.Pool, events.Stream{Type: "test", ID: "inl-bad"})
	require.NoError(t, err)
	require.Zero(t, version)
}

// In pgdb.WithTx the projections' NOTIFY is sent once per transaction, after
// it commits: none for a rolled-back append, one for a transaction that
// appends to several streams, and the data is there when it arrives.
func TestAppendInWithTxNotifiesOnceAfterCommit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	listen, err := pgx.Connect(ctx, b.db.URL)
	require.NoError(t, err)
	defer listen.Close(ctx)
	_, err = listen.Exec(ctx, "LISTEN "+eventstore.NotifyChannel)
	require.NoError(t, err)
	// Notifications arrive in commit order: a marker sent by the listener
	// itself shows what the appends sent before it.
	marker := func(payload string) {
		_, err := listen.Exec(ctx, `SELECT pg_notify($1, $2)`, eventstore.NotifyChannel, payload)
		require.NoError(t, err)
	}
	a, c := events.Stream{Type: "test", ID: "a"}, events.Stream{Type: "test", ID: "c"}
	twoStreams := func(tx pgx.Tx) error {
		if _, err := b.store.Append(ctx, tx, a, 0, counted{1}); err != nil {
			return err
		}
		_, err := b.store.Append(ctx, tx, c, 0, counted{2}, counted{3})
		return err
	}

	undo := errors.New("undo")
	require.ErrorIs(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		if err := twoStreams(tx); err != nil {
			return err
		}
		return undo
	}), undo)
	marker("after the rollback")
	require.NoError(t, pgdb.WithTx(ctx, b.db.Pool, twoStreams))
	marker("after the commit")

	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var got []string
	for len(got) < 3 {
		n, err := listen.WaitForNotification(waitCtx)
		require.NoError(t, err)
		got = append(got, n.Payload)
		if n.Payload == "" {
			// Woken: the appended events are visible to the listener.
			var count int
			require.NoError(t, listen.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id IN ('test-a', 'test-c')`).Scan(&count))
			require.Equal(t, 3, count)
		}
	}
	require.Equal(t, []string{"after the rollback", "", "after the commit"}, got)
}

// TestNotifierWakesListenersAfterEveryWayToAppend: with a pgdb.Notifier (as
// the api and the worker run it), appends in WithTx and AppendCommitted are
// announced after their commit; a rolled-back append is not.
func TestNotifierWakesListenersAfterEveryWayToAppend(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := dbtest.New(t)
	b := bundle{db: db, store: eventstore.New(events.NewRegistry(counted{}),
		eventstore.WithNotifier(pgdb.StartNotifier(ctx, db.Pool, eventstore.NotifyChannel)))}
	listen, err := pgx.Connect(ctx, b.db.URL)
	require.NoError(t, err)
	defer listen.Close(context.Background())
	_, err = listen.Exec(ctx, "LISTEN "+eventstore.NotifyChannel)
	require.NoError(t, err)
	next := func() string {
		waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := listen.WaitForNotification(waitCtx)
		require.NoError(t, err)
		return n.Payload
	}
	count := func() (n int) {
		require.NoError(t, listen.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = 'test-n'`).Scan(&n))
		return n
	}
	s := events.Stream{Type: "test", ID: "n"}

	undo := errors.New("undo")
	require.ErrorIs(t, pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
		if _, err := b.store.Append(ctx, tx, s, 0, counted{1}); err != nil {
			return err
		}
		return undo
	}), undo)
	require.NoError(t, b.appendTx(ctx, s, 0, counted{1}))
	require.Equal(t, "", next())
	require.Equal(t, 1, count(), "woken after the commit, not for the rollback")
	require.NoError(t, b.appendCommitted(ctx, s, 1, counted{2}))
	require.Equal(t, "", next())
	require.Equal(t, 2, count())
	// Nothing was sent for the rolled-back append: a marker comes next.
	_, err = listen.Exec(ctx, `SELECT pg_notify($1, 'marker')`, eventstore.NotifyChannel)
	require.NoError(t, err)
	require.Equal(t, "marker", next())
}

// BenchmarkAppend measures single-event appends, each in its own transaction
// (the API's shape): one writer on one stream, and 32 concurrent writers each
// on its own stream (what many users acting at once look like). "in-tx" is
// BEGIN, Append, COMMIT (three round trips); "committed" is AppendCommitted
// (one round trip). Run with fsync on to see what a durable commit costs.
//
// On a pool AppendCommitted group-commits concurrent appends (GroupCommit);
// "committed-1by1" is the same with group commit off (one transaction per
// append), for comparison. The 32-writer runs also report each append's
// latency (p50, p99).
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []string{"in-tx", "committed", "committed-1by1", "in-tx+notifier", "committed+notifier"} {
		appendTo := appenders[strings.TrimSuffix(strings.TrimSuffix(mode, "+notifier"), "-1by1")]
		setup := func(b *testing.B) bundle {
			if strings.HasSuffix(mode, "-1by1") {
				return setup(b, eventstore.WithGroupCommit(eventstore.GroupCommit{MaxBatch: 1}))
			}
			if !strings.HasSuffix(mode, "+notifier") {
				return setup(b)
			}
			// As the api and the worker run it: one coalesced NOTIFY for
			// concurrent appends (pgdb.Notifier).
			db := dbtest.New(b)
			ctx, cancel := context.WithCancel(context.Background())
			b.Cleanup(cancel)
			return bundle{db: db, store: eventstore.New(events.NewRegistry(counted{}),
				eventstore.WithNotifier(pgdb.StartNotifier(ctx, db.Pool, eventstore.NotifyChannel)))}
		}
		b.Run(mode+"/streams=1", func(b *testing.B) {
			bu := setup(b)
			ctx := context.Background()
			s := events.Stream{Type: "bench", ID: "one"}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := appendTo(bu, ctx, s, int64(i), counted{i}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
		b.Run(mode+"/streams=1/events-per-append=10", func(b *testing.B) {
			bu := setup(b)
			ctx := context.Background()
			s := events.Stream{Type: "bench", ID: "batched"}
			batch := make([]events.Event, 10)
			for i := range batch {
				batch[i] = counted{i}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := appendTo(bu, ctx, s, int64(i*len(batch)), batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
		})
		b.Run(mode+"/streams=32", func(b *testing.B) {
			bu := setup(b)
			// A pool of 32 connections, as the api's (30) roughly: the test
			// pool's default, max(4, GOMAXPROCS), would let only 4 of the
			// 32 writers commit at a time.
			db := *bu.db
			db.Pool = bu.db.PoolOf(b, 32)
			bu.db = &db
			ctx := context.Background()
			var next atomic.Int64
			// 32 writers whatever GOMAXPROCS is.
			b.SetParallelism((32 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			var mu sync.Mutex
			var latencies []time.Duration
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				s := events.Stream{Type: "bench", ID: fmt.Sprint(next.Add(1))}
				v := int64(0)
				var mine []time.Duration
				for pb.Next() {
					start := time.Now()
					if err := appendTo(bu, ctx, s, v, counted{int(v)}); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
					v++
				}
				mu.Lock()
				latencies = append(latencies, mine...)
				mu.Unlock()
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			if len(latencies) > 0 {
				slices.Sort(latencies)
				b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}

// TestGroupCommitConflictsFailAlone: AppendCommitted commits concurrent
// appends in one transaction, and each keeps its own answer. One batch holds
// appends to new streams, two appends to the same stream in queue order, an
// append with a stale version and one that loses a race to a transaction
// still open when it runs (a unique violation, which aborts the batch's
// transaction): those two fail alone, the others commit together.
//
// Every batch shape: BEGIN…COMMIT followed by a NOTIFY, or (with a Notifier)
// the inserts alone in the pipeline's implicit transaction; one statement
// per append (a stream twice in the batch) or one for the whole batch
// (distinct streams), which a lost race makes resend one by one.
func TestGroupCommitConflictsFailAlone(t *testing.T) {
	t.Parallel()
	for _, withNotifier := range []bool{false, true} {
		for _, sameStreamTwice := range []bool{false, true} {
			t.Run(fmt.Sprintf("notifier=%v/same-stream-twice=%v", withNotifier, sameStreamTwice), func(t *testing.T) {
				t.Parallel()
				testGroupCommitConflictsFailAlone(t, withNotifier, sameStreamTwice)
			})
		}
	}
}

func testGroupCommitConflictsFailAlone(t *testing.T, withNotifier, sameStreamTwice bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := []eventstore.Option{eventstore.WithGroupCommit(eventstore.GroupCommit{MaxInFlight: 1})}
	db := dbtest.New(t)
	if withNotifier {
		opts = append(opts, eventstore.WithNotifier(pgdb.StartNotifier(ctx, db.Pool, eventstore.NotifyChannel)))
	}
	b := bundle{db: db, store: eventstore.New(events.NewRegistry(counted{}), opts...)}
	pool := b.db.PoolOf(t, 8)
	stream := func(id string) events.Stream { return events.Stream{Type: "test", ID: id} }
	require.NoError(t, b.appendTx(ctx, stream("stale"), 0, counted{1}))

	// holdVersion1 appends version 1 of a stream in a transaction left open.
	holdVersion1 := func(id string) pgx.Tx {
		tx, err := b.db.Pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(ctx) })
		_, err = b.store.Append(ctx, tx, stream(id), 0, counted{100})
		require.NoError(t, err)
		return tx
	}
	// waitersOnLocks counts backends waiting for a lock (here: for an open
	// transaction's row with the same stream version).
	waitForLockWaiters := func(n int) {
		require.Eventually(t, func() bool {
			var waiting int
			require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting))
			return waiting >= n
		}, 10*time.Second, 5*time.Millisecond)
	}
	type result struct {
		out []eventstore.Envelope
		err error
	}
	results := map[string]chan result{}
	submit := func(key, id string, expected int64, ns ...int) {
		evs := make([]events.Event, len(ns))
		for i, n := range ns {
			evs[i] = counted{n}
		}
		ch := make(chan result, 1)
		results[key] = ch
		queued := b.store.QueuedAppends(pool)
		go func() {
			out, err := b.store.AppendCommitted(ctx, pool, stream(id), expected, evs...)
			ch <- result{out, err}
		}()
		// Line the appends up in this order.
		require.Eventually(t, func() bool { return b.store.QueuedAppends(pool) > queued }, 10*time.Second, time.Millisecond)
	}

	// The first batch waits on the gate (version 1 held by an open
	// transaction), so the next appends queue behind it as one batch.
	gate := holdVersion1("gate")
	gateDone := make(chan error, 1)
	go func() {
		_, err := b.store.AppendCommitted(ctx, pool, stream("gate"), 0, counted{0})
		gateDone <- err
	}()
	waitForLockWaiters(1)
	require.Zero(t, b.store.QueuedAppends(pool), "the gate's batch is committing")

	raced := holdVersion1("raced")
	submit("a1", "a", 0, 1)
	submit("b", "b", 0, 2, 7)      // two events in one append
	submit("stale", "stale", 0, 3) // the stream is at version 1
	submit("raced", "raced", 0, 4) // version 1 is taken by an open transaction
	want := map[string][]int{"a": {1}, "b": {2, 7}, "c": {6}, "stale": {1}, "raced": {100}, "gate": {100}}
	committed := []string{"a1", "b", "c"}
	if sameStreamTwice {
		submit("a2", "a", 1, 5) // the same stream, after a1 in the same batch
		want["a"] = []int{1, 5}
		committed = append(committed, "a2")
	}
	submit("c", "c", 0, 6)

	require.NoError(t, gate.Commit(ctx)) // the gate append loses; the batch runs
	require.ErrorIs(t, <-gateDone, eventstore.ErrConflict)
	waitForLockWaiters(1) // the batch waits on raced's version 1
	require.NoError(t, raced.Commit(ctx))

	var ce *eventstore.ConflictError
	stale := <-results["stale"]
	require.ErrorAs(t, stale.err, &ce)
	require.Equal(t, "test-stale", ce.Stream)
	require.Zero(t, ce.Expected)
	require.ErrorIs(t, (<-results["raced"]).err, eventstore.ErrConflict)

	var xid uint64
	for _, key := range committed {
		r := <-results[key]
		require.NoError(t, r.err, key)
		events := 1
		if key == "b" {
			events = 2 // b appends two events, the others one
		}
		require.Len(t, r.out, events, key)
		if xid == 0 {
			xid = r.out[0].TransactionID
		}
		require.Equal(t, xid, r.out[0].TransactionID, "%s committed in the batch's one transaction", key)
	}

	// What is stored: each stream as if the appends had run one by one.
	stored := 0
	for id, want := range want {
		stored += len(want)
		got, version, err := b.store.Load(ctx, b.db.Pool, stream(id))
		require.NoError(t, err)
		require.Equal(t, int64(len(want)), version, id)
		for i, e := range got {
			require.Equal(t, counted{want[i]}, e.Data, id)
		}
	}
	var rows int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&rows))
	require.Equal(t, stored, rows, "nothing from the failed appends, nothing twice")
}
