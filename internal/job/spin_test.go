package job_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// The layout checks use the reconstructor's own limits, and say what to
// change; a layout they pass is what the job records.
func TestCheckSpinLayout(t *testing.T) {
	t.Parallel()
	ring := func(n int, el float64) job.SpinRing { return job.SpinRing{Photos: n, Elevation: el} }
	cases := []struct {
		name    string
		rings   []job.SpinRing
		photos  int
		message string
	}{
		{"fewest", []job.SpinRing{ring(reconstruct.MinSpinPhotos, 0)}, reconstruct.MinSpinPhotos, ""},
		{"most", []job.SpinRing{ring(36, -20), ring(36, reconstruct.MaxRingElevDeg)}, reconstruct.MaxSpinPhotos, ""},
		{"smallest rings", []job.SpinRing{ring(reconstruct.MinRingPhotos, 0), ring(reconstruct.MinRingPhotos, -reconstruct.MaxRingElevDeg)}, 2 * reconstruct.MinRingPhotos, ""},
		{"too few", []job.SpinRing{ring(7, 0)}, 7, "A spin set takes 8 to 72 photos; this one has 7."},
		{"too many", []job.SpinRing{ring(73, 0)}, 73, "A spin set takes 8 to 72 photos; this one has 73."},
		{"no rings", nil, 8, "A spin set needs its rings: how many photos each turn of the turntable took, and the camera's elevation for that turn."},
		{"small ring", []job.SpinRing{ring(5, 0), ring(3, 30)}, 8, "Ring 2 has 3 photos: each ring needs at least 4, taken over one full turn of the turntable."},
		{"negative ring", []job.SpinRing{ring(-4, 0), ring(12, 30)}, 8, "Ring 1 has -4 photos: each ring needs at least 4, taken over one full turn of the turntable."},
		{"too high", []job.SpinRing{ring(8, 81)}, 8, "Ring 1: the camera's elevation must be between −80° and 80° (0 is level with the middle of the product); it is 81°."},
		{"not a number", []job.SpinRing{ring(8, math.NaN())}, 8, "Ring 1: the camera's elevation must be between −80° and 80° (0 is level with the middle of the product); it is not a number."},
		{"infinite", []job.SpinRing{ring(8, math.Inf(-1))}, 8, "Ring 1: the camera's elevation must be between −80° and 80° (0 is level with the middle of the product); it is not a number."},
		{"sum", []job.SpinRing{ring(12, 0), ring(12, 30)}, 20, "The rings add up to 24 photos, but 20 photos were sent: give each ring the number of photos taken in it, and send the photos in shooting order, ring after ring."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			layout, err := job.CheckSpinLayout(c.rings, c.photos)
			if c.message == "" {
				require.NoError(t, err)
				require.Equal(t, c.photos, layout.Photos())
				require.Len(t, layout.Rings, len(c.rings))
				for i, r := range c.rings {
					require.Equal(t, events.SpinRingSpec{Photos: r.Photos, ElevationDeg: r.Elevation}, layout.Rings[i])
				}
				return
			}
			fe, ok := fault.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, fault.Invalid, fe.Kind)
			require.Equal(t, job.CodeInvalidSpinSet, fe.Code)
			require.Equal(t, c.message, fe.Message)
		})
	}
}

func spinRiverJob(jobID string) *river.Job[job.ReconstructArgs] {
	return &river.Job[job.ReconstructArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: job.MaxAttempts,
		State: rivertype.JobStateRunning}, Args: job.ReconstructArgs{JobID: jobID}}
}

