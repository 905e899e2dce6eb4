// Package jobtest builds the photo → 3D stack on a throwaway database for
// tests and benchmarks: event store with the inline projections, a signed
// file store in a temporary directory, the upload, subscription and job
// services, an insert-only River client, and on demand a started River
// client running the real ReconstructWorker. Tests of internal/job and
// internal/httpapi share it so they exercise exactly what cmd/api and
// cmd/worker wire.
package jobtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/eventstore/committest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/subscription"
	"github.com/photo3d/photo3d/internal/upload"
)

// Env is one isolated stack.
type Env struct {
	DB      *dbtest.DB
	Store   *eventstore.Store
	Blobs   *blobstore.Store
	BaseURL string
	Uploads *upload.Service
	Subs    *subscription.Service
	Jobs    *job.Service
	River   *river.Client[pgx.Tx] // insert-only, like the api's
	Logger  *slog.Logger
}

// New builds an Env whose public and signed URLs start with baseURL.
func New(t testing.TB, baseURL string) *Env {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	blobs, err := blobstore.OpenFile(t.TempDir(), baseURL+"/blobs", []byte(hex.EncodeToString(secret)))
	if err != nil {
		t.Fatalf("open blob store: %v", err)
	}
	return NewWithBlobs(t, baseURL, blobs)
}

// NewWithBlobs is New over a given blob store (an S3 bucket in the S3 test);
// the store is closed when the test ends.
func NewWithBlobs(t testing.TB, baseURL string, blobs *blobstore.Store) *Env {
	t.Helper()
	db := dbtest.New(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(upload.Projection{}, job.Projection{}, catalog.Projection{}, committest.Projection))
	t.Cleanup(func() { _ = blobs.Close() })
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{Logger: logger})
	if err != nil {
		t.Fatalf("river client: %v", err)
	}
	subs := subscription.NewService(store, subscription.TestMode{})
	uploads := upload.NewService(db.Pool, store, blobs, baseURL)
	return &Env{DB: db, Store: store, Blobs: blobs, BaseURL: baseURL, Uploads: uploads, Subs: subs,
		Jobs: job.NewService(db.Pool, dispatch.New(store, rc), uploads, blobs, subs), River: rc, Logger: logger}
}

// User makes a new verified account (dbtest.VerifiedUser) with a Free-plan
// subscription (5 AI credits) and returns its id.
func (e *Env) User(t testing.TB) string {
	t.Helper()
	id := uuid.NewString()
	e.DB.VerifiedUser(t, id)
	err := pgdb.WithTx(context.Background(), e.DB.Pool, func(tx pgx.Tx) error {
		return e.Subs.Open(context.Background(), tx, id)
	})
	if err != nil {
		t.Fatalf("open subscription: %v", err)
	}
	return id
}

// Worker builds the real ReconstructWorker over this Env.
func (e *Env) Worker(rec reconstruct.Reconstructor) *job.ReconstructWorker {
	return e.workerWithin(rec, time.Minute)
}

func (e *Env) workerWithin(rec reconstruct.Reconstructor, timeout time.Duration) *job.ReconstructWorker {
	return job.NewReconstructWorker(job.WorkerConfig{DB: e.DB.Pool, Events: e.Store, Blobs: e.Blobs,
		Reconstructor: rec, Credits: e.Subs, Options: job.WorkerOptions(0), Timeout: timeout, Logger: e.Logger})
}

// StartWorker starts a River client serving the reconstruct queue with the
// worker, configured like cmd/worker (LISTEN/NOTIFY, 50 ms fetch cooldown),
// and stops it when the test ends. One attempt may take a minute.
func (e *Env) StartWorker(t testing.TB, rec reconstruct.Reconstructor) *river.Client[pgx.Tx] {
	t.Helper()
	return e.StartWorkerWithin(t, rec, time.Minute)
}

