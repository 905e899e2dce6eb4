package job_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/subscription"
)

type bundle struct {
	env    *jobtest.Env
	user   string
	ctx    context.Context
	photo  []byte
	imgURL string
}

func setup(t *testing.T) bundle {
	t.Helper()
	env := jobtest.New(t, "http://photo3d.test")
	user := env.User(t)
	photo := jobtest.PNG(t, 320, 320)
	return bundle{env: env, user: user, ctx: context.Background(), photo: photo, imgURL: env.UploadPhoto(t, user, photo)}
}

// createJob queues a job through the service (event + credit hold + River
// job in one transaction) and returns its id.
func (b bundle) createJob(t *testing.T) string {
	t.Helper()
	j, err := b.env.Jobs.Create(b.ctx, b.user, b.imgURL)
	require.NoError(t, err)
	require.Equal(t, job.StatusQueued, j.Status)
	return j.ID
}

// work runs the worker once through rivertest, inside a rolled-back tx for
// River's own rows (the worker writes its events through the pool).
func (b bundle) work(t *testing.T, rec reconstruct.Reconstructor, jobID string, opts *river.InsertOpts) (*rivertest.WorkResult, error) {
	t.Helper()
	tw := rivertest.NewWorker(t, riverpgxv5.New(b.env.DB.Pool), &river.Config{TestOnly: true}, b.env.Worker(rec))
	tx, err := b.env.DB.Pool.Begin(b.ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(b.ctx) }()
	return tw.Work(b.ctx, t, tx, job.ReconstructArgs{JobID: jobID}, opts)
}

func (b bundle) credits(t *testing.T) (used, reserved int64) {
	t.Helper()
	err := b.env.DB.Pool.QueryRow(b.ctx, `SELECT ai_credits_used, ai_credits_reserved FROM subscriptions WHERE user_id = $1`, b.user).
		Scan(&used, &reserved)
	require.NoError(t, err)
	return used, reserved
}

func TestWorkerCompletesOnceAndConsumesOneCredit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	_, reserved := b.credits(t)
	require.EqualValues(t, 1, reserved)

	res, err := b.work(t, reconstruct.NewBuiltin(), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)

	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusCompleted, j.Status)
	require.Equal(t, 100, j.Progress)
	require.Equal(t, string(reconstruct.StepFinalizing), j.Step)
	require.NotEmpty(t, j.AssetID)
	require.NotEmpty(t, j.Parts)
	var stats reconstruct.Stats
	require.NoError(t, json.Unmarshal(j.Stats, &stats))
	require.Equal(t, "builtin", stats.Reconstructor)
	require.Positive(t, stats.Triangles)
	require.Equal(t, "builtin", j.Reconstructor)
	require.Equal(t, reconstruct.Version, j.Version)
	require.NotNil(t, j.Fidelity(), "the fidelity score is stored with the job")
	require.Equal(t, *stats.Fidelity, *j.Fidelity())
	require.Empty(t, j.Warnings, "the vase stands clear of every edge")

	glb, err := b.env.Blobs.Read(b.ctx, j.ModelKey, 0)
	require.NoError(t, err)
	gltfvalidate.Validate(t, glb)
	asset, err := b.env.Jobs.Asset(b.ctx, b.user, j.AssetID)
	require.NoError(t, err)
	require.EqualValues(t, len(glb), asset.Bytes)
	require.Equal(t, job.ModelContentType, asset.ContentType)

	types := b.env.EventTypes(t, events.Stream{Type: events.StreamJob, ID: jobID})
	require.Equal(t, "job.queued.v1", types[0])
	require.Equal(t, "job.started.v1", types[1])
	require.Equal(t, "job.completed.v1", types[len(types)-1])
	var steps []string
	for _, ty := range types[2 : len(types)-1] {
		require.Equal(t, "job.progressed.v1", ty)
	}
	envs, _, err := b.env.Store.Load(b.ctx, b.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: jobID})
	require.NoError(t, err)
	last := -1
	for _, e := range envs {
		if p, ok := e.Data.(events.JobProgressed); ok {
			require.GreaterOrEqual(t, p.Percent, last, "progress never goes back")
			last = p.Percent
			if len(steps) == 0 || steps[len(steps)-1] != p.Step {
				steps = append(steps, p.Step)
			}
		}
	}
	require.Equal(t, []string{string(reconstruct.StepAnalyzing), string(reconstruct.StepDeconstructing),
		string(reconstruct.StepAssembling), string(reconstruct.StepFinalizing)}, steps, "every step is reported")

	// Provenance: which code, with which options, made this model from which photo.
	done, ok := envs[len(envs)-1].Data.(events.JobCompleted)
	require.True(t, ok)
	require.Equal(t, "builtin", done.Reconstructor)
	require.Equal(t, reconstruct.Version, done.Version)
	require.Equal(t, fmt.Sprintf("%x", sha256.Sum256(b.photo)), done.InputSHA256)
	require.Equal(t, &events.JobOptions{HeightMetres: reconstruct.DefaultHeightMetres, MaxTriangles: reconstruct.DefaultMaxTriangles,
		WorkingSize: reconstruct.DefaultWorkingSize, AtlasSize: reconstruct.DefaultAtlasSize, StrictSubject: true}, done.Options)
	require.NotNil(t, done.Fidelity)
	require.Equal(t, *j.Fidelity(), *done.Fidelity)
	require.GreaterOrEqual(t, *done.Fidelity, 0)
	require.LessOrEqual(t, *done.Fidelity, 100)

	// River runs the job again (a worker that died after committing): nothing
	// changes, nothing is charged twice.
	res, err = b.work(t, reconstruct.NewBuiltin(), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Equal(t, 1, b.env.CountEvents(t, "job.completed.v1", jobID))
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_consumed.v1", jobID))
	used, reserved := b.credits(t)
	require.EqualValues(t, 1, used)
	require.EqualValues(t, 0, reserved)
}

