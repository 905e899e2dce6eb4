package job_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// A build that was started and charged is answered, even when the request's
// connection to the database is lost right after its COMMIT (the database
// restarting, the client hanging up). Before, the answer was read back after
// the COMMIT; that read failed, the merchant (or a script, Idempotency-Key or
// not) got an error and retried, and the build was started and paid for
// twice: ops/chaos saw one job in twelve runs that no accepted request
// created. Every way a build starts, and a rename, now answers from inside
// its transaction.
func TestStartingABuildAnswersWhatItCommittedWhenTheConnectionIsLostRightAfter(t *testing.T) {
	env := jobtest.New(t, "http://photo3d.test")
	user := env.User(t)
	require.NoError(t, pgdb.WithTx(context.Background(), env.DB.Pool, func(tx pgx.Tx) error {
		_, err := env.Subs.PurchaseAddon(context.Background(), tx, user, "credits", 20)
		return err
	}))
	photo := func() string { return env.UploadPhoto(t, user, jobtest.PNG(t, 64, 64)) }
	state := func() (jobs, reserved int64) {
		t.Helper()
		require.NoError(t, env.DB.Pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM jobs WHERE user_id = $1),
			(SELECT ai_credits_reserved FROM subscriptions WHERE user_id = $1)`, user).Scan(&jobs, &reserved))
		return jobs, reserved
	}
	// started runs one call under a context cut after its COMMIT and checks
	// that it answered the one job it made, holding price credits more.
	started := func(name string, price int64, call func(ctx context.Context) (job.Job, error)) job.Job {
		t.Helper()
		jobsBefore, reservedBefore := state()
		ctx := committest.CutAfterCommit(context.Background())
		j, err := call(ctx)
		require.Error(t, ctx.Err(), "%s: the connection was cut after the COMMIT", name)
		require.NoError(t, err, "%s: the build was made, so it is answered", name)
		require.Equal(t, job.StatusQueued, j.Status, name)
		jobsAfter, reservedAfter := state()
		require.Equal(t, jobsBefore+1, jobsAfter, "%s: one job", name)
		require.Equal(t, reservedBefore+price, reservedAfter, "%s: its price held once", name)
		got, err := env.Jobs.Get(context.Background(), user, j.ID)
		require.NoError(t, err)
		require.Equal(t, j.ID, got.ID, name)
		require.Equal(t, j.Name, got.Name, name)
		return j
	}

	one := started("one photo", 1, func(ctx context.Context) (job.Job, error) {
		return env.Jobs.Create(ctx, user, photo())
	})
	started("three photos", 3, func(ctx context.Context) (job.Job, error) {
		return env.Jobs.CreateViews(ctx, user, photo(), []job.MoreImage{{ImageURL: photo()}, {ImageURL: photo()}})
	})
	spin := make([]string, 8)
	for i := range spin {
		spin[i] = photo()
	}
	started("spin set", 8, func(ctx context.Context) (job.Job, error) {
		return env.Jobs.CreateSpin(ctx, user, []job.SpinRing{{Photos: 8, Elevation: 0}}, spin)
	})

	env.Finish(t, one.ID, job.BuildFailedMessage)
	retried := started("retry", 1, func(ctx context.Context) (job.Job, error) {
		return env.Jobs.Retry(ctx, user, one.ID)
	})
	require.NotEqual(t, one.ID, retried.ID)

	ctx := committest.CutAfterCommit(context.Background())
	renamed, err := env.Jobs.Rename(ctx, user, retried.ID, "Blue vase")
	require.Error(t, ctx.Err(), "the connection was cut after the rename's COMMIT")
	require.NoError(t, err)
	require.Equal(t, "Blue vase", renamed.Name)
}
