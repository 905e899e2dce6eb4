package pgdb_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// hookDB is a test database with a table the transactions write and a
// listener on channel "hooks", to see what after-commit statements did.
type hookDB struct {
	pool   *pgxpool.Pool
	listen *pgx.Conn
}

func newHookDB(t *testing.T) hookDB {
	t.Helper()
	db := dbtest.New(t)
	ctx := context.Background()
	// The deferred unique constraint makes COMMIT itself fail on demand.
	_, err := db.Pool.Exec(ctx, `CREATE TABLE hooked (x text UNIQUE DEFERRABLE INITIALLY DEFERRED, xid bigint NOT NULL DEFAULT txid_current())`)
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	_, err = conn.Exec(ctx, `LISTEN hooks`)
	require.NoError(t, err)
	return hookDB{pool: db.Pool, listen: conn}
}

// marker sends a notification from the listener itself: notifications
// arrive in commit order, so whatever a hook sent before it arrives first.
func (h hookDB) marker(t *testing.T, payload string) {
	t.Helper()
	_, err := h.listen.Exec(context.Background(), `SELECT pg_notify('hooks', $1)`, payload)
	require.NoError(t, err)
}

// next returns the payloads of the next n notifications.
func (h hookDB) next(t *testing.T, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	for len(out) < n {
		note, err := h.listen.WaitForNotification(ctx)
		require.NoError(t, err)
		out = append(out, note.Payload)
	}
	return out
}

func register(t *testing.T, tx pgx.Tx, key, sql string, args ...any) {
	t.Helper()
	ac, ok := tx.(pgdb.AfterCommitter)
	require.True(t, ok, "WithTx's transaction takes after-commit statements")
	ac.AfterCommit(key, sql, args...)
}

func TestAfterCommitRunsOnceAfterCommitAndNeverAfterRollback(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx := context.Background()

	// Rolled back: by the callback's error, by a failed COMMIT (deferred
	// constraint), and by an error the callback went past. None runs its hook.
	_, err := h.pool.Exec(ctx, `INSERT INTO hooked (x) VALUES ('taken')`)
	require.NoError(t, err)
	boom := errors.New("boom")
	require.ErrorIs(t, pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		register(t, tx, "n", `SELECT pg_notify('hooks', 'rolled back')`)
		return boom
	}), boom)
	err = pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		register(t, tx, "n", `SELECT pg_notify('hooks', 'commit failed')`)
		_, err := tx.Exec(ctx, `INSERT INTO hooked (x) VALUES ('taken')`)
		return err
	})
	require.True(t, pgdb.IsUniqueViolation(err, ""), "COMMIT fails on the deferred constraint: %v", err)
	err = pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		register(t, tx, "n", `SELECT pg_notify('hooks', 'aborted')`)
		_, _ = tx.Exec(ctx, `SELECT 1/0`) // ignored: the transaction is aborted
		return nil
	})
	require.ErrorIs(t, err, pgx.ErrTxCommitRollback)
	h.marker(t, "after the rollbacks")

	// Committed: the hook registered three times under one key runs once, in
	// a transaction of its own after the data's, and sees the data.
	require.NoError(t, pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		for i := 0; i < 3; i++ {
			register(t, tx, "n", `SELECT pg_notify('hooks', (SELECT string_agg(x, ',' ORDER BY x) FROM hooked))`)
		}
		register(t, tx, "log", `INSERT INTO hooked (x) VALUES ('hook')`)
		_, err := tx.Exec(ctx, `INSERT INTO hooked (x) VALUES ('data')`)
		return err
	}))
	h.marker(t, "after the commit")
	require.Equal(t, []string{"after the rollbacks", "data,taken", "after the commit"}, h.next(t, 3))
	var dataXid, hookXid int64
	require.NoError(t, h.pool.QueryRow(ctx, `SELECT (SELECT xid FROM hooked WHERE x = 'data'), (SELECT xid FROM hooked WHERE x = 'hook')`).Scan(&dataXid, &hookXid))
	require.Greater(t, hookXid, dataXid, "the hooks run after the data's transaction")
}

func TestAfterCommitInASavepointWaitsForTheOuterCommit(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx := context.Background()
	require.NoError(t, pgdb.WithTx(ctx, h.pool, func(outer pgx.Tx) error {
		// A savepoint that rolls back drops its hook; one that is released
		// hands its hook to the outer transaction.
		_ = pgdb.WithTx(ctx, outer, func(tx pgx.Tx) error {
			register(t, tx, "dropped", `SELECT pg_notify('hooks', 'dropped')`)
			return errors.New("undo the savepoint")
		})
		require.NoError(t, pgdb.WithTx(ctx, outer, func(tx pgx.Tx) error {
			register(t, tx, "kept", `SELECT pg_notify('hooks', 'kept')`)
			return nil
		}))
		// Nothing has run before the outer commit.
		var n int
		require.NoError(t, outer.QueryRow(ctx, `SELECT count(*) FROM hooked`).Scan(&n))
		h.marker(t, "before the outer commit")
		return nil
	}))
	h.marker(t, "after the outer commit")
	require.Equal(t, []string{"before the outer commit", "kept", "after the outer commit"}, h.next(t, 3))
}

func TestAfterCommitFailureIsLoggedAndTheCommitStands(t *testing.T) {
	// Not parallel: it swaps the default logger.
	h := newHookDB(t)
	ctx := context.Background()
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	require.NoError(t, pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		register(t, tx, "bad hook", `SELECT 1/0`)
		register(t, tx, "skipped", `SELECT pg_notify('hooks', 'skipped')`)
		_, err := tx.Exec(ctx, `INSERT INTO hooked (x) VALUES ('kept')`)
		return err
	}))
	var n int
	require.NoError(t, h.pool.QueryRow(ctx, `SELECT count(*) FROM hooked WHERE x = 'kept'`).Scan(&n))
	require.Equal(t, 1, n, "the transaction committed")
	require.Contains(t, logs.String(), "after-commit statement failed")
	require.Contains(t, logs.String(), "bad hook")
	require.Contains(t, logs.String(), "division by zero")

	// The connection is usable afterwards (back in the pool, not in a
	// transaction).
	require.NoError(t, pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO hooked (x) VALUES ('again')`)
		return err
	}))
}

func TestWithTxOnAConnection(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx := context.Background()
	conn, err := h.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	require.NoError(t, pgdb.WithTx(ctx, conn.Conn(), func(tx pgx.Tx) error {
		register(t, tx, "n", `SELECT pg_notify('hooks', 'from a connection')`)
		return nil
	}))
	require.Equal(t, byte('I'), conn.Conn().PgConn().TxStatus(), "the connection is out of its transaction")
	require.Equal(t, []string{"from a connection"}, h.next(t, 1))
}
