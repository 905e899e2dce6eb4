package job_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// fairEnv is a stack with merchants who bought credits, for the fair-share
// test and the M6 measurement.
type fairEnv struct {
	env *jobtest.Env
	ctx context.Context
}

func newFairEnv(t testing.TB) fairEnv {
	t.Helper()
	return fairEnv{env: jobtest.New(t, "http://photo3d.test"), ctx: context.Background()}
}

// merchant is a new account holding 5 + extra AI credits.
func (f fairEnv) merchant(t testing.TB, extra int64) string {
	t.Helper()
	user := f.env.User(t)
	if extra > 0 {
		require.NoError(t, pgdb.WithTx(f.ctx, f.env.DB.Pool, func(tx pgx.Tx) error {
			_, err := f.env.Subs.PurchaseAddon(f.ctx, tx, user, "credits", extra)
			return err
		}))
	}
	return user
}

// photos uploads n side×side photos of user: the front photo's URL and the
// further ones as moreImages.
func (f fairEnv) photos(t testing.TB, user string, n, side int) (string, []job.MoreImage) {
	t.Helper()
	data := jobtest.PNG(t, side, side)
	front := f.env.UploadPhoto(t, user, data)
	var more []job.MoreImage
	for range n - 1 {
		more = append(more, job.MoreImage{ImageURL: f.env.UploadPhoto(t, user, data)})
	}
	return front, more
}

// startOrder is the order in which the reconstruct worker started the given
// jobs (job.started.v1 by global position), each job once.
func (f fairEnv) startOrder(t testing.TB, ids ...string) []string {
	t.Helper()
	rows, err := f.env.DB.Pool.Query(f.ctx, `
SELECT data->>'jobId' FROM events WHERE type = 'job.started.v1' AND data->>'jobId' = ANY($1)
GROUP BY data->>'jobId' ORDER BY min(position)`, ids)
	require.NoError(t, err)
	order, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return order
}

// startWorker runs the real ReconstructWorker on the reconstruct queue with
// slots concurrent builds (cmd/worker's RECONSTRUCT_WORKERS), until the test ends.
func (f fairEnv) startWorker(t testing.TB, slots int) {
	t.Helper()
	workers := river.NewWorkers()
	// The real worker, as jobtest's, but with cmd/worker's 5-minute time
	// limit: on a busy machine an eight-photo build can pass jobtest's minute.
	river.AddWorker(workers, job.NewReconstructWorker(job.WorkerConfig{DB: f.env.DB.Pool, Events: f.env.Store,
		Blobs: f.env.Blobs, Reconstructor: reconstruct.NewBuiltin(), Credits: f.env.Subs, Options: job.WorkerOptions(0),
		Timeout: 5 * time.Minute, Logger: f.env.Logger}))
	rc, err := river.NewClient(riverpgxv5.New(f.env.DB.Pool), &river.Config{
		Logger: f.env.Logger, Workers: workers, JobTimeout: 10 * time.Minute, TestOnly: true,
		Queues:        map[string]river.QueueConfig{job.QueueReconstruct: {MaxWorkers: slots}},
		FetchCooldown: 50 * time.Millisecond, RescueStuckJobsAfter: 20 * time.Minute,
	})
	require.NoError(t, err)
	require.NoError(t, rc.Start(f.ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx)
	})
}

