package job

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/account"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/upload"
)

// ReconstructArgs is the River job that builds one job's model. It carries
// only the id: everything else is read from the jobs table when it runs, so
// a job inserted long ago still sees current state (a deleted blueprint).
type ReconstructArgs struct {
	JobID string `json:"jobId"`
	// Spin marks a spin-set build, which may run SpinTimeoutFactor times
	// longer than other builds (Timeout).
	Spin bool `json:"spin,omitempty"`
}

// Kind implements river.JobArgs; the string is stored in river_job and must
// not change.
func (ReconstructArgs) Kind() string { return "reconstruct" }

// InsertOpts implements river.JobArgsWithInsertOpts so every insert path
// (API, tests, tools) lands on the reconstruct queue with 3 attempts.
func (ReconstructArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueReconstruct, MaxAttempts: RiverMaxAttempts}
}

// DefaultProgressInterval throttles progress events within one step: the
// page polls every 2 s, so several writes a second are plenty.
const DefaultProgressInterval = 250 * time.Millisecond

// WorkerConfig is what a ReconstructWorker needs.
type WorkerConfig struct {
	DB            *pgxpool.Pool
	Events        *eventstore.Store // with this package's Projection registered
	Blobs         *blobstore.Store
	Reconstructor reconstruct.Reconstructor
	Credits       Credits
	Options       reconstruct.Options // HeightMetres from MODEL_HEIGHT_METRES
	// Timeout is the time limit of one attempt (RECONSTRUCT_TIMEOUT); zero
	// leaves River's client-wide JobTimeout in force.
	Timeout time.Duration
	// ProgressInterval throttles progress events (DefaultProgressInterval when zero).
	ProgressInterval time.Duration
	// SpinSlots is how many spin-set builds this worker runs at once
	// (DefaultSpinSlots when zero); see spinGate.
	SpinSlots int
	Logger    *slog.Logger
}

// WorkerOptions are the reconstruction options of every job (cmd/worker and
// the tests' stack use the same). StrictSubject is on: a job that cannot
// separate one product fails with a message and releases the credit, rather
// than charging for the whole photo printed on a pillow.
func WorkerOptions(heightMetres float64) reconstruct.Options {
	return reconstruct.Options{HeightMetres: heightMetres, StrictSubject: true}
}

// ReconstructWorker runs the photo → 3D pipeline for one job. It is safe to
// run twice for the same job, concurrently or after a crash: see the package
// documentation for how completion stays exactly-once.
type ReconstructWorker struct {
	river.WorkerDefaults[ReconstructArgs]
	cfg  WorkerConfig
	name string
	spin *spinGate
}

// NewReconstructWorker builds the worker.
func NewReconstructWorker(cfg WorkerConfig) *ReconstructWorker {
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.SpinSlots <= 0 {
		cfg.SpinSlots = DefaultSpinSlots
	}
	host, _ := os.Hostname()
	return &ReconstructWorker{cfg: cfg, name: fmt.Sprintf("%s/%d", host, os.Getpid()), spin: newSpinGate(cfg.SpinSlots)}
}

// Timeout implements river.Worker: one attempt may take RECONSTRUCT_TIMEOUT.
func (w *ReconstructWorker) Timeout(rj *river.Job[ReconstructArgs]) time.Duration {
	if rj != nil && rj.Args.Spin && w.cfg.Timeout > 0 {
		return SpinTimeout(w.cfg.Timeout)
	}
	return w.cfg.Timeout
}

