package pgdb_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// gatedExec is the real pool, with the first NOTIFY held until the test
// opens the gate: while it is held, the test pokes as much as it likes.
type gatedExec struct {
	pool  pgdb.Execer
	gate  chan struct{}
	calls atomic.Int32
}

func (g *gatedExec) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if g.calls.Add(1) == 1 {
		<-g.gate
	}
	return g.pool.Exec(ctx, sql, args...)
}

// TestNotifierCoalescesPokes: 32 writers poke 3,200 times while one NOTIFY is
// on its way; the listener then gets exactly two notifications (the one under
// way and one for everything poked meanwhile), and the second reads every row
// committed before the last poke.
func TestNotifierCoalescesPokes(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gatedExec{pool: h.pool, gate: make(chan struct{})}
	n := pgdb.StartNotifier(ctx, g, "hooks")

	n.Poke()
	require.Eventually(t, func() bool { return g.calls.Load() == 1 }, 10*time.Second, time.Millisecond, "the first NOTIFY is under way")
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				_, err := h.pool.Exec(ctx, `INSERT INTO hooked (x) VALUES ($1)`, fmt.Sprintf("%d-%d", w, i))
				if err != nil {
					t.Error(err)
					return
				}
				n.Poke()
			}
		}()
	}
	wg.Wait()
	close(g.gate)

	require.Equal(t, []string{"", ""}, h.next(t, 2))
	var rows int
	require.NoError(t, h.listen.QueryRow(ctx, `SELECT count(*) FROM hooked`).Scan(&rows))
	require.Equal(t, 3200, rows, "woken after the last commit, the listener sees every row")
	h.marker(t, "nothing else was sent")
	require.Equal(t, []string{"nothing else was sent"}, h.next(t, 1))
	require.EqualValues(t, 2, g.calls.Load())
}

// TestNotifierFollowsEveryPoke: a poke made after a NOTIFY was sent gets one
// of its own, so a commit is never left unannounced.
func TestNotifierFollowsEveryPoke(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := pgdb.StartNotifier(ctx, h.pool, "hooks")
	for i := range 5 {
		_, err := h.pool.Exec(ctx, `INSERT INTO hooked (x) VALUES ($1)`, string(rune('a'+i)))
		require.NoError(t, err)
		n.Poke()
		require.Equal(t, []string{""}, h.next(t, 1), "poke %d", i)
		var rows int
		require.NoError(t, h.listen.QueryRow(ctx, `SELECT count(*) FROM hooked`).Scan(&rows))
		require.Equal(t, i+1, rows)
	}
}

// TestAfterCommitFuncRunsOnlyAfterTheOutermostCommit: Go hooks run once per
// key after a commit, never after a rollback, and a savepoint's wait for the
// outer commit.
func TestAfterCommitFuncRunsOnlyAfterTheOutermostCommit(t *testing.T) {
	t.Parallel()
	h := newHookDB(t)
	ctx := context.Background()
	var ran []string
	hook := func(tx pgx.Tx, key string) {
		ac, ok := tx.(pgdb.AfterCommitter)
		require.True(t, ok)
		ac.AfterCommitFunc(key, func() { ran = append(ran, key) })
	}
	undo := errors.New("undo")
	require.ErrorIs(t, pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		hook(tx, "rolled back")
		return undo
	}), undo)
	require.Empty(t, ran)

	require.NoError(t, pgdb.WithTx(ctx, h.pool, func(outer pgx.Tx) error {
		hook(outer, "outer")
		hook(outer, "outer") // once per key
		_ = pgdb.WithTx(ctx, outer, func(tx pgx.Tx) error {
			hook(tx, "dropped savepoint")
			return undo
		})
		require.NoError(t, pgdb.WithTx(ctx, outer, func(tx pgx.Tx) error {
			hook(tx, "released savepoint")
			return nil
		}))
		require.Empty(t, ran, "nothing runs before the outer commit")
		_, err := outer.Exec(ctx, `INSERT INTO hooked (x) VALUES ('committed')`)
		return err
	}))
	require.Equal(t, []string{"outer", "released savepoint"}, ran)

	// A COMMIT that fails (the deferred unique constraint) runs nothing.
	ran = nil
	err := pgdb.WithTx(ctx, h.pool, func(tx pgx.Tx) error {
		hook(tx, "commit failed")
		_, err := tx.Exec(ctx, `INSERT INTO hooked (x) VALUES ('committed')`)
		return err
	})
	require.True(t, pgdb.IsUniqueViolation(err, ""), "%v", err)
	require.Empty(t, ran)
}