// A worker builds at most SpinSlots spin sets at once (each may hold 72
// photos in memory). With the slots taken, a spin set is snoozed before it
// starts: no attempt counted, no event, still queued, its credits still held,
// while ordinary builds keep being served. Once a slot is free it runs (here
// it fails at once: its first photo cannot be decoded, and gives its credits
// back), and its slot is free again afterwards.
func TestWorkerSnoozesASpinSetWhileItsSlotsAreTaken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.buySpinCredits(t)
	urls := []string{b.env.UploadPhoto(t, b.user, jobtest.BrokenPNG(t, 320, 240))}
	for range 7 {
		urls = append(urls, b.imgURL)
	}
	spin, err := b.env.Jobs.CreateSpin(b.ctx, b.user, []job.SpinRing{{Photos: 4}, {Photos: 4, Elevation: 30}}, urls)
	require.NoError(t, err)
	require.Equal(t, 8, spin.Views())
	_, reserved := b.credits(t)
	require.EqualValues(t, 8, reserved)

	w := b.env.Worker(reconstruct.NewBuiltin())
	release, taken := w.HoldSpinSlots()
	require.Equal(t, job.DefaultSpinSlots, taken)
	err = w.Work(b.ctx, spinRiverJob(spin.ID))
	var snooze *rivertype.JobSnoozeError
	require.True(t, errors.As(err, &snooze), "snoozed, got %v", err)
	require.Equal(t, job.SpinBusySnooze, snooze.Duration)
	require.Equal(t, []string{"job.queued.v1"}, b.env.EventTypes(t, events.Stream{Type: events.StreamJob, ID: spin.ID}), "not started")
	j, err := b.env.Jobs.Get(b.ctx, b.user, spin.ID)
	require.NoError(t, err)
	require.Equal(t, job.StatusQueued, j.Status)
	_, reserved = b.credits(t)
	require.EqualValues(t, 8, reserved)

	one := b.createJob(t)
	require.NoError(t, w.Work(b.ctx, spinRiverJob(one)), "a one-photo build is not held up")
	j, err = b.env.Jobs.Get(b.ctx, b.user, one)
	require.NoError(t, err)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)

	release()
	err = w.Work(context.Background(), spinRiverJob(spin.ID))
	require.Error(t, err, "cancelled: no retry decodes the photo")
	j, err = b.env.Jobs.Get(b.ctx, b.user, spin.ID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Contains(t, j.Error, job.BuildRefusedMessage)
	require.True(t, j.Refused)
	used, reserved := b.credits(t)
	require.EqualValues(t, 1, used, "the one-photo build")
	require.Zero(t, reserved, "the spin set's eight came back")
	release, taken = w.HoldSpinSlots()
	defer release()
	require.Equal(t, job.DefaultSpinSlots, taken, "the failed build gave its slot back")
}

// slowSpin is a reconstructor with a spin-set path that never finishes in
// time: it waits for its deadline.
type slowSpin struct {
	reconstruct.Reconstructor
	calls *int
}

func (s slowSpin) ReconstructSpin(ctx context.Context, spin reconstruct.SpinSet, _ reconstruct.Options, _ reconstruct.ProgressFunc) (*reconstruct.Result, reconstruct.SpinReport, error) {
	*s.calls++
	if n := len(spin.Rings); n != 2 || len(spin.Rings[0].Images) != 4 || spin.Rings[1].ElevationDeg != 30 {
		return nil, reconstruct.SpinReport{}, errors.New("not the job's layout")
	}
	<-ctx.Done()
	return nil, reconstruct.SpinReport{}, ctx.Err()
}

// A reconstructor that builds spin sets itself is given the job's rings; a
// spin set still out of time on its last attempt fails with advice a
// merchant can follow (fewer photos) and its credits come back.
func TestWorkerSaysWhenASpinSetTakesTooLong(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.buySpinCredits(t)
	spin := b.createSpin(t)
	calls := 0
	w := b.env.Worker(slowSpin{reconstruct.NewBuiltin(), &calls})
	rj := spinRiverJob(spin.ID)
	rj.Attempt = job.MaxAttempts
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second) // room for the start and the reads on a busy machine
	defer cancel()
	require.Error(t, w.Work(ctx, rj))
	require.Equal(t, 1, calls, "the configured reconstructor's own spin path")
	j, err := b.env.Jobs.Get(b.ctx, b.user, spin.ID)
	require.NoError(t, err)
	require.Equal(t, job.StatusFailed, j.Status)
	require.Equal(t, "This spin set of 8 photos took longer to build than this server allows. Build it again from fewer photos: 24, in two rings of 12, is usually enough. No credit was used.", j.Error)
	used, reserved := b.credits(t)
	require.Zero(t, used)
	require.Zero(t, reserved)
}