// Work implements river.Worker.
func (w *ReconstructWorker) Work(ctx context.Context, rj *river.Job[ReconstructArgs]) error {
	log := w.cfg.Logger.With("job_id", rj.Args.JobID, "river_job_id", rj.ID, "attempt", rj.Attempt)
	ctx = eventstore.WithMetadata(ctx, eventstore.Metadata{Actor: "worker", CorrelationID: rj.Args.JobID,
		CausationID: fmt.Sprintf("river-%d", rj.ID)})
	j, err := lookupAny(ctx, w.cfg.DB, rj.Args.JobID)
	if errors.Is(err, ErrNotFound) {
		// The job event and the River job commit together, so this cannot
		// happen short of manual tampering; retrying will not help.
		return river.JobCancel(fmt.Errorf("job %s has no record", rj.Args.JobID))
	}
	if err != nil {
		return err
	}
	if j.Terminal() {
		log.Info("job already finished; nothing to do", "status", j.Status)
		return nil
	}
	if j.DeletedAt != nil {
		return w.fail(ctx, rj, j, "This blueprint was deleted before it was built.", "deleted before processing", nil)
	}
	if rj.Attempt > MaxAttempts {
		// Earlier attempts died with their worker (rescued by River): give the
		// merchant an answer and the credit back instead of trying forever.
		return w.fail(ctx, rj, j, BuildFailedMessage, fmt.Sprintf("attempt %d: earlier attempts were abandoned by their workers", rj.Attempt), nil)
	}
	if j.Spin != nil {
		// A spin set holds up to 72 photos in memory: at most SpinSlots of
		// them build at once in this process. Busy: the job waits its turn
		// (still queued, no attempt counted) and the slot serves other builds.
		release, ok := w.spin.tryAcquire()
		if !ok {
			log.Info("spin-set slots busy; snoozing", "slots", w.cfg.SpinSlots)
			return river.JobSnooze(SpinBusySnooze)
		}
		defer release()
	}
	if err := w.append(ctx, j.ID, events.JobStarted{JobID: j.ID, Attempt: rj.Attempt, Worker: w.name, At: time.Now().UTC()}); err != nil {
		return w.retryOrFail(ctx, rj, j, err)
	}

	if j.Spin != nil && j.Spin.Videos > 0 {
		return w.workVideos(ctx, rj, j, log)
	}
	photo, err := w.cfg.Blobs.Read(ctx, j.ImageKey, imagecheck.MaxUploadBytes)
	if err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			return w.refuse(ctx, rj, j, "We could not find the uploaded photo. Please upload it again. "+BuildRefusedMessage, err.Error(), err)
		}
		return w.retryOrFail(ctx, rj, j, err)
	}
	views := []reconstruct.View{{Image: photo, Azimuth: math.NaN()}}
	for _, v := range j.MoreViews {
		data, err := w.cfg.Blobs.Read(ctx, v.ImageKey, imagecheck.MaxUploadBytes)
		if err != nil {
			if errors.Is(err, blobstore.ErrNotFound) {
				return w.refuse(ctx, rj, j, "We could not find one of the uploaded photos. Please upload it again. "+BuildRefusedMessage, err.Error(), err)
			}
			return w.retryOrFail(ctx, rj, j, err)
		}
		az := math.NaN()
		if v.Azimuth != nil {
			az = *v.Azimuth
		}
		views = append(views, reconstruct.View{Image: data, Azimuth: az})
	}
	return w.build(ctx, rj, j, views, w.progress(ctx, j.ID, log), nil, log)
}

// build makes the model from the job's photos (views, the first photo
// first), stores it and completes the job; videos are the reports of the
// turntable videos the photos were cut from (nil for a build of photos).
func (w *ReconstructWorker) build(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, views []reconstruct.View,
	progress *progressWriter, videos []spinvideo.Report, log *slog.Logger) error {
	photo := views[0].Image
	var err error
	var res *reconstruct.Result
	var spinReport *reconstruct.SpinReport
	rec := w.cfg.Reconstructor // the one that builds this job, as the model records it
	if j.Spin != nil {
		rec, res, spinReport, err = w.reconstructSpin(ctx, j, views, progress.report)
	} else if mv, ok := w.cfg.Reconstructor.(reconstruct.MultiViewReconstructor); ok && len(views) > 1 {
		res, err = mv.ReconstructViews(ctx, views, w.cfg.Options, progress.report)
	} else {
		// A reconstructor that takes one photo (the remote GPU server) builds
		// from the front photo; the model records that one view was used.
		res, err = w.cfg.Reconstructor.Reconstruct(ctx, photo, w.cfg.Options, progress.report)
	}
	progress.wait()
	if err != nil {
		if errors.Is(err, reconstruct.ErrSubjectNotSeparated) {
			// The photo shows no single product (a close-up, a busy backdrop):
			// a retry would fail the same way and a model would be the whole
			// photo on a pillow, so the merchant reads the reconstructor's
			// sentence as it is and gets the credit back.
			reason := reconstruct.ErrSubjectNotSeparated.Error()
			if j.Spin != nil {
				reason = SpinSubjectMessage
			}
			return w.refuse(ctx, rj, j, reason, err.Error(), err)
		}
		if refusal := (*reconstruct.SpinRefusal)(nil); errors.As(err, &refusal) {
			// Photos the merchant must shoot again (the product runs off
			// their edge, or they show another product): a retry would be
			// refused the same way.
			return w.refuse(ctx, rj, j, SpinRefusedMessage(j, refusal), err.Error(), err)
		}
		if errors.Is(err, reconstruct.ErrSpinSet) {
			// The layout itself (checked by the api with the same limits, so
			// only a job queued under other limits gets here): a retry cannot help.
			return w.refuse(ctx, rj, j, SpinLayoutMessage, err.Error(), err)
		}
		if reason, ok := inputProblem(err); ok {
			if n := photoNumber(err); j.Spin != nil && n > 0 {
				reason = fmt.Sprintf("%s: %s", spinPhotoName(j, n), reason) // which of up to 72
			}
			return w.refuse(ctx, rj, j, reason, err.Error(), err)
		}
		return w.retryOrFail(ctx, rj, j, err)
	}
	if err := w.store(ctx, j, res); err != nil {
		if errors.Is(err, errAccountErasing) {
			// Its owner deleted the account while it was building: nothing
			// was written, and nobody will use the model.
			return w.fail(ctx, rj, j, AccountErasedWhileBuildingMessage, "account erased while building", nil)
		}
		return w.retryOrFail(ctx, rj, j, err)
	}
	inputSHA := fmt.Sprintf("%x", sha256.Sum256(photo))
	if res.Stats.Views > 1 {
		inputSHA = res.Stats.InputSHA256 // of all the photos, in order
	}
	res.Stats.Views = max(1, res.Stats.Views)
	var spin *spinStats
	if spinReport != nil {
		spin = &spinStats{SpinReport: *spinReport, Videos: videos}
	}
	if err := w.complete(ctx, j, rec, res, spin, inputSHA); err != nil {
		return w.retryOrFail(ctx, rj, j, err)
	}
	log.Info("job completed", "triangles", res.Stats.Triangles, "bytes", len(res.GLB), "total_ms", res.Stats.TotalMillis)
	return nil
}