// StartWorkerWithin is StartWorker whose attempts may take timeout each (a
// spin set's turntable search takes tens of CPU seconds even at a test's
// photo size, more under the race detector on a busy machine).
func (e *Env) StartWorkerWithin(t testing.TB, rec reconstruct.Reconstructor, timeout time.Duration) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, e.workerWithin(rec, timeout))
	rc, err := river.NewClient(riverpgxv5.New(e.DB.Pool), &river.Config{
		Logger:               e.Logger,
		Queues:               map[string]river.QueueConfig{job.QueueReconstruct: {MaxWorkers: 2}},
		Workers:              workers,
		JobTimeout:           timeout,
		RescueStuckJobsAfter: 2 * timeout,
		FetchCooldown:        50 * time.Millisecond,
		TestOnly:             true,
	})
	if err != nil {
		t.Fatalf("river worker client: %v", err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatalf("start river: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx)
	})
	return rc
}

// UploadPhoto stores data as a completed upload of userID through the
// multipart path's service call and returns the upload's image URL.
func (e *Env) UploadPhoto(t testing.TB, userID string, data []byte) string {
	t.Helper()
	up, err := e.Uploads.UploadContent(context.Background(), userID, "vase.png", bytesReader(data))
	if err != nil {
		t.Fatalf("upload photo: %v", err)
	}
	return e.Uploads.PublicURL(up.ID)
}

// WaitFor polls the job until cond holds or timeout passes.
func (e *Env) WaitFor(t testing.TB, userID, jobID string, timeout time.Duration, cond func(job.Job) bool) job.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		j, err := e.Jobs.Get(context.Background(), userID, jobID)
		if err != nil {
			t.Fatalf("get job: %v", err)
		}
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s (%d%%, %q) after %s", jobID, j.Status, j.Progress, j.Error, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// EventTypes lists the types of the events in a stream, in order.
func (e *Env) EventTypes(t testing.TB, stream events.Stream) []string {
	t.Helper()
	envs, _, err := e.Store.Load(context.Background(), e.DB.Pool, stream)
	if err != nil {
		t.Fatalf("load %s: %v", stream, err)
	}
	out := make([]string, len(envs))
	for i, env := range envs {
		out[i] = env.Type
	}
	return out
}

// CountEvents counts events of one type concerning jobID in any stream.
func (e *Env) CountEvents(t testing.TB, eventType, jobID string) int {
	t.Helper()
	var n int
	err := e.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM events WHERE type = $1 AND data->>'jobId' = $2`, eventType, jobID).Scan(&n)
	if err != nil {
		t.Fatalf("count events: %v", err)
	}
	return n
}

// Finish ends a job the way the worker does, without reconstructing: it
// appends job.completed.v1 (fake model and thumbnail keys, one part) or,
// when failReason is set, job.failed.v1, with the inline projections in the
// same transaction. Catalogue tests use it to build products of every status.
// warnings are the builder's, recorded with a completed build.
func (e *Env) Finish(t testing.TB, jobID, failReason string, warnings ...string) {
	t.Helper()
	var ev events.Event = events.JobCompleted{JobID: jobID, AssetID: jobID, ModelKey: "models/" + jobID + "/model.glb",
		ThumbnailKey: "models/" + jobID + "/thumbnail.png", Parts: []events.JobPart{{ID: "p1", Name: "Body"}},
		At: time.Now().UTC(), Warnings: warnings}
	if failReason != "" {
		ev = events.JobFailed{JobID: jobID, Reason: failReason, At: time.Now().UTC()}
	}
	err := pgdb.WithTx(context.Background(), e.DB.Pool, func(tx pgx.Tx) error {
		_, err := e.Store.Append(context.Background(), tx, events.Stream{Type: events.StreamJob, ID: jobID}, eventstore.AnyVersion, ev)
		return err
	})
	if err != nil {
		t.Fatalf("finish job %s: %v", jobID, err)
	}
}

// Blueprint starts a real build from a real upload of userID (one credit
// held) and returns its id; end is "ready", "error" or "" (still processing).
func (e *Env) Blueprint(t testing.TB, userID, end string) string {
	t.Helper()
	j, err := e.Jobs.Create(context.Background(), userID, e.UploadPhoto(t, userID, PNG(t, 96, 96)))
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	switch end {
	case "ready":
		e.Finish(t, j.ID, "")
	case "error":
		e.Finish(t, j.ID, job.BuildFailedMessage)
	}
	return j.ID
}