// A spin set refused by the reconstructor fails at once with a sentence the
// merchant can act on, and its credits come back: photos in which the
// product cannot be told from its background, a photo the product runs out
// of (named, so the merchant knows which to shoot again), and (for a job queued under
// other limits than the api's) a layout no turntable makes. None of them can be
// retried: the same photos would be refused the same way.
func TestWorkerFailsARefusedSpinSetWithAReason(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.buySpinCredits(t)
	// refused builds a one-ring spin set of urls and requires it to fail
	// with want, its credits back.
	refused := func(t *testing.T, urls []string, want string) {
		spin, err := b.env.Jobs.CreateSpin(b.ctx, b.user, []job.SpinRing{{Photos: len(urls), Elevation: 10}}, urls)
		require.NoError(t, err)
		require.Error(t, b.env.Worker(reconstruct.NewBuiltin()).Work(b.ctx, spinRiverJob(spin.ID)))
		j, err := b.env.Jobs.Get(b.ctx, b.user, spin.ID)
		require.NoError(t, err)
		require.Equal(t, job.StatusFailed, j.Status)
		require.Equal(t, want, j.Error)
		require.True(t, j.Refused)
		_, err = b.env.Jobs.Retry(b.ctx, b.user, spin.ID)
		require.ErrorIs(t, err, job.ErrRefusedPhotos)
		_, reserved := b.credits(t)
		require.Zero(t, reserved)
	}
	t.Run("no product to separate", func(t *testing.T) {
		closeUp := b.env.UploadPhoto(t, b.user, jobtest.CloseUp(t))
		urls := make([]string, 8)
		for i := range urls {
			urls[i] = closeUp
		}
		refused(t, urls, job.SpinSubjectMessage)
	})
	t.Run("the product runs off the frame", func(t *testing.T) {
		urls := make([]string, 8)
		for i := range urls {
			urls[i] = b.imgURL
		}
		urls[7] = b.env.UploadPhoto(t, b.user, jobtest.OffFrame(t, 320, 320))
		refused(t, urls, "Photo 8: the product runs off the edge of the frame; step back or zoom out so that the whole product, "+
			"with some space around it, is in every photo. Shoot it again and upload the spin set again. No credit was used.")
	})
	t.Run("a layout the reconstructor refuses", func(t *testing.T) {
		// Queued as the api never would: a ring of three.
		id := uuid.NewString()
		up, err := b.env.Uploads.Resolve(b.ctx, b.user, b.imgURL)
		require.NoError(t, err)
		more := make([]events.JobView, 7)
		for i := range more {
			more[i] = events.JobView{UploadID: up.ID, ImageKey: up.BlobKey}
		}
		require.NoError(t, pgdb.WithTx(b.ctx, b.env.DB.Pool, func(tx pgx.Tx) error {
			_, err := b.env.Store.Append(b.ctx, tx, events.Stream{Type: events.StreamJob, ID: id}, 0, events.JobQueued{
				JobID: id, UserID: b.user, UploadID: up.ID, ImageKey: up.BlobKey, Name: "vase", At: time.Now().UTC(), MoreViews: more,
				Spin: &events.JobSpin{Rings: []events.SpinRingSpec{{Photos: 5}, {Photos: 3, ElevationDeg: 30}}}})
			if err != nil {
				return err
			}
			return b.env.Subs.ReserveCredits(b.ctx, tx, b.user, id, job.CreditsFor(8))
		}))
		require.Error(t, b.env.Worker(reconstruct.NewBuiltin()).Work(b.ctx, spinRiverJob(id)))
		j, err := b.env.Jobs.Get(b.ctx, b.user, id)
		require.NoError(t, err)
		require.Equal(t, job.StatusFailed, j.Status)
		require.Equal(t, job.SpinLayoutMessage, j.Error)
		require.True(t, j.Refused)
		_, reserved := b.credits(t)
		require.Zero(t, reserved)
	})
}

// A spin set may take SpinTimeoutFactor times a build's time limit (72 photos
// took 474 CPU-s against a 5-minute limit): its River job says it is a spin set,
// and the worker gives it the longer limit; every other build keeps its own.
func TestSpinSetGetsTheLongerTimeLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.buySpinCredits(t)
	spin := b.createSpin(t)
	one, err := b.env.Jobs.Create(b.ctx, b.user, b.imgURL)
	require.NoError(t, err)
	args := func(jobID string) job.ReconstructArgs {
		var a job.ReconstructArgs
		require.NoError(t, b.env.DB.Pool.QueryRow(b.ctx, `SELECT args FROM river_job WHERE args->>'jobId' = $1`, jobID).Scan(&a))
		return a
	}
	w := job.NewReconstructWorker(job.WorkerConfig{Timeout: 5 * time.Minute})
	require.Equal(t, 15*time.Minute, w.Timeout(&river.Job[job.ReconstructArgs]{Args: args(spin.ID)}))
	require.Equal(t, 5*time.Minute, w.Timeout(&river.Job[job.ReconstructArgs]{Args: args(one.ID)}))
}

// buySpinCredits tops the Free plan's 5 AI credits up for an 8-photo spin set.
func (b bundle) buySpinCredits(t *testing.T) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(b.ctx, b.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := b.env.Subs.PurchaseAddon(b.ctx, tx, b.user, "credits", 10)
		return err
	}))
}

// createSpin queues a spin set of eight copies of the bed's photo in two rings
// of four.
func (b bundle) createSpin(t *testing.T) job.Job {
	t.Helper()
	urls := make([]string, 8)
	for i := range urls {
		urls[i] = b.imgURL
	}
	spin, err := b.env.Jobs.CreateSpin(b.ctx, b.user, []job.SpinRing{{Photos: 4}, {Photos: 4, Elevation: 30}}, urls)
	require.NoError(t, err)
	return spin
}