// errAccountErasing: the owner asked for the account to be deleted before
// the build stored its files.
var errAccountErasing = errors.New("the account is being erased")

// store writes every produced file under keys derived from the job id,
// holding the account's file lock (account.LockFileWrites) so an erasure
// running meanwhile either deletes these files after or is seen here and
// nothing is written (errAccountErasing): the files of a build finishing
// during an erasure would otherwise outlive it.
func (w *ReconstructWorker) store(ctx context.Context, j Job, res *reconstruct.Result) error {
	return pgdb.WithTx(ctx, w.cfg.DB, func(tx pgx.Tx) error {
		erasing, err := account.LockFileWrites(ctx, tx, j.UserID)
		if err != nil {
			return err
		}
		if erasing {
			return errAccountErasing
		}
		return w.writeFiles(ctx, j, res)
	})
}

func (w *ReconstructWorker) writeFiles(ctx context.Context, j Job, res *reconstruct.Result) error {
	files := []struct {
		key, contentType string
		data             []byte
	}{
		{modelKey(j.UserID, j.ID), ModelContentType, res.GLB},
		{thumbnailKey(j.UserID, j.ID), "image/png", res.Thumbnail},
		{maskKey(j.UserID, j.ID), "image/png", res.Mask},
		{partsMapKey(j.UserID, j.ID), "image/png", res.PartsMap},
	}
	for _, f := range files {
		if len(f.data) == 0 {
			continue
		}
		if err := w.cfg.Blobs.Write(ctx, f.key, f.contentType, f.data); err != nil {
			return err
		}
	}
	return nil
}