// Security review M6: one merchant's backlog of multi-photo builds must not
// hold another merchant's one-photo build behind it. Merchant A queues four
// builds of several photos, then merchant B queues one build of one photo,
// all before a worker with a single build slot starts. B's build starts
// second: after A's first build, ahead of the rest of A's backlog, whatever
// the order of arrival. (The assertion is on the order the worker ran them,
// never on timing.)
func TestFairShareOtherMerchantsFirstBuildJumpsABacklog(t *testing.T) {
	t.Parallel()
	f := newFairEnv(t)
	a := f.merchant(t, 40)
	b := f.merchant(t, 0)
	var backlog []string
	for range 4 {
		front, more := f.photos(t, a, 3, 96)
		j, err := f.env.Jobs.CreateViews(f.ctx, a, front, more)
		require.NoError(t, err)
		backlog = append(backlog, j.ID)
	}
	front, _ := f.photos(t, b, 1, 96)
	bj, err := f.env.Jobs.Create(f.ctx, b, front)
	require.NoError(t, err)

	f.startWorker(t, 1)
	all := append(append([]string{}, backlog...), bj.ID)
	for _, id := range all {
		owner := a
		if id == bj.ID {
			owner = b
		}
		f.env.WaitFor(t, owner, id, 2*time.Minute, job.Job.Terminal)
	}
	order := f.startOrder(t, all...)
	require.Len(t, order, len(all))
	require.Equal(t, []string{backlog[0], bj.ID}, order[:2],
		"B's one-photo build runs right after A's first build, ahead of A's backlog: %v", order)
	require.Equal(t, backlog[1:], order[2:], "A's own builds keep their order")
}