// failing always fails like a crashed GPU server.
type failing struct{ calls atomic.Int32 }

func (*failing) Name() string    { return "failing" }
func (*failing) Version() string { return "0" }
func (f *failing) Reconstruct(ctx context.Context, _ []byte, _ reconstruct.Options, progress reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	f.calls.Add(1)
	progress(reconstruct.StepAnalyzing, 5)
	return nil, errors.New("inference server answered 502")
}

func TestWorkerRetriesThenFailsOnLastAttemptAndReleasesTheCredit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)

	// Not the last attempt: River retries, nothing is recorded as failed.
	_, err := b.work(t, &failing{}, jobID, &river.InsertOpts{MaxAttempts: 3})
	require.ErrorContains(t, err, "inference server answered 502")
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusProcessing, j.Status)
	require.Zero(t, b.env.CountEvents(t, "job.failed.v1", jobID))
	_, reserved := b.credits(t)
	require.EqualValues(t, 1, reserved)

	// The last attempt records the failure and gives the credit back.
	res, err := b.work(t, &failing{}, jobID, &river.InsertOpts{MaxAttempts: 1})
	require.NoError(t, err, "a cancelled job is not a test-worker error")
	require.Equal(t, river.EventKindJobCancelled, res.EventKind)
	j, err = b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Equal(t, job.BuildFailedMessage, j.Error)
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_released.v1", jobID))
	used, reserved := b.credits(t)
	require.Zero(t, used, "a failed build costs nothing")
	require.Zero(t, reserved)

	// Later runs change nothing.
	_, err = b.work(t, reconstruct.NewBuiltin(), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, 1, b.env.CountEvents(t, "job.failed.v1", jobID))
	require.Zero(t, b.env.CountEvents(t, "job.completed.v1", jobID))
}

// badPhoto fails like the pipeline does on an undecodable photo.
type badPhoto struct{}

func (badPhoto) Name() string    { return "bad" }
func (badPhoto) Version() string { return "0" }
func (badPhoto) Reconstruct(context.Context, []byte, reconstruct.Options, reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	return nil, fmt.Errorf("decode: %w", imagecheck.ErrUnreadable)
}

func TestWorkerFailsAtOnceOnAPhotoProblem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	res, err := b.work(t, badPhoto{}, jobID, &river.InsertOpts{MaxAttempts: 3})
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCancelled, res.EventKind, "retrying cannot fix the photo")
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Equal(t, imagecheck.ErrUnreadable.Error()+" "+job.BuildRefusedMessage, j.Error)
	require.True(t, j.Refused, "the same photo would be refused again: no retry")
	require.False(t, j.Retryable())
	_, err = b.env.Jobs.Retry(b.ctx, b.user, jobID)
	require.ErrorIs(t, err, job.ErrRefusedPhotos)
	used, reserved := b.credits(t)
	require.Zero(t, used)
	require.Zero(t, reserved)
}

