package projection_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/projection"
)

type tick struct {
	N int `json:"n"`
}

func (tick) EventType() string { return "test.tick.v1" }

// seenProjection records each event position once (a duplicate violates the
// primary key and fails the batch) and keeps per-stream totals, so replay can
// be compared with incremental processing.
type seenProjection struct{}

func (seenProjection) Name() string { return "test-seen" }

func (seenProjection) Handle(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	t, ok := e.Data.(tick)
	if !ok {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO seen (position, stream_id) VALUES ($1, $2)`, e.Position, e.StreamID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO totals (stream_id, events, sum) VALUES ($1, 1, $2)
		ON CONFLICT (stream_id) DO UPDATE SET events = totals.events + 1, sum = totals.sum + $2`, e.StreamID, t.N)
	return err
}

func (seenProjection) Reset(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `TRUNCATE seen, totals`)
	return err
}

type bundle struct {
	db     *dbtest.DB
	store  *eventstore.Store
	runner *projection.Runner
}

func setup(t testing.TB) bundle {
	db := dbtest.New(t)
	_, err := db.Pool.Exec(context.Background(), `
		CREATE TABLE seen (position bigint PRIMARY KEY, stream_id text NOT NULL);
		CREATE TABLE totals (stream_id text PRIMARY KEY, events int NOT NULL, sum bigint NOT NULL);`)
	require.NoError(t, err)
	store := eventstore.New(events.NewRegistry(tick{}))
	runner := projection.NewRunner(db.Pool, store, projection.Config{BatchSize: 37, PollInterval: 20 * time.Millisecond}, seenProjection{})
	return bundle{db: db, store: store, runner: runner}
}

func TestGaplessUnderOverlappingLongTransactions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- b.runner.Run(ctx) }()

	const writers, perWriter = 6, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				err := pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
					stream := events.Stream{Type: "w", ID: fmt.Sprint(w)}
					if _, err := b.store.Append(ctx, tx, stream, eventstore.AnyVersion, tick{N: i}); err != nil {
						return err
					}
					// Every third transaction of the even writers stays open after
					// taking its position, so later positions commit first.
					if w%2 == 0 && i%3 == 0 {
						time.Sleep(60 * time.Millisecond)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()

	total := writers * perWriter
	require.Eventually(t, func() bool {
		var n int
		_ = b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM seen`).Scan(&n)
		return n == total
	}, 20*time.Second, 20*time.Millisecond)
	cancel()
	require.NoError(t, <-runDone)

	var missing int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM events e LEFT JOIN seen s USING (position) WHERE s.position IS NULL`).Scan(&missing))
	require.Zero(t, missing, "every event must be projected")
	var seen int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM seen`).Scan(&seen))
	require.Equal(t, total, seen, "exactly once")

	lag, err := projection.Lag(context.Background(), b.db.Pool, []string{"test-seen"}, 1000)
	require.NoError(t, err)
	require.Equal(t, int64(0), lag["test-seen"])
}

func TestReplayEqualsIncremental(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := 0; i < 120; i++ {
		err := pgdb.WithTx(ctx, b.db.Pool, func(tx pgx.Tx) error {
			_, err := b.store.Append(ctx, tx, events.Stream{Type: "s", ID: fmt.Sprint(i % 7)}, eventstore.AnyVersion, tick{N: i})
			return err
		})
		require.NoError(t, err)
		if i%40 == 0 { // incremental: catch up part-way through
			_, err := b.runner.CatchUp(ctx, seenProjection{})
			require.NoError(t, err)
		}
	}
	_, err := b.runner.Drain(ctx, seenProjection{})
	require.NoError(t, err)
	before := dump(t, b)

	lag, err := projection.Lag(ctx, b.db.Pool, []string{"test-seen"}, 1000)
	require.NoError(t, err)
	require.Equal(t, int64(0), lag["test-seen"])

	n, err := b.runner.Replay(ctx, "test-seen")
	require.NoError(t, err)
	require.Equal(t, 120, n)
	require.Equal(t, before, dump(t, b))

	_, err = b.runner.Replay(ctx, "nope")
	require.ErrorIs(t, err, projection.ErrUnknownProjection)
}

func dump(t *testing.T, b bundle) string {
	rows, err := b.db.Pool.Query(context.Background(), `SELECT stream_id, events, sum FROM totals ORDER BY stream_id`)
	require.NoError(t, err)
	defer rows.Close()
	out := ""
	for rows.Next() {
		var s string
		var n, sum int64
		require.NoError(t, rows.Scan(&s, &n, &sum))
		out += fmt.Sprintf("%s:%d:%d;", s, n, sum)
	}
	require.NotEmpty(t, out)
	return out
}

// BenchmarkProjector measures catch-up throughput over a pre-filled log.
func BenchmarkProjector(b *testing.B) {
	bu := setup(b)
	ctx := context.Background()
	const perTx = 100
	for done := 0; done < b.N; done += perTx {
		err := pgdb.WithTx(ctx, bu.db.Pool, func(tx pgx.Tx) error {
			evs := make([]events.Event, 0, perTx)
			for i := 0; i < perTx; i++ {
				evs = append(evs, tick{N: i})
			}
			_, err := bu.store.Append(ctx, tx, events.Stream{Type: "b", ID: fmt.Sprint(done)}, 0, evs...)
			return err
		})
		require.NoError(b, err)
	}
	runner := projection.NewRunner(bu.db.Pool, bu.store, projection.Config{BatchSize: 500}, seenProjection{})
	b.ResetTimer()
	n, err := runner.Drain(ctx, seenProjection{})
	require.NoError(b, err)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// Transaction ids print with more digits as a cluster ages (999 → 1000,
// 9999 → 10000 …). The batch query selects transaction_id::text, and an
// ORDER BY on the bare name sorted that text column: a batch took "10" before
// "9", its checkpoint jumped past 9, and 9's events were never projected.
// Ids 9 and 10 belong to transactions that ended long ago in any cluster
// (initdb alone uses hundreds), so these rows read like real ones.
func TestNoEventSkippedWhereTransactionIDsGainADigit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.db.Pool.Exec(ctx, `INSERT INTO events (stream_id, stream_type, version, type, data, transaction_id)
		SELECT 's-' || (g % 5), 's', g, 'test.tick.v1', jsonb_build_object('n', g), (CASE WHEN g <= 40 THEN '9' ELSE '10' END)::xid8
		FROM generate_series(1, 80) g`)
	require.NoError(t, err)

	n, err := b.runner.Drain(ctx, seenProjection{}) // batches of 37 straddle the two ids
	require.NoError(t, err)
	require.Equal(t, 80, n)
	var seen int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM seen`).Scan(&seen))
	require.Equal(t, 80, seen, "every event projected once")
	before := dump(t, b)

	n, err = b.runner.Replay(ctx, "test-seen")
	require.NoError(t, err)
	require.Equal(t, 80, n)
	require.Equal(t, before, dump(t, b))
}
