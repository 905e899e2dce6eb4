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
	b := setup(t)
	ctx := context.Background()
	s := events.Stream{Type: "test", ID: "race"}
	require.NoError(t, b.appendTx(ctx, s, 0, counted{0}))

	var wins, conflicts atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			err := b.appendTx(ctx, s, 1, counted{i})
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
	err := b.appendTx(ctx, s, 5, counted{9})
	var ce *eventstore.ConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, int64(5), ce.Expected)
	_, version, err := b.store.Load(ctx, b.db.Pool, s)
	require.NoError(t, err)
	require.Equal(t, int64(2), version)
}

func TestFiftyGoroutinesAppendContiguousVersions(t *testing.T) {
	t.Parallel()
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
				err = b.appendTx(ctx, s, v, counted{w*100 + i})
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

// TestNotifierWakesListenersAfterTheCommit: with a pgdb.Notifier (as the api
// and the worker run it), appends in WithTx are announced after their commit,
// each one; a rolled-back append is not.
func TestNotifierWakesListenersAfterTheCommit(t *testing.T) {
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
	require.NoError(t, b.appendTx(ctx, s, 1, counted{2}))
	require.Equal(t, "", next())
	require.Equal(t, 2, count())
	// Nothing was sent for the rolled-back append: a marker comes next.
	_, err = listen.Exec(ctx, `SELECT pg_notify($1, 'marker')`, eventstore.NotifyChannel)
	require.NoError(t, err)
	require.Equal(t, "marker", next())
}

// BenchmarkAppend measures single-event appends, each in its own transaction
// (BEGIN, Append, COMMIT: the shape of the API's writes, without their other
// statements): one writer on one stream, and 32 concurrent writers each on
// its own stream. "+notifier" wakes the projections through a pgdb.Notifier,
// as the api and the worker do. The 32-writer runs also report each append's
// latency (p50, p99). What whole requests cost is BenchmarkRequestPaths
// (internal/httpapi).
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []string{"in-tx", "in-tx+notifier"} {
		setup := func(b *testing.B) bundle {
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
				if err := bu.appendTx(ctx, s, int64(i), counted{i}); err != nil {
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
				if err := bu.appendTx(ctx, s, int64(i*len(batch)), batch...); err != nil {
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
					if err := bu.appendTx(ctx, s, v, counted{int(v)}); err != nil {
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
