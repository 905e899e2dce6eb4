// Package projection runs Photo3D's asynchronous read models (notifications,
// dashboard, search, analytics roll-ups) in the worker.
//
// Gapless reading. Positions come from an identity column, so they are handed
// out when a row is inserted, not when its transaction commits: a long
// transaction can commit position 10 after position 11 is already visible.
// Reading "position > checkpoint" would then skip 10 for ever. Instead each
// batch reads only events whose transaction id is below
// pg_snapshot_xmin(pg_current_snapshot()) — every transaction older than that
// has finished, so nothing can still appear there — ordered by
// (transaction_id, position), and the checkpoint is that pair. The checkpoint
// row is locked FOR UPDATE and committed in the same transaction as the
// read-model change, so a crash replays at most an uncommitted batch and any
// number of worker processes may run the same projection safely.
package projection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Projection is one asynchronous read model.
type Projection interface {
	// Name is the checkpoint key; changing it rebuilds the model from 0.
	Name() string
	// Handle applies one event inside the batch transaction. Events the
	// projection does not care about are ignored by returning nil.
	Handle(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error
	// Reset empties the read model before a replay.
	Reset(ctx context.Context, tx pgx.Tx) error
}

// Runner feeds events to projections.
type Runner struct {
	pool        *pgxpool.Pool
	store       *eventstore.Store
	projections []Projection
	batchSize   int
	poll        time.Duration
	log         *slog.Logger
	onBatch     func(name string, n int)
}

// Config tunes a Runner; zero values take sensible defaults.
type Config struct {
	BatchSize    int           // events per transaction, default 500
	PollInterval time.Duration // fallback when a NOTIFY is missed, default 1s
	Logger       *slog.Logger
	OnBatch      func(name string, n int) // metrics hook
}

// NewRunner builds a runner for the given projections.
func NewRunner(pool *pgxpool.Pool, store *eventstore.Store, cfg Config, projections ...Projection) *Runner {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Runner{pool: pool, store: store, projections: projections, batchSize: cfg.BatchSize,
		poll: cfg.PollInterval, log: cfg.Logger, onBatch: cfg.OnBatch}
}

// Names lists the projections this runner drives.
func (r *Runner) Names() []string {
	out := make([]string, len(r.projections))
	for i, p := range r.projections {
		out[i] = p.Name()
	}
	return out
}

// Run processes events until ctx ends: woken by LISTEN/NOTIFY on every append,
// with a poll as fallback (a notification can be lost while reconnecting, and
// an event becomes readable only once older transactions finish).
func (r *Runner) Run(ctx context.Context) error {
	wake := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.listen(ctx, wake)
	}()
	defer wg.Wait()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-timer.C:
		}
		busy := false
		for _, p := range r.projections {
			n, err := r.CatchUp(ctx, p)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				r.log.Error("projection batch failed; will retry", "projection", p.Name(), "err", err)
				continue
			}
			// Events from transactions still open are not readable yet; look
			// again soon rather than waiting for the next notification.
			if n > 0 {
				busy = true
			}
		}
		if busy {
			timer.Reset(50 * time.Millisecond)
		} else {
			timer.Reset(r.poll)
		}
	}
}

