package events

import "time"

// Upload and job events: the photo → 3D pipeline. upload-{id} streams record a
// merchant's photo; job-{id} streams record one reconstruction (a "blueprint").

// UploadCreated records an upload slot handed to the browser (signed PUT URL).
type UploadCreated struct {
	UploadID    string    `json:"uploadId"`
	UserID      string    `json:"userId"`
	Filename    string    `json:"filename" erase:"text"`
	ContentType string    `json:"contentType" erase:"keep"` // as declared: a media type
	Size        int64     `json:"size"`
	BlobKey     string    `json:"blobKey"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (UploadCreated) EventType() string { return "upload.created.v1" }

// UploadCompleted records that the bytes arrived and passed the image checks.
type UploadCompleted struct {
	UploadID    string `json:"uploadId"`
	UserID      string `json:"userId"`
	ContentType string `json:"contentType" erase:"keep"` // sniffed
	Bytes       int64  `json:"bytes"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	// BlobKey is where the checked bytes are stored (the same key as in
	// UploadCreated for signed PUTs; chosen from the sniffed format for the
	// multipart fallback). Empty in events written before it existed.
	BlobKey string `json:"blobKey,omitempty"`
}

// EventType implements Event.
func (UploadCompleted) EventType() string { return "upload.completed.v1" }

// JobQueued starts a job-{id} stream; its River job is inserted in the same transaction.
type JobQueued struct {
	JobID    string `json:"jobId"`
	UserID   string `json:"userId"`
	UploadID string `json:"uploadId"`
	Name     string `json:"name" erase:"text"`
	// ImageKey is the blob the worker reconstructs from, recorded so a replay
	// does not depend on the uploads read model.
	ImageKey string    `json:"imageKey,omitempty"`
	At       time.Time `json:"at"`
	// MoreViews are further photos of the same product (a multi-photo build),
	// in the order given; absent for a one-photo build and in older events.
	MoreViews []JobView `json:"moreViews,omitempty"`
	// Spin is the layout of a build from a turntable spin set (issue 48): the
	// job's photos, the first (UploadID/ImageKey) then MoreViews, are its rings
	// in shooting order, ring after ring. Absent for every other build and in
	// older events.
	Spin *JobSpin `json:"spin,omitempty"`
}

// JobSpin is a spin set's layout: its rings, lowest first as the merchant
// listed them, whose photo counts add up to the job's photos.
type JobSpin struct {
	Rings []SpinRingSpec `json:"rings"`
	// Videos, when set, says the build's uploads are that many turntable
	// videos (one per ring, lowest first), not photos: the worker cuts each
	// into its ring's photos. Zero for a spin set of photos.
	Videos int `json:"videos,omitempty"`
}

// SpinRingSpec is one ring of a spin set: Photos taken evenly over one full
// turn of the turntable, from a camera ElevationDeg degrees above the
// product's middle (0: level with it; negative: below).
type SpinRingSpec struct {
	Photos       int     `json:"photos"`
	ElevationDeg float64 `json:"elevationDeg"`
}

// Photos is how many photos the layout names (its rings' counts added up).
func (s *JobSpin) Photos() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, r := range s.Rings {
		n += r.Photos
	}
	return n
}

// JobView is one further photo of a multi-photo build: the caller's upload, the
// blob the worker reads, and the stated azimuth in degrees about +Y from the
// front photo's camera (absent: spaced evenly in the order given).
type JobView struct {
	UploadID string   `json:"uploadId"`
	ImageKey string   `json:"imageKey"`
	Azimuth  *float64 `json:"azimuth,omitempty"`
}

// EventType implements Event.
func (JobQueued) EventType() string { return "job.queued.v1" }

