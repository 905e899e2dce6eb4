// Package job turns a merchant's uploaded photo into a 3D model, and keeps
// the result as a "blueprint" the merchant can list, rename and delete.
//
// The api side (Service) decides and records: POST /jobs reserves the
// build's price (CreditsFor: one AI credit per photo), appends JobQueued and
// inserts the River job, at the account's fair-share priority, in ONE
// transaction, so a job exists exactly when its event and its credit
// reservation do. The worker
// side (ReconstructWorker) does the heavy work outside any transaction, stores
// the files under keys derived from the job id, and then, in one short
// transaction, appends JobCompleted, consumes the credit and marks the River
// job completed — after locking the job row and checking it is not already
// completed, so a job that River runs twice (a worker that died after
// committing) still completes once and costs its price once. A build that
// fails for good appends JobFailed and releases the credits: a failed build
// costs nothing (spec §9).
//
// Read models (jobs, assets) are inline projections updated in the same
// transaction as the events, so GET /jobs/{id} polled every 2 s sees progress
// at once.
package job

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
)

// River settings of the reconstruct job.
const (
	// QueueReconstruct is the queue GPU or CPU worker pools serve.
	QueueReconstruct = "reconstruct"
	// MaxAttempts bounds retries: a photo that failed three times will not
	// succeed on the fourth, and the merchant deserves an answer.
	MaxAttempts = 3
	// RiverMaxAttempts is what River is told: MaxAttempts plus headroom for
	// attempts lost to a worker that died (kill -9, OOM, node loss). River's
	// rescuer discards a stuck job whose attempts are spent without running
	// any of our code, which would leave the job "processing" and its credit
	// held forever; with the headroom the next attempt runs, sees it is past
	// MaxAttempts and records the failure (credit released) itself.
	RiverMaxAttempts = MaxAttempts + 5
	// CreditsPerBuild is the price of a one-photo build (spec §9: Generate 3D
	// uses 1 AI credit); a build from several photos costs this per photo
	// (CreditsFor).
	CreditsPerBuild int64 = 1
	// URLExpiry is how long signed model, thumbnail and photo URLs in JSON
	// answers stay valid: long enough for a viewing session, short enough
	// that a leaked URL soon stops working.
	URLExpiry = time.Hour
	// ModelContentType is the registered media type of GLB files.
	ModelContentType = "model/gltf-binary"
)