func TestWorkerFailsADeletedBlueprintWithoutCharging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	require.NoError(t, b.env.Jobs.Delete(b.ctx, b.user, jobID))
	res, err := b.work(t, reconstruct.NewBuiltin(), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Equal(t, 1, b.env.CountEvents(t, "job.failed.v1", jobID))
	require.Zero(t, b.env.CountEvents(t, "job.started.v1", jobID))
	used, reserved := b.credits(t)
	require.Zero(t, used)
	require.Zero(t, reserved)
}

// deleteDuring deletes the blueprint while the reconstruction runs, like a
// merchant removing a blueprint that is still processing.
type deleteDuring struct {
	reconstruct.Reconstructor
	del func()
}

func (d deleteDuring) Reconstruct(ctx context.Context, img []byte, o reconstruct.Options, p reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	d.del()
	return d.Reconstructor.Reconstruct(ctx, img, o, p)
}

func TestWorkerReleasesTheCreditOfABlueprintDeletedWhileBuilding(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	rec := deleteDuring{Reconstructor: reconstruct.NewBuiltin(), del: func() {
		require.NoError(t, b.env.Jobs.Delete(b.ctx, b.user, jobID))
	}}
	res, err := b.work(t, rec, jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Equal(t, 1, b.env.CountEvents(t, "job.failed.v1", jobID))
	require.Zero(t, b.env.CountEvents(t, "job.completed.v1", jobID))
	used, reserved := b.credits(t)
	require.Zero(t, used, "a deleted blueprint costs nothing")
	require.Zero(t, reserved)
}

// listKeys is every blob key under prefix.
func (b bundle) listKeys(t *testing.T, prefix string) []string {
	t.Helper()
	var keys []string
	it := b.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(b.ctx)
		if errors.Is(err, io.EOF) {
			return keys
		}
		require.NoError(t, err)
		keys = append(keys, obj.Key)
	}
}

// Security review M3: the owner deletes the account while a build is
// running, and the erasure job (the real one) deletes the account's files
// before the build stores its model. The build must not write them back
// afterwards: it ends failed, costs nothing, and the account has no files.
func TestWorkerWritesNoFilesForAnAccountErasedWhileBuilding(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eraser := &privacy.EraseWorker{DB: b.env.DB.Pool, Store: b.env.Store, Bucket: b.env.Blobs.Bucket,
		Mailer: mail.Log{Logger: log}, Logger: log, BaseURL: "http://photo3d.test"}
	rec := deleteDuring{Reconstructor: reconstruct.NewBuiltin(), del: func() {
		// What DELETE /api/users/me records before the erasure job runs.
		_, err := b.env.DB.Pool.Exec(b.ctx, `UPDATE users SET erasure_requested_at = now() WHERE id = $1`, b.user)
		require.NoError(t, err)
		require.NoError(t, eraser.Erase(b.ctx, b.user))
		require.Empty(t, b.listKeys(t, "uploads/"+b.user+"/"), "the erasure deleted the photo")
	}}
	res, err := b.work(t, rec, jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Empty(t, b.listKeys(t, "models/"+b.user+"/"), "no file of the erased account is written after the erasure")
	require.Zero(t, b.env.CountEvents(t, "job.completed.v1", jobID))
	require.Equal(t, 1, b.env.CountEvents(t, "job.failed.v1", jobID))
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.AccountErasedWhileBuildingMessage, j.Error)
	used, reserved := b.credits(t)
	require.Zero(t, used, "a build for an erased account costs nothing")
	require.Zero(t, reserved)
}

// stallOnce blocks its first reconstruction until the worker's context is
// cancelled (a worker shut down or killed mid-job), then behaves normally.
type stallOnce struct {
	inner   reconstruct.Reconstructor
	calls   atomic.Int32
	stalled chan struct{}
}