// JobStarted is appended when a worker picks the job up (once per attempt).
type JobStarted struct {
	JobID   string    `json:"jobId"`
	Attempt int       `json:"attempt"`
	Worker  string    `json:"worker,omitempty" erase:"keep"` // our process
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (JobStarted) EventType() string { return "job.started.v1" }

// JobProgressed reports real progress through the four user-visible steps.
type JobProgressed struct {
	JobID   string `json:"jobId"`
	Step    string `json:"step" erase:"keep"`
	Percent int    `json:"percent"`
}

// EventType implements Event.
func (JobProgressed) EventType() string { return "job.progressed.v1" }

// JobPart describes one part of the produced model.
type JobPart struct {
	ID    string  `json:"id"`
	Name  string  `json:"name" erase:"keep"`  // named by the reconstructor
	Color string  `json:"color" erase:"keep"` // measured
	Share float64 `json:"share"`
}

// JobCompleted records the produced asset; CreditsConsumed is appended with it.
type JobCompleted struct {
	JobID         string         `json:"jobId"`
	AssetID       string         `json:"assetId"`
	ModelKey      string         `json:"modelKey"`
	ThumbnailKey  string         `json:"thumbnailKey"`
	MaskKey       string         `json:"maskKey,omitempty"`
	PartsMapKey   string         `json:"partsMapKey,omitempty"`
	Bytes         int64          `json:"bytes"`
	Parts         []JobPart      `json:"parts"`
	Stats         map[string]any `json:"stats" erase:"keep"` // measurements
	Reconstructor string         `json:"reconstructor" erase:"keep"`
	Version       string         `json:"version" erase:"keep"`
	At            time.Time      `json:"at"`
	// Provenance, so an analyst can ask which code made which model from which
	// photo: the options the build ran with (defaults filled in), the hex
	// SHA-256 of the photo bytes, and the model's fidelity score (0–100, absent
	// when the reconstructor gives none). Absent in events written before.
	Options     *JobOptions `json:"options,omitempty"`
	InputSHA256 string      `json:"inputSha256,omitempty" erase:"keep"`
	Fidelity    *int        `json:"fidelity,omitempty"`
	// Views is how many photos the model was built from; absent (0) in events
	// written before multi-photo builds, which all used one.
	Views int `json:"views,omitempty"`
	// Warnings are the builder's sentences about a model it built but doubts
	// (the product runs off an edge of its photo), shown to the merchant
	// beside the model; our text, never the merchant's. Absent when all is well.
	Warnings []string `json:"warnings,omitempty" erase:"keep"`
}

// JobOptions are the reconstruction options of one build. Only tuning values:
// where the reconstructor runs (a URL that may carry credentials) is not here.
type JobOptions struct {
	HeightMetres  float64 `json:"heightMetres"`
	MaxTriangles  int     `json:"maxTriangles"`
	WorkingSize   int     `json:"workingSize"`
	AtlasSize     int     `json:"atlasSize"`
	StrictSubject bool    `json:"strictSubject"`
}

// EventType implements Event.
func (JobCompleted) EventType() string { return "job.completed.v1" }

// JobFailed records the final failure after the last attempt; credits are released.
type JobFailed struct {
	JobID  string `json:"jobId"`
	Reason string `json:"reason" erase:"keep"` // our message, shown to the merchant
	// Detail is the technical cause for support (never secrets); Attempt is
	// the River attempt that gave up.
	Detail  string `json:"detail,omitempty" erase:"keep"` // our error text
	Attempt int    `json:"attempt,omitempty"`
	// Refused: the builder refused the photos themselves (no product told
	// from the backdrop, a spin photo the product runs out of, a file it
	// cannot read, a layout it cannot build). The same photos would be
	// refused the same way, so the build is not retried: the merchant shoots
	// or picks other photos.
	Refused bool      `json:"refused,omitempty"`
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (JobFailed) EventType() string { return "job.failed.v1" }

// BlueprintRenamed renames the blueprint a job produced.
type BlueprintRenamed struct {
	JobID string `json:"jobId"`
	Name  string `json:"name" erase:"text"`
}

// EventType implements Event.
func (BlueprintRenamed) EventType() string { return "blueprint.renamed.v1" }

// BlueprintDeleted removes a blueprint from its owner's workspace.
type BlueprintDeleted struct {
	JobID string    `json:"jobId"`
	At    time.Time `json:"at"`
}

// EventType implements Event.
func (BlueprintDeleted) EventType() string { return "blueprint.deleted.v1" }

func uploadEvents() []Event { return []Event{UploadCreated{}, UploadCompleted{}} }

func jobEvents() []Event {
	return []Event{JobQueued{}, JobStarted{}, JobProgressed{}, JobCompleted{}, JobFailed{},
		BlueprintRenamed{}, BlueprintDeleted{}}
}