func (r *Runner) listen(ctx context.Context, wake chan<- struct{}) {
	for ctx.Err() == nil {
		err := func() error {
			conn, err := r.pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, `LISTEN `+eventstore.NotifyChannel); err != nil {
				return err
			}
			defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), `UNLISTEN *`) }()
			for {
				if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
					return err
				}
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}()
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("projection listener reconnecting", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// CatchUp applies batches until no readable event is left and returns how many
// events it applied.
func (r *Runner) CatchUp(ctx context.Context, p Projection) (int, error) {
	total := 0
	for {
		n, err := r.step(ctx, p)
		total += n
		if err != nil || n < r.batchSize {
			return total, err
		}
	}
}

func (r *Runner) step(ctx context.Context, p Projection) (int, error) {
	n := 0
	err := pgdb.WithTx(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT DO NOTHING`, p.Name()); err != nil {
			return fmt.Errorf("create checkpoint: %w", err)
		}
		var xid string
		var pos int64
		if err := tx.QueryRow(ctx, `SELECT last_xid::text, last_position FROM projection_checkpoints WHERE name = $1 FOR UPDATE`, p.Name()).Scan(&xid, &pos); err != nil {
			return fmt.Errorf("lock checkpoint: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+eventstore.Columns+` FROM events
			WHERE (transaction_id, position) > ($1::xid8, $2)
			  AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY events.transaction_id, events.position -- qualified: bare names would sort by the text output column (999 after 1000)
			LIMIT $3`, xid, pos, r.batchSize)
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		batch, err := r.store.ScanRows(rows)
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		// Writes are queued and reads may be remembered for this batch (batch.go).
		dtx := &deferredTx{Tx: tx}
		bctx := context.WithValue(ctx, batchKey{}, &Batch{Events: batch})
		for _, e := range batch {
			if err := p.Handle(bctx, dtx, e); err != nil {
				return fmt.Errorf("%s at position %d: %w", e.Type, e.Position, err)
			}
		}
		last := batch[len(batch)-1]
		// The checkpoint rides in the same pipelined batch as the last writes.
		_, _ = dtx.Exec(ctx, `UPDATE projection_checkpoints SET last_xid = $2::text::xid8, last_position = $3, updated_at = now() WHERE name = $1`,
			p.Name(), fmt.Sprint(last.TransactionID), last.Position)
		if err := dtx.flush(ctx); err != nil {
			return fmt.Errorf("%s up to position %d: %w", p.Name(), last.Position, err)
		}
		n = len(batch)
		return nil
	})
	if err == nil && n > 0 && r.onBatch != nil {
		r.onBatch(p.Name(), n)
	}
	return n, err
}

// ErrUnknownProjection is returned by Replay for a name the runner lacks.
var ErrUnknownProjection = errors.New("unknown projection")

// Replay rebuilds one read model from position 0: reset and checkpoint removal
// commit together, then the runner catches up. The result must equal what
// incremental processing produced.
func (r *Runner) Replay(ctx context.Context, name string) (int, error) {
	var p Projection
	for _, q := range r.projections {
		if q.Name() == name {
			p = q
		}
	}
	if p == nil {
		return 0, fmt.Errorf("replay %q: %w (known: %v)", name, ErrUnknownProjection, r.Names())
	}
	err := pgdb.WithTx(ctx, r.pool, func(tx pgx.Tx) error {
		// Lock first so a running worker cannot interleave a batch.
		if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT DO NOTHING`, name); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE`, name); err != nil {
			return err
		}
		if err := p.Reset(ctx, tx); err != nil {
			return fmt.Errorf("reset %s: %w", name, err)
		}
		_, err := tx.Exec(ctx, `UPDATE projection_checkpoints SET last_xid = '0', last_position = 0, updated_at = now() WHERE name = $1`, name)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("replay %s: %w", name, err)
	}
	return r.Drain(ctx, p)
}

// Drain applies events until every event committed so far is applied. Unlike
// CatchUp it waits out transactions still open elsewhere in the cluster (they
// hold back the readable horizon), so callers such as replay and tests get a
// complete read model when it returns.
func (r *Runner) Drain(ctx context.Context, p Projection) (int, error) {
	total := 0
	for {
		n, err := r.CatchUp(ctx, p)
		total += n
		if err != nil {
			return total, err
		}
		lag, err := Lag(ctx, r.pool, []string{p.Name()}, 1)
		if err != nil {
			return total, err
		}
		if lag[p.Name()] == 0 {
			return total, nil
		}
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Lag reports, per projection, how many events are committed but not yet
// applied (capped at limit so a scrape stays cheap).
func Lag(ctx context.Context, q pgdb.Querier, names []string, limit int) (map[string]int64, error) {
	out := make(map[string]int64, len(names))
	for _, name := range names {
		var n int64
		err := q.QueryRow(ctx, `SELECT count(*) FROM (
			SELECT 1 FROM events e
			WHERE (e.transaction_id, e.position) > coalesce(
				(SELECT (last_xid, last_position) FROM projection_checkpoints WHERE name = $1),
				('0'::xid8, 0::bigint))
			LIMIT $2) x`, name, limit).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("lag of %s: %w", name, err)
		}
		out[name] = n
	}
	return out, nil
}
