// Package pgdb opens the Postgres pool and owns the few helpers every store
// needs: running a function in a transaction and recognising Postgres errors
// that carry domain meaning (unique violations become conflicts, not 500s).
package pgdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is satisfied by *pgxpool.Pool, *pgx.Conn and pgx.Tx, so read paths can
// run inside or outside a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Open connects a pool and checks the server answers, so a wrong DATABASE_URL
// fails at start-up with a clear message instead of on the first request.
func Open(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return pool, nil
}

// Beginner is what WithTx needs: a pool or a connection.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// WithTx runs fn in a transaction, committing when fn returns nil and rolling
// back otherwise (also on panic), so a failure never leaves half-written state.
//
// The pgx.Tx that fn gets also implements AfterCommitter: statements
// registered there (the event store's NOTIFY) are sent in the same round trip
// as COMMIT, run only once it has succeeded, and are dropped on rollback. See
// AfterCommitter for why.
func WithTx(ctx context.Context, db Beginner, fn func(tx pgx.Tx) error) (err error) {
	// The hooks must run on the connection that committed, after the commit:
	// a pool's own transaction hands its connection back at COMMIT, so take
	// one from the pool and give it back here instead.
	if pool, ok := db.(*pgxpool.Pool); ok {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("begin transaction: %w", err)
		}
		defer conn.Release()
		db = conn
	}
	inner, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	tx := &hookTx{Tx: inner}
	if outer, ok := db.(AfterCommitter); ok {
		tx.outer = outer // a savepoint: its hooks wait for the outer commit
	}
	defer func() {
		if p := recover(); p != nil {
			_ = inner.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
		if err != nil {
			_ = inner.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	return tx.commit(ctx)
}

// AfterCommitter is implemented by the pgx.Tx that WithTx hands its callback.
//
// Why: a transaction that NOTIFYs takes a database-wide lock in its
// pre-commit and holds it until its commit record is flushed, so concurrent
// transactions that each NOTIFY commit one disk flush after another (~250/s
// on a 4 ms-flush disk) instead of sharing flushes (group commit). Every event
// append wakes the worker's projections with a NOTIFY, so every write path
// was serialised on the disk. Sent after the commit instead, the appending
// transactions share flushes, and the NOTIFY runs in a short transaction of
// its own (committed asynchronously: losing a wake-up in a crash only delays
// the projections until their next poll, never loses data).
//
// Listeners see the notification after the data it announces is committed
// and visible, never before; it is not atomic with the data (a crash between
// the two loses the wake-up), so listeners must also poll.
type AfterCommitter interface {
	// AfterCommit queues sql to run right after the transaction commits,
	// once per key however often it is registered (one NOTIFY per
	// transaction per channel). Its failure does not undo the commit: it is
	// logged and WithTx still returns nil.
	AfterCommit(key, sql string, args ...any)
	// AfterCommitFunc queues f to run in Go right after the transaction
	// commits (for a savepoint: after the outermost commit), once per key;
	// a rollback drops it. The event store pokes its Notifier this way.
	AfterCommitFunc(key string, f func())
}

// hookTx is a pgx.Tx with after-commit statements.
type hookTx struct {
	pgx.Tx
	outer AfterCommitter // set for a savepoint inside another WithTx
	keys  map[string]bool
	after []afterStmt
	funcs []afterFunc
}

type afterFunc struct {
	key string
	f   func()
}

// AfterCommitFunc implements AfterCommitter.
func (t *hookTx) AfterCommitFunc(key string, f func()) {
	if t.keys["func "+key] {
		return
	}
	if t.keys == nil {
		t.keys = map[string]bool{}
	}
	t.keys["func "+key] = true
	t.funcs = append(t.funcs, afterFunc{key: key, f: f})
}

// runFuncs hands the Go hooks to the outer transaction of a savepoint, or
// runs them once this transaction has committed.
func (t *hookTx) runFuncs() {
	for _, a := range t.funcs {
		if t.outer != nil {
			t.outer.AfterCommitFunc(a.key, a.f)
		} else {
			a.f()
		}
	}
}

type afterStmt struct {
	key, sql string
	args     []any
}

// AfterCommit implements AfterCommitter.
func (t *hookTx) AfterCommit(key, sql string, args ...any) {
	if t.keys[key] {
		return
	}
	if t.keys == nil {
		t.keys = map[string]bool{}
	}
	t.keys[key] = true
	t.after = append(t.after, afterStmt{key: key, sql: sql, args: args})
}

// commit commits and runs the after-commit statements, pipelined with the
// COMMIT (one round trip): COMMIT ends the explicit transaction, and what
// follows runs in the pipeline's next, implicit transaction, which commits at
// the batch's Sync. A failed COMMIT skips the rest of the pipeline, so nothing
// runs for a transaction that did not commit.
func (t *hookTx) commit(ctx context.Context) error {
	// In a transaction that already failed (an error the callback went
	// past), COMMIT rolls back and nothing may follow it: commit plainly.
	failed := t.Tx.Conn().PgConn().TxStatus() == 'E'
	if t.outer != nil || len(t.after) == 0 || failed {
		if err := t.Tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit transaction: %w", err)
		}
		if t.outer != nil {
			for _, a := range t.after {
				t.outer.AfterCommit(a.key, a.sql, a.args...)
			}
		}
		t.runFuncs()
		return nil
	}
	b := &pgx.Batch{}
	b.Queue("COMMIT")
	// Only the hooks' own transaction is committed without waiting for the
	// flush; the data above was committed durably by the COMMIT.
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
	for _, a := range t.after {
		b.Queue(a.sql, a.args...)
	}
	br := t.Tx.Conn().SendBatch(ctx, b)
	tag, err := br.Exec()
	if err != nil {
		_ = br.Close()
		return fmt.Errorf("commit transaction: %w", err)
	}
	if tag.String() == "ROLLBACK" {
		// COMMIT of a transaction that had failed earlier rolls it back
		// (what pgx.Tx.Commit reports as ErrTxCommitRollback).
		_ = br.Close()
		return fmt.Errorf("commit transaction: %w", pgx.ErrTxCommitRollback)
	}
	for i := 0; i <= len(t.after); i++ {
		if _, err := br.Exec(); err != nil {
			key := "synchronous_commit"
			if i > 0 {
				key = t.after[i-1].key
			}
			slog.ErrorContext(ctx, "after-commit statement failed; the transaction is committed", "hook", key, "err", err)
			break
		}
	}
	if err := br.Close(); err != nil {
		slog.ErrorContext(ctx, "after-commit statements failed; the transaction is committed", "err", err)
	}
	t.runFuncs()
	return nil
}

// IsUniqueViolation reports whether err is a unique-constraint violation, on
// the named constraint when constraint is non-empty.
func IsUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false
	}
	return constraint == "" || pgErr.ConstraintName == constraint
}

// IsDuplicateRelation reports that a CREATE lost a race to a concurrent
// CREATE of the same relation. IF NOT EXISTS checks the catalog before it
// inserts, so two sessions can both pass the check; the loser then fails with
// duplicate_table (42P07) or, when the other's row in pg_type landed first,
// with a unique violation on pg_type's name index (23505).
func IsDuplicateRelation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "42P07" ||
		pgErr.Code == "23505" && pgErr.ConstraintName == "pg_type_typname_nsp_index")
}

// IsSerializationFailure reports a retryable serialization or deadlock error.
func IsSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}