// complete records the result exactly once: under the job row lock, a job
// already completed (an earlier run that died after committing) is left
// alone, so neither JobCompleted nor the credit consumption happen twice.
func (w *ReconstructWorker) complete(ctx context.Context, j Job, rec reconstruct.Reconstructor, res *reconstruct.Result, spin *spinStats, photoSHA256 string) error {
	// The files exist; losing them to a shutdown arriving now would waste the
	// whole build, so the short final transaction outlives ctx briefly.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	stats, err := statsMap(res.Stats)
	if err != nil {
		return err
	}
	if spin != nil {
		// The turntable fit, as `worker convert -rings` prints it: how well the
		// photos agree (coherence), the largest slip from even spacing and
		// the ring elevations found.
		if stats["spin"], err = jsonValue(spin); err != nil {
			return err
		}
	}
	parts := make([]events.JobPart, 0, len(res.Parts))
	for _, p := range res.Parts {
		parts = append(parts, events.JobPart{ID: p.ID, Name: p.Name, Color: p.Color, Share: p.Share})
	}
	o := w.cfg.Options.WithDefaults()
	opts := &events.JobOptions{HeightMetres: o.HeightMetres, MaxTriangles: o.MaxTriangles, WorkingSize: o.WorkingSize,
		AtlasSize: o.AtlasSize, StrictSubject: o.StrictSubject}
	key := func(k string, data []byte) string {
		if len(data) == 0 {
			return ""
		}
		return k
	}
	return pgdb.WithTx(ctx, w.cfg.DB, func(tx pgx.Tx) error {
		status, userID, deleted, err := lockStatus(ctx, tx, j.ID)
		if err != nil {
			return err
		}
		if status == StatusCompleted || status == StatusFailed {
			return nil
		}
		if deleted {
			// The merchant deleted the blueprint while it was building: nobody
			// will use the model, so it ends as failed and costs nothing.
			if _, err := w.cfg.Events.Append(ctx, tx, jobStream(j.ID), eventstore.AnyVersion, events.JobFailed{
				JobID: j.ID, Reason: DeletedWhileBuildingMessage, Detail: "deleted while building", At: time.Now().UTC(),
			}); err != nil {
				return err
			}
			return w.cfg.Credits.ReleaseCredits(ctx, tx, userID, j.ID, "deleted while building")
		}
		_, err = w.cfg.Events.Append(ctx, tx, jobStream(j.ID), eventstore.AnyVersion, events.JobCompleted{
			JobID: j.ID, AssetID: uuid.NewString(),
			ModelKey: modelKey(userID, j.ID), ThumbnailKey: key(thumbnailKey(userID, j.ID), res.Thumbnail),
			MaskKey: key(maskKey(userID, j.ID), res.Mask), PartsMapKey: key(partsMapKey(userID, j.ID), res.PartsMap),
			Bytes: int64(len(res.GLB)), Parts: parts, Stats: stats,
			Reconstructor: rec.Name(), Version: rec.Version(), At: time.Now().UTC(),
			Options: opts, InputSHA256: photoSHA256, Fidelity: res.Stats.Fidelity, Views: res.Stats.Views,
			Warnings: res.Warnings,
		})
		if err != nil {
			return err
		}
		if err := w.cfg.Credits.ConsumeCredits(ctx, tx, userID, j.ID); err != nil {
			return fmt.Errorf("consume credit for job %s: %w", j.ID, err)
		}
		return nil
	})
}

// retryOrFail lets River retry a transient failure, records the failure for
// good on the last attempt, and never burns an attempt on a shutdown.
func (w *ReconstructWorker) retryOrFail(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, cause error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		// The worker is stopping (StopAndCancel): hand the job back at once
		// without counting the attempt; the next worker starts it again.
		w.cfg.Logger.Warn("job interrupted by shutdown; snoozing", "job_id", j.ID, "err", cause)
		return river.JobSnooze(0)
	}
	if rj.Attempt < min(rj.MaxAttempts, MaxAttempts) {
		return fmt.Errorf("reconstruct job %s (attempt %d of %d): %w", j.ID, rj.Attempt, min(rj.MaxAttempts, MaxAttempts), cause)
	}
	reason := BuildFailedMessage
	if errors.Is(cause, context.DeadlineExceeded) {
		reason = "The build took too long. " + BuildFailedMessage
		if j.Spin != nil {
			reason = spinTooLongMessage(j.Views())
		}
	}
	return w.fail(ctx, rj, j, reason, cause.Error(), cause)
}

// fail records JobFailed and releases the credit in one transaction. When
// cause is nil (nothing went wrong technically) River completes the job;
// otherwise River records the cause and stops retrying. The merchant may
// retry the build (POST /api/jobs/{id}/retry).
func (w *ReconstructWorker) fail(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, reason, detail string, cause error) error {
	return w.recordFailure(ctx, rj, j, reason, detail, false, cause)
}

// refuse fails the build for its photos, as fail does, and marks it refused
// (events.JobFailed.Refused): the same photos would be refused the same way,
// so no retry is offered; the merchant reads why and brings other photos.
func (w *ReconstructWorker) refuse(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, reason, detail string, cause error) error {
	return w.recordFailure(ctx, rj, j, reason, detail, true, cause)
}

