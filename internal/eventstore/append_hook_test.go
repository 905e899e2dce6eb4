package eventstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// An InAppendingTx hook writes in the appending transaction, once however
// often that transaction appends; its write commits and rolls back with the
// events, and its error fails the append (the idempotency layer marks its
// key 'committed' this way).
func TestInAppendingTxRunsOnceInsideEachAppendingTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.db.Pool.Exec(ctx, `CREATE TABLE hook_marks (n int NOT NULL)`)
	require.NoError(t, err)
	calls := 0
	var fail error
	hooked := eventstore.InAppendingTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		calls++
		if fail != nil {
			return fail
		}
		_, err := tx.Exec(ctx, `INSERT INTO hook_marks (n) VALUES ($1)`, calls)
		return err
	})
	count := func(sql string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, sql).Scan(&n))
		return n
	}

	// Two appends (two streams) in one transaction: one run, committed.
	require.NoError(t, pgdb.WithTx(hooked, b.db.Pool, func(tx pgx.Tx) error {
		if _, err := b.store.Append(hooked, tx, events.Stream{Type: "test", ID: "a"}, 0, counted{1}); err != nil {
			return err
		}
		_, err := b.store.Append(hooked, tx, events.Stream{Type: "test", ID: "b"}, 0, counted{2}, counted{3})
		return err
	}))
	require.Equal(t, 1, calls)
	require.Equal(t, 1, count(`SELECT count(*) FROM hook_marks`))

	// A transaction that appends and then rolls back takes the mark with it.
	boom := errors.New("after the append")
	err = pgdb.WithTx(hooked, b.db.Pool, func(tx pgx.Tx) error {
		if _, err := b.store.Append(hooked, tx, events.Stream{Type: "test", ID: "c"}, 0, counted{4}); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 2, calls, "a new transaction runs the hook again")
	require.Equal(t, 1, count(`SELECT count(*) FROM hook_marks`), "rolled back with the transaction")

	// The hook's error fails the append, and the events roll back with it.
	fail = errors.New("hook refused")
	err = b.appendTx(hooked, events.Stream{Type: "test", ID: "d"}, 0, counted{5})
	require.ErrorIs(t, err, fail)
	require.Equal(t, 0, count(`SELECT count(*) FROM events WHERE stream_id = 'test-d'`))
	// The failed run does not count as run: the next transaction runs it.
	fail = nil
	require.NoError(t, b.appendTx(hooked, events.Stream{Type: "test", ID: "d"}, 0, counted{5}))
	require.Equal(t, 2, count(`SELECT count(*) FROM hook_marks`))

	// Appends under a context without the hook do not run it.
	before := calls
	require.NoError(t, b.appendTx(ctx, events.Stream{Type: "test", ID: "e"}, 0, counted{6}))
	require.Equal(t, before, calls)
	require.Equal(t, 5, count(`SELECT count(*) FROM events`), "a: 1, b: 2, c rolled back, d: 1, e: 1")
}

// Hooks stack: a context with two runs both, outermost first.
func TestInAppendingTxHooksStack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var order []string
	hook := func(name string) func(context.Context, pgx.Tx) error {
		return func(context.Context, pgx.Tx) error { order = append(order, name); return nil }
	}
	outer := eventstore.InAppendingTx(ctx, hook("outer"))
	inner := eventstore.InAppendingTx(outer, hook("inner"))
	require.NoError(t, b.appendTx(inner, events.Stream{Type: "test", ID: "s"}, 0, counted{1}))
	require.Equal(t, []string{"outer", "inner"}, order)
	require.NoError(t, b.appendTx(outer, events.Stream{Type: "test", ID: "s"}, 1, counted{2}))
	require.Equal(t, []string{"outer", "inner", "outer"}, order, "the outer context knows nothing of the inner hook")

	// A write that is not the request's change runs none of them.
	require.NoError(t, b.appendTx(eventstore.WithoutAppendHooks(inner), events.Stream{Type: "test", ID: "s"}, 2, counted{3}))
	require.Equal(t, []string{"outer", "inner", "outer"}, order, "WithoutAppendHooks runs no hook")
}