// Statuses of a job as the API reports them.
const (
	StatusQueued     = "queued"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Blueprint statuses for the UI's cards (processing covers queued).
const (
	BlueprintProcessing = "processing"
	BlueprintReady      = "ready"
	BlueprintFailed     = "failed"
)

// BuildFailedMessage is the spec's build failure text (§8).
const BuildFailedMessage = "The build stopped. Try a different angle or hit retry to run it again."

// BuildRefusedMessage ends the failure of a build whose photos were refused
// (Job.Refused): the spec's build failure text without "hit retry", since a
// retry of the same photos would be refused the same way and is not offered.
const BuildRefusedMessage = "The build stopped. Try a different angle or another photo."

// DeletedWhileBuildingMessage ends a build whose blueprint was deleted
// before it finished; no credit is used for it.
const DeletedWhileBuildingMessage = "This blueprint was deleted while it was building. No credit was used."

// AccountErasedWhileBuildingMessage ends a build whose account was deleted
// before it stored its model; nothing is kept and no credit is used.
const AccountErasedWhileBuildingMessage = "This account was deleted while the build was running. No credit was used."

// User-facing failures of this package.
var (
	ErrNotFound      = fault.NotFoundf("Blueprint not found.")
	ErrAssetNotFound = fault.NotFoundf("Asset not found.")
	ErrNameRequired  = fault.New(fault.Invalid, "name_required", "Please enter a name for this blueprint.")
	ErrNameTooLong   = fault.New(fault.Invalid, "name_too_long", "Blueprint names can be at most 100 characters.")
	ErrBadCursor     = fault.New(fault.Invalid, "invalid_cursor", "The page cursor is not valid. Start again from the first page.")
	ErrBadLimit      = fault.New(fault.Invalid, "invalid_limit", "limit must be a number between 1 and 100.")
	ErrNotReady      = fault.New(fault.Conflict, "not_ready", "This blueprint is still being built.")
	ErrNotFailed     = fault.New(fault.Conflict, "not_failed", "Only a failed build can be retried: this one is still being built or is already done.")
	// ErrRefusedPhotos answers a retry of a build whose photos were refused
	// (Job.Refused): it would be refused the same way, after a full wait.
	ErrRefusedPhotos = fault.New(fault.Conflict, "photos_refused", "A retry would fail the same way: this build's photos were refused (the build says why). Upload other photos and start a new build.")
)

// Credits is the slice of the subscription service a build needs. It is an
// interface so the job package does not import subscription's internals; the
// implementation must append its events on the given transaction, so the
// credit moves exactly when the job event commits.
type Credits interface {
	// ReserveCredits holds amount credits for jobID; a fault PaymentRequired
	// when the balance is too low.
	ReserveCredits(ctx context.Context, tx pgx.Tx, userID, jobID string, amount int64) error
	// ConsumeCredits turns the job's reservation into usage; idempotent per job.
	ConsumeCredits(ctx context.Context, tx pgx.Tx, userID, jobID string) error
	// ReleaseCredits returns the job's reservation; idempotent per job.
	ReleaseCredits(ctx context.Context, tx pgx.Tx, userID, jobID, reason string) error
}

// Job is one row of the jobs read model, blob keys included. It is what the
// share-link and catalogue code read (through Service.Blueprint or Lookup)
// to publish a model.
type Job struct {
	ID            string
	UserID        string
	UploadID      string
	Name          string
	Status        string
	Progress      int
	Step          string
	Attempt       int
	ImageKey      string
	AssetID       string
	ModelKey      string
	ThumbnailKey  string
	MaskKey       string
	PartsMapKey   string
	ModelBytes    int64
	Parts         []events.JobPart
	Stats         json.RawMessage
	Reconstructor string
	Version       string
	Error         string
	// Refused: the build failed because the builder refused its photos
	// (events.JobFailed.Refused); a retry would fail the same way.
	Refused    bool
	QueuedAt   time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
	DeletedAt  *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// MoreViews are the further photos of a multi-photo build (empty: one photo).
	MoreViews []events.JobView
	// Spin is the ring layout of a build from a turntable spin set (nil for
	// every other build): its photos, the first then MoreViews, ring after ring.
	Spin *events.JobSpin
	// Warnings are the builder's sentences about the model it built
	// (events.JobCompleted.Warnings), shown beside it; empty when all is well.
	Warnings []string
}

// Retryable reports whether the build failed and may be started again from
// the same photos (Service.Retry): not when its photos were refused.
func (j Job) Retryable() bool { return j.Status == StatusFailed && !j.Refused }

// FromVideos reports whether the build's uploads are turntable videos, which
// no <img> can show: their image and, until the model exists, thumbnail
// URLs are left empty in answers.
func (j Job) FromVideos() bool { return j.Spin != nil && j.Spin.Videos > 0 }

// Views is how many photos the build uses.
func (j Job) Views() int {
	if j.Spin != nil && j.Spin.Videos > 0 {
		return j.Spin.Photos() // a video's ring of photos
	}
	return 1 + len(j.MoreViews)
}

// Terminal reports whether the job will never change status again.
// Fidelity is the model's fidelity score (0–100) from its stats, nil when the
// build has none (not finished, an older build, or a reconstructor without one).
// It lives in the stats JSON the completion event records, so no column is needed.
func (j Job) Fidelity() *int {
	var s struct {
		Fidelity *int `json:"fidelity"`
	}
	if len(j.Stats) == 0 || json.Unmarshal(j.Stats, &s) != nil || s.Fidelity == nil || *s.Fidelity < 0 || *s.Fidelity > 100 {
		return nil
	}
	return s.Fidelity
}

func (j Job) Terminal() bool { return j.Status == StatusCompleted || j.Status == StatusFailed }

// BlueprintStatus is the card status the blueprint list shows.
func (j Job) BlueprintStatus() string {
	switch j.Status {
	case StatusCompleted:
		return BlueprintReady
	case StatusFailed:
		return BlueprintFailed
	}
	return BlueprintProcessing
}

// Asset is one produced file a merchant can download.
type Asset struct {
	ID          string
	UserID      string
	JobID       string
	Key         string
	ContentType string
	Bytes       int64
	CreatedAt   time.Time
	JobName     string
}

// Blob keys are derived from the job id, so a retried job overwrites its own
// files instead of leaving orphans.
func modelKey(userID, jobID string) string { return "models/" + userID + "/" + jobID + "/model.glb" }
func thumbnailKey(userID, jobID string) string {
	return "models/" + userID + "/" + jobID + "/thumbnail.png"
}
func maskKey(userID, jobID string) string     { return "models/" + userID + "/" + jobID + "/mask.png" }
func partsMapKey(userID, jobID string) string { return "models/" + userID + "/" + jobID + "/parts.png" }

func jobStream(id string) events.Stream { return events.Stream{Type: events.StreamJob, ID: id} }