func (s *stallOnce) Name() string    { return s.inner.Name() }
func (s *stallOnce) Version() string { return s.inner.Version() }
func (s *stallOnce) Reconstruct(ctx context.Context, img []byte, o reconstruct.Options, p reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	if s.calls.Add(1) == 1 {
		p(reconstruct.StepAnalyzing, 10)
		close(s.stalled)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.inner.Reconstruct(ctx, img, o, p)
}

func TestWorkerKilledMidJobStillCompletesOnceWithOneCredit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rec := &stallOnce{inner: reconstruct.NewBuiltin(), stalled: make(chan struct{})}
	// Queued first: with a worker already running, the job can be processing
	// by the time Create reads it back, and createJob checks it is queued.
	jobID := b.createJob(t)
	first := b.env.StartWorker(t, rec)
	select {
	case <-rec.stalled:
	case <-time.After(20 * time.Second):
		t.Fatal("the first worker never picked the job up")
	}
	b.env.WaitFor(t, b.user, jobID, 10*time.Second, func(j job.Job) bool { return j.Status == job.StatusProcessing })
	stopCtx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, first.StopAndCancel(stopCtx), "the worker process stops with the job mid-flight")

	b.env.StartWorker(t, rec) // the restarted process
	j := b.env.WaitFor(t, b.user, jobID, 60*time.Second, func(j job.Job) bool { return j.Terminal() })
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.Equal(t, 2, b.env.CountEvents(t, "job.started.v1", jobID), "two runs")
	require.Equal(t, 1, b.env.CountEvents(t, "job.completed.v1", jobID))
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_consumed.v1", jobID))
	used, reserved := b.credits(t)
	require.EqualValues(t, 1, used)
	require.Zero(t, reserved)
}

func TestCrashedWorkerJobIsRescuedAndCompletedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	// What a worker killed with SIGKILL leaves behind: River's row running
	// since long ago, and our stream showing it started.
	_, err := b.env.DB.Pool.Exec(b.ctx, `
UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 hour',
       attempted_by = ARRAY['dead-worker'] WHERE args->>'jobId' = $1`, jobID)
	require.NoError(t, err)
	require.NoError(t, pgxTx(b, func(tx pgx.Tx) error {
		_, err := b.env.Store.Append(b.ctx, tx, events.Stream{Type: events.StreamJob, ID: jobID}, 1,
			events.JobStarted{JobID: jobID, Attempt: 1, Worker: "dead-worker", At: time.Now().UTC()})
		return err
	}))

	workers := river.NewWorkers()
	river.AddWorker(workers, b.env.Worker(reconstruct.NewBuiltin()))
	rc, err := river.NewClient(riverpgxv5.New(b.env.DB.Pool), &river.Config{
		Logger: b.env.Logger, Queues: map[string]river.QueueConfig{job.QueueReconstruct: {MaxWorkers: 1}},
		Workers: workers, JobTimeout: time.Second, RescueStuckJobsAfter: time.Second, TestOnly: true,
		RetryPolicy: immediateRetry{}, FetchCooldown: 50 * time.Millisecond,
	})
	require.NoError(t, err)
	require.NoError(t, rc.Start(b.ctx))
	t.Cleanup(func() { _ = rc.StopAndCancel(context.Background()) })

	j := b.env.WaitFor(t, b.user, jobID, 60*time.Second, func(j job.Job) bool { return j.Terminal() })
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.Equal(t, 1, b.env.CountEvents(t, "job.completed.v1", jobID))
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_consumed.v1", jobID))
	require.Equal(t, 2, j.Attempt, "the rescued run is the second attempt")
}

// immediateRetry schedules rescued jobs right away so the test does not wait
// for River's backoff.
type immediateRetry struct{}

func (immediateRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }

func pgxTx(b bundle, fn func(pgx.Tx) error) error {
	tx, err := b.env.DB.Pool.Begin(b.ctx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback(b.ctx)
		return err
	}
	return tx.Commit(b.ctx)
}

func TestReserveRefusesWhenCreditsRunOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 5 { // the Free plan's AI credits
		b.createJob(t)
	}
	_, err := b.env.Jobs.Create(b.ctx, b.user, b.imgURL)
	require.ErrorIs(t, err, subscription.ErrInsufficientCredits)
	var jobs int
	require.NoError(t, b.env.DB.Pool.QueryRow(b.ctx, `SELECT count(*) FROM jobs WHERE user_id = $1`, b.user).Scan(&jobs))
	require.Equal(t, 5, jobs, "no job without a credit")
	var riverJobs int
	require.NoError(t, b.env.DB.Pool.QueryRow(b.ctx, `SELECT count(*) FROM river_job WHERE kind = 'reconstruct'`).Scan(&riverJobs))
	require.Equal(t, 5, riverJobs, "no River job without its event")
}