func (w *ReconstructWorker) recordFailure(ctx context.Context, rj *river.Job[ReconstructArgs], j Job, reason, detail string, refused bool, cause error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	err := pgdb.WithTx(ctx, w.cfg.DB, func(tx pgx.Tx) error {
		status, userID, _, err := lockStatus(ctx, tx, j.ID)
		if err != nil {
			return err
		}
		if status == StatusCompleted || status == StatusFailed {
			return nil
		}
		if _, err := w.cfg.Events.Append(ctx, tx, jobStream(j.ID), eventstore.AnyVersion, events.JobFailed{
			JobID: j.ID, Reason: reason, Detail: truncate(detail, 500), Attempt: rj.Attempt, Refused: refused, At: time.Now().UTC(),
		}); err != nil {
			return err
		}
		if err := w.cfg.Credits.ReleaseCredits(ctx, tx, userID, j.ID, truncate(reason, 200)); err != nil {
			return fmt.Errorf("release credit for job %s: %w", j.ID, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record failure of job %s: %w", j.ID, err)
	}
	w.cfg.Logger.Warn("job failed", "job_id", j.ID, "attempt", rj.Attempt, "refused", refused, "reason", reason, "detail", detail)
	if cause == nil {
		return nil
	}
	return river.JobCancel(cause)
}

// append writes events to a job stream under the row lock; events for a
// job that already finished are dropped (a slow attempt racing a rescue).
func (w *ReconstructWorker) append(ctx context.Context, jobID string, evs ...events.Event) error {
	return pgdb.WithTx(ctx, w.cfg.DB, func(tx pgx.Tx) error {
		status, _, _, err := lockStatus(ctx, tx, jobID)
		if err != nil {
			return err
		}
		if status == StatusCompleted || status == StatusFailed {
			return nil
		}
		_, err = w.cfg.Events.Append(ctx, tx, jobStream(jobID), eventstore.AnyVersion, evs...)
		return err
	})
}

// progressWriter turns the reconstructor's callbacks into JobProgressed
// events: at every step change, and within a step at most every
// ProgressInterval. Writes happen on their own goroutine so a slow database
// never slows the pipeline: every step change is kept (the processing
// screen shows each step), while within a step only the latest value waits.
type progressWriter struct {
	w        *ReconstructWorker
	ctx      context.Context
	jobID    string
	log      *slog.Logger
	mu       sync.Mutex
	pending  []events.JobProgressed
	lastStep string
	lastPct  int
	lastAt   time.Time
	wake     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func (w *ReconstructWorker) progress(ctx context.Context, jobID string, log *slog.Logger) *progressWriter {
	p := &progressWriter{w: w, ctx: ctx, jobID: jobID, log: log, lastPct: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progressWriter) report(step reconstruct.Step, percent int) {
	p.mu.Lock()
	now := time.Now()
	changed := string(step) != p.lastStep
	due := now.Sub(p.lastAt) >= p.w.cfg.ProgressInterval && percent != p.lastPct
	if !changed && !due {
		p.mu.Unlock()
		return
	}
	p.lastStep, p.lastPct, p.lastAt = string(step), percent, now
	ev := events.JobProgressed{JobID: p.jobID, Step: string(step), Percent: percent}
	if n := len(p.pending); !changed && n > 0 && p.pending[n-1].Step == ev.Step {
		p.pending[n-1] = ev
	} else {
		p.pending = append(p.pending, ev)
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *progressWriter) loop() {
	defer close(p.done)
	for {
		_, open := <-p.wake
		p.mu.Lock()
		evs := make([]events.Event, 0, len(p.pending))
		for _, ev := range p.pending {
			evs = append(evs, ev)
		}
		p.pending = nil
		p.mu.Unlock()
		if len(evs) > 0 && p.ctx.Err() == nil {
			if err := p.w.append(p.ctx, p.jobID, evs...); err != nil && p.ctx.Err() == nil {
				p.log.Warn("record progress", "err", err)
			}
		}
		if !open {
			return
		}
	}
}

// wait flushes the last progress value and stops the writer.
func (p *progressWriter) wait() {
	p.stopOnce.Do(func() { close(p.wake) })
	<-p.done
}

// inputProblem recognises failures caused by the photo itself, which no
// retry can fix, and returns the message the merchant should read.
func inputProblem(err error) (string, bool) {
	if ce := upload.CheckFault(err); ce != err {
		fe, _ := fault.As(ce)
		return fe.Message + " " + BuildRefusedMessage, true
	}
	if fe, ok := fault.As(err); ok && (fe.Kind == fault.Invalid || fe.Kind == fault.UnsupportedMedia) {
		return fe.Message + " " + BuildRefusedMessage, true
	}
	var um interface{ UserMessage() string }
	if errors.As(err, &um) && um.UserMessage() != "" {
		return um.UserMessage() + " " + BuildRefusedMessage, true
	}
	return "", false
}

func statsMap(s reconstruct.Stats) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode stats: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode stats: %w", err)
	}
	return m, nil
}

// jsonValue is v as the generic JSON value a decoded event holds, so the
// completion event's stats are the same in memory as after a replay.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode stats: %w", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode stats: %w", err)
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
