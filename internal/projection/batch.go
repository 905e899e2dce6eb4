package projection

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/photo3d/photo3d/internal/eventstore"
)

// Why batches matter. A projection's Handle issues a few small statements per
// event. Sent one by one, every statement is a client↔server round trip, and a
// replay of 1M events is ~1M round trips: on a loaded machine each one waits
// for both processes to be scheduled, so replay time grew with the machine's
// load far more than with the work (s16 measured 10–30× slower per event at
// load 20–30 than at rest). Two things remove most of them, per batch
// transaction:
//
//   - writes are deferred: Exec only queues the statement, and the queue is
//     sent as one pipelined batch before the next read, before the checkpoint
//     and at the end of the batch (so reads always see earlier writes);
//   - a Batch in the context lets projections remember what they read or wrote
//     (a user's subscription fold, a job's owner) for the rest of the batch,
//     and look at the batch's events to fetch what many events need at once.
//
// Both are scoped to one batch transaction, so a rolled-back batch leaves
// nothing behind, and incremental processing and replay stay equal (the
// replay-equals-incremental tests run them at very different batch sizes).

// Batch is the batch of events being applied in one transaction.
type Batch struct {
	// Events are the batch's events, in the order Handle sees them.
	Events []eventstore.Envelope
	memo   map[string]any
}

type batchKey struct{}

// CurrentBatch returns the batch being applied, or nil when Handle runs
// outside a Runner (a nil *Batch remembers nothing).
func CurrentBatch(ctx context.Context) *Batch {
	b, _ := ctx.Value(batchKey{}).(*Batch)
	return b
}

// Get returns what was remembered under key in this batch.
func (b *Batch) Get(key string) (any, bool) {
	if b == nil {
		return nil, false
	}
	v, ok := b.memo[key]
	return v, ok
}

// Put remembers v under key until the batch's transaction ends. Only values
// that equal what the read model holds once the queued writes are applied
// may be put.
func (b *Batch) Put(key string, v any) {
	if b == nil {
		return
	}
	if b.memo == nil {
		b.memo = map[string]any{}
	}
	b.memo[key] = v
}

// deferredTx queues Exec statements and sends them as one pipelined batch
// before anything that reads, so the projection sees its own writes in order
// while paying one round trip per read instead of one per statement. Exec's
// command tag is empty and its error surfaces at the next flush.
type deferredTx struct {
	pgx.Tx
	queued pgx.Batch
}

func (t *deferredTx) flush(ctx context.Context) error {
	if t.queued.Len() == 0 {
		return nil
	}
	q := t.queued
	t.queued = pgx.Batch{}
	if err := t.Tx.SendBatch(ctx, &q).Close(); err != nil {
		return fmt.Errorf("apply %d queued writes: %w", q.Len(), err)
	}
	return nil
}

func (t *deferredTx) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t.queued.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (t *deferredTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Query(ctx, sql, args...)
}

func (t *deferredTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.flush(ctx); err != nil {
		return errRow{err}
	}
	return t.Tx.QueryRow(ctx, sql, args...)
}

func (t *deferredTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if err := t.flush(ctx); err != nil {
		return errResults{err}
	}
	return t.Tx.SendBatch(ctx, b)
}

func (t *deferredTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.flush(ctx); err != nil {
		return 0, err
	}
	return t.Tx.CopyFrom(ctx, table, cols, src)
}

func (t *deferredTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Begin(ctx)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// errResults answers every read of a batch that was never sent.
type errResults struct{ err error }

func (r errResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, r.err }
func (r errResults) Query() (pgx.Rows, error)         { return nil, r.err }
func (r errResults) QueryRow() pgx.Row                { return errRow(r) }
func (r errResults) Close() error                     { return r.err }
func (r errResults) Tx() pgx.Tx                       { return nil }