// TestIdlePickupLatency runs jobs inserted while the worker is idle (River
// is woken by LISTEN/NOTIFY on insert, not by polling) and logs insert →
// JobStarted. The target (median ≤ 100 ms) is BenchmarkIdlePickupLatency's to
// report: a timed assertion here failed whenever the machine was busy.
func TestIdlePickupLatency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// A first job warms the client (leadership, connections). Queued before
	// the worker starts (see TestWorkerKilledMidJobStillCompletesOnceWithOneCredit).
	first := b.createJob(t)
	b.env.StartWorker(t, reconstruct.NewBuiltin())
	b.env.WaitFor(t, b.user, first, 30*time.Second, func(j job.Job) bool { return j.Terminal() })
	lat := pickupLatencies(t, b, 4)
	t.Logf("idle pickup latency insert→JobStarted: median %s, max %s (n=%d)", lat[len(lat)/2], lat[len(lat)-1], len(lat))
	require.Len(t, lat, 4, "every job inserted while idle was picked up")
}

func pickupLatencies(t testing.TB, b bundle, n int) []time.Duration {
	var out []time.Duration
	for range n {
		time.Sleep(300 * time.Millisecond) // let the worker go idle
		j, err := b.env.Jobs.Create(b.ctx, b.user, b.imgURL)
		require.NoError(t, err)
		done := b.env.WaitFor(t, b.user, j.ID, 30*time.Second, func(j job.Job) bool { return j.Terminal() })
		require.NotNil(t, done.StartedAt)
		out = append(out, done.StartedAt.Sub(done.QueuedAt))
	}
	sort.Slice(out, func(i, k int) bool { return out[i] < out[k] })
	return out
}

// BenchmarkIdlePickupLatency reports insert → JobStarted latency in ms.
func BenchmarkIdlePickupLatency(b *testing.B) {
	env := jobtest.New(b, "http://photo3d.test")
	bb := bundle{env: env, ctx: context.Background()}
	bb.user = env.User(b)
	_, err := env.DB.Pool.Exec(bb.ctx, `UPDATE subscriptions SET ai_credits_purchased = 1000000 WHERE user_id = $1`, bb.user)
	require.NoError(b, err)
	bb.imgURL = env.UploadPhoto(b, bb.user, jobtest.PNG(b, 128, 128))
	env.StartWorker(b, reconstruct.NewBuiltin())
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		lat := pickupLatencies(b, bb, 1)
		total += lat[0]
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "pickup-ms/op")
}

// counting records whether the pipeline ran at all.
type counting struct{ calls atomic.Int32 }

func (c *counting) Name() string    { return "counting" }
func (c *counting) Version() string { return "0" }
func (c *counting) Reconstruct(ctx context.Context, photo []byte, o reconstruct.Options, p reconstruct.ProgressFunc) (*reconstruct.Result, error) {
	c.calls.Add(1)
	return reconstruct.NewBuiltin().Reconstruct(ctx, photo, o, p)
}

// A worker killed mid-job (kill -9, OOM) runs none of our code: River's
// rescuer re-queues the job with the attempt spent. Past MaxAttempts the job
// must end as failed with its credit back, not stay "processing" forever
// (River itself would discard it silently once its own attempts ran out).
func TestWorkerFailsAJobWhoseAttemptsDiedWithTheirWorkers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jobID := b.createJob(t)
	var kind, queue string
	var maxAttempts int
	require.NoError(t, b.env.DB.Pool.QueryRow(b.ctx, `SELECT kind, queue, max_attempts FROM river_job WHERE args->>'jobId' = $1`, jobID).
		Scan(&kind, &queue, &maxAttempts))
	require.Equal(t, job.QueueReconstruct, queue)
	require.Greater(t, maxAttempts, job.MaxAttempts, "River keeps attempts in reserve for rescues")

	rec := &counting{}
	rescued := &river.Job[job.ReconstructArgs]{JobRow: &rivertype.JobRow{ID: 1, Kind: kind, Queue: queue,
		Attempt: job.MaxAttempts + 1, MaxAttempts: maxAttempts}, Args: job.ReconstructArgs{JobID: jobID}}
	require.NoError(t, b.env.Worker(rec).Work(b.ctx, rescued))

	require.Zero(t, rec.calls.Load(), "no fourth build")
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Equal(t, job.BuildFailedMessage, j.Error)
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_released.v1", jobID))
	used, reserved := b.credits(t)
	require.Zero(t, used)
	require.Zero(t, reserved)
}

