package dispatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/pgdb"
)

type pinged struct {
	ID string `json:"id"`
}

func (pinged) EventType() string { return "test.pinged.v1" }

type pingArgs struct {
	ID string `json:"id"`
}

func (pingArgs) Kind() string { return "test_ping" }

func setup(t *testing.T) (*dbtest.DB, *dispatch.Dispatcher) {
	db := dbtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
	require.NoError(t, err)
	return db, dispatch.New(eventstore.New(events.NewRegistry(pinged{})), rc)
}

func counts(t *testing.T, db *dbtest.DB) (evs, jobs int) {
	ctx := context.Background()
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&evs))
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'test_ping'`).Scan(&jobs))
	return evs, jobs
}

func TestEventAndJobCommitTogether(t *testing.T) {
	t.Parallel()
	db, d := setup(t)
	ctx := context.Background()
	err := pgdb.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		_, err := d.Append(ctx, tx, events.Stream{Type: "test", ID: "1"}, 0, []events.Event{pinged{ID: "1"}},
			river.InsertManyParams{Args: pingArgs{ID: "1"}})
		return err
	})
	require.NoError(t, err)
	evs, jobs := counts(t, db)
	require.Equal(t, 1, evs)
	require.Equal(t, 1, jobs)
}

func TestRolledBackTransactionLeavesNeitherEventNorJob(t *testing.T) {
	t.Parallel()
	db, d := setup(t)
	ctx := context.Background()
	boom := errors.New("later step failed")
	err := pgdb.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := d.Append(ctx, tx, events.Stream{Type: "test", ID: "2"}, 0, []events.Event{pinged{ID: "2"}},
			river.InsertManyParams{Args: pingArgs{ID: "2"}}); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	evs, jobs := counts(t, db)
	require.Zero(t, evs)
	require.Zero(t, jobs)

	// A conflicting append also leaves no job behind.
	require.NoError(t, pgdb.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		_, err := d.Append(ctx, tx, events.Stream{Type: "test", ID: "3"}, 0, []events.Event{pinged{ID: "3"}})
		return err
	}))
	err = pgdb.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		_, err := d.Append(ctx, tx, events.Stream{Type: "test", ID: "3"}, 0, []events.Event{pinged{ID: "3b"}},
			river.InsertManyParams{Args: pingArgs{ID: "3"}})
		return err
	})
	require.ErrorIs(t, err, eventstore.ErrConflict)
	evs, jobs = counts(t, db)
	require.Equal(t, 1, evs)
	require.Zero(t, jobs)
}