// BenchmarkFairShareM6 is the measurement of security review M6: merchant A
// queues 20 eight-photo builds (320 px photos, like the ops harness's), then
// merchant B starts one one-photo build, on one worker with 2 reconstruct
// slots (RECONSTRUCT_WORKERS=2). It reports B's wait from queued to started
// (wait-s), how many of A's builds started before B's (A-ahead), and how
// many of A's 20 requests were refused (A-refused). One run takes minutes:
//
//	nice go test -run '^$' -bench FairShareM6 -benchtime 1x -timeout 60m ./internal/job/
//
// FAIRSHARE_BUILDS, FAIRSHARE_PHOTOS and FAIRSHARE_PX change the 20, 8 and
// 320; FAIRSHARE_MAX_WAITING=0 lifts the waiting limit (MAX_WAITING_BUILDS),
// to see what the priorities alone do with all 20 builds queued.
func BenchmarkFairShareM6(bm *testing.B) {
	builds, photos, side := envInt("FAIRSHARE_BUILDS", 20), envInt("FAIRSHARE_PHOTOS", 8), envInt("FAIRSHARE_PX", 320)
	for range bm.N {
		f := newFairEnv(bm)
		if v, err := strconv.Atoi(os.Getenv("FAIRSHARE_MAX_WAITING")); err == nil {
			f.env.Jobs = job.NewService(f.env.DB.Pool, dispatch.New(f.env.Store, f.env.River), f.env.Uploads, f.env.Blobs,
				f.env.Subs, job.WithMaxWaitingBuilds(v))
		}
		a := f.merchant(bm, int64(builds*photos))
		b := f.merchant(bm, 0)
		front, more := f.photos(bm, a, photos, side)
		bFront, _ := f.photos(bm, b, 1, side)
		f.startWorker(bm, 2)

		var queued []string
		refused := map[string]int{}
		for range builds {
			j, err := f.env.Jobs.CreateViews(f.ctx, a, front, more)
			if fe, ok := fault.As(err); ok {
				refused[fe.Code]++
				continue
			}
			require.NoError(bm, err)
			queued = append(queued, j.ID)
		}
		bj, err := f.env.Jobs.Create(f.ctx, b, bFront)
		require.NoError(bm, err)
		started := f.env.WaitFor(bm, b, bj.ID, 55*time.Minute, func(j job.Job) bool { return j.StartedAt != nil })
		wait := started.StartedAt.Sub(started.QueuedAt)
		var ahead int
		require.NoError(bm, f.env.DB.Pool.QueryRow(f.ctx,
			`SELECT count(*) FROM jobs WHERE user_id = $1 AND started_at < $2`, a, started.StartedAt).Scan(&ahead))
		done := f.env.WaitFor(bm, b, bj.ID, 10*time.Minute, job.Job.Terminal)
		var oneBuild time.Duration
		if done.FinishedAt != nil {
			oneBuild = done.FinishedAt.Sub(*done.StartedAt)
		}
		var eight *time.Duration
		for _, id := range queued {
			j, err := f.env.Jobs.Get(f.ctx, a, id)
			require.NoError(bm, err)
			if j.Status == job.StatusCompleted && j.StartedAt != nil && j.FinishedAt != nil {
				d := j.FinishedAt.Sub(*j.StartedAt)
				eight = &d
				break
			}
		}
		bm.ReportMetric(wait.Seconds(), "wait-s")
		bm.ReportMetric(float64(ahead), "A-ahead")
		bm.ReportMetric(float64(builds-len(queued)), "A-refused")
		msg := fmt.Sprintf("A asked for %d builds of %d photos (%d px): %d queued, refused %v; B (1 photo, %s) waited %s with %d of A's builds started ahead of it; B's build took %s",
			builds, photos, side, len(queued), refused, done.Status, wait.Round(10*time.Millisecond), ahead, oneBuild.Round(10*time.Millisecond))
		if eight != nil {
			msg += fmt.Sprintf("; one of A's builds took %s", eight.Round(10*time.Millisecond))
		}
		bm.Log(msg)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// The price of a build is one credit per photo (security review M6).
func TestCreditsForIsOneCreditPerPhoto(t *testing.T) {
	t.Parallel()
	for photos, want := range map[int]int64{0: 1, 1: 1, 2: 2, 4: 4, 8: 8} {
		require.Equal(t, want, job.CreditsFor(photos), "%d photos", photos)
	}
}

// An account's k-th unfinished build is queued at River priority k, down to
// River's lowest (4); builds that finished free their rank, and the waiting
// limit counts only builds no worker has started.
func TestFairSharePrioritiesAndWaitingLimit(t *testing.T) {
	t.Parallel()
	f := newFairEnv(t)
	a := f.merchant(t, 20)
	front, _ := f.photos(t, a, 1, 64)
	priority := func(jobID string) (p int) {
		require.NoError(t, f.env.DB.Pool.QueryRow(f.ctx, `SELECT priority FROM river_job WHERE args->>'jobId' = $1`, jobID).Scan(&p))
		return p
	}
	var ids []string
	for range job.DefaultMaxWaitingBuilds {
		j, err := f.env.Jobs.Create(f.ctx, a, front)
		require.NoError(t, err)
		ids = append(ids, j.ID)
	}
	var got []int
	for _, id := range ids {
		got = append(got, priority(id))
	}
	require.Equal(t, []int{1, 2, 3, 4, 4}, got)

	_, err := f.env.Jobs.Create(f.ctx, a, front)
	fe, ok := fault.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, fault.RateLimited, fe.Kind)
	require.Equal(t, job.CodeBuildsQueued, fe.Code)

	// A build a worker runs no longer waits, but still holds a rank.
	_, err = f.env.DB.Pool.Exec(f.ctx, `UPDATE jobs SET status = 'processing' WHERE id = $1`, ids[0])
	require.NoError(t, err)
	j, err := f.env.Jobs.Create(f.ctx, a, front)
	require.NoError(t, err)
	require.Equal(t, 4, priority(j.ID))

	// Finished builds free their rank: the next account-wide build is first again.
	for _, id := range append(ids, j.ID) {
		f.env.Finish(t, id, "")
	}
	j, err = f.env.Jobs.Create(f.ctx, a, front)
	require.NoError(t, err)
	require.Equal(t, 1, priority(j.ID))

	// No limit when MAX_WAITING_BUILDS=0 (load tests).
	unlimited := job.NewService(f.env.DB.Pool, dispatch.New(f.env.Store, f.env.River), f.env.Uploads, f.env.Blobs, f.env.Subs,
		job.WithMaxWaitingBuilds(0))
	for range job.DefaultMaxWaitingBuilds + 1 {
		_, err := unlimited.Create(f.ctx, a, front)
		require.NoError(t, err)
	}
}