// A photo that cuts the product off at its right edge is built, charged one
// credit like any other, and the builder's warning is kept with the job (the
// completion event and the read model), so the merchant sees why the model
// stops at the frame.
func TestWorkerKeepsTheWarningOfAPhotoThatCutsTheProductOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.imgURL = b.env.UploadPhoto(t, b.user, jobtest.OffFrame(t, 320, 320))
	jobID := b.createJob(t)

	res, err := b.work(t, reconstruct.NewBuiltin(), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	want := []string{"The product runs off the right edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."}
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusCompleted, j.Status)
	require.Equal(t, want, j.Warnings)
	envs, _, err := b.env.Store.Load(b.ctx, b.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: jobID})
	require.NoError(t, err)
	done, ok := envs[len(envs)-1].Data.(events.JobCompleted)
	require.True(t, ok)
	require.Equal(t, want, done.Warnings)
	used, reserved := b.credits(t)
	require.EqualValues(t, 1, used)
	require.Zero(t, reserved)
}

// A photo in which no single product can be told from its background fails
// at once with the sentence (no retry, no pillow model) and the
// held credit is released, through the real builtin, job service and River.
func TestWorkerFailsAPhotoWithoutASeparableProductAndReleasesTheCredit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.imgURL = b.env.UploadPhoto(t, b.user, jobtest.CloseUp(t))
	jobID := b.createJob(t)
	_, reserved := b.credits(t)
	require.EqualValues(t, 1, reserved)

	b.requireSeparationFailure(t, reconstruct.NewBuiltin(), jobID)
}

// requireSeparationFailure works the job with rec and checks the honest
// failure: failed with the sentence, not retried, no model, the credit back.
func (b bundle) requireSeparationFailure(t *testing.T, rec reconstruct.Reconstructor, jobID string) {
	t.Helper()
	res, err := b.work(t, rec, jobID, &river.InsertOpts{MaxAttempts: 3})
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCancelled, res.EventKind, "retrying cannot fix the photo")
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Equal(t, "We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view.", j.Error)
	require.Empty(t, j.ModelKey, "no model is stored")
	used, reserved := b.credits(t)
	require.Zero(t, used)
	require.Zero(t, reserved)
	require.Equal(t, 1, b.env.CountEvents(t, "subscription.credits_released.v1", jobID))
	require.Zero(t, b.env.CountEvents(t, "job.completed.v1", jobID))
}

// The remote (GPU) reconstructor is not vetoed by the built-in segmenter: the
// inference server removes the background itself, so the close-up the builtin
// refuses is sent to it and the job completes with one credit.
func TestWorkerSendsAnInseparablePhotoToTheRemoteReconstructor(t *testing.T) {
	t.Parallel()
	model, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), jobtest.PNG(t, 320, 320), reconstruct.Options{}, nil)
	require.NoError(t, err)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		_, _ = w.Write(model.GLB)
	}))
	t.Cleanup(srv.Close)
	b := setup(t)
	b.imgURL = b.env.UploadPhoto(t, b.user, jobtest.CloseUp(t))
	jobID := b.createJob(t)

	res, err := b.work(t, reconstruct.NewRemote(reconstruct.RemoteConfig{URL: srv.URL, Retries: -1, Backoff: time.Millisecond}), jobID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.EqualValues(t, 1, calls.Load(), "the GPU server is asked")
	j, err := b.env.Jobs.Get(b.ctx, b.user, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusCompleted, j.Status)
	require.NotEmpty(t, j.ModelKey)
	used, reserved := b.credits(t)
	require.EqualValues(t, 1, used)
	require.Zero(t, reserved)
}
