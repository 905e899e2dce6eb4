package job

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/dispatch"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/upload"
)

var stepFinalizing = string(reconstruct.StepFinalizing)

// Service is the api side of jobs and blueprints. It never reconstructs
// anything itself.
type Service struct {
	db       *pgxpool.Pool
	dispatch *dispatch.Dispatcher
	uploads  *upload.Service
	blobs    *blobstore.Store
	credits  Credits
	now      func() time.Time
	// maxWaiting bounds an account's builds waiting for a slot (0: no limit).
	maxWaiting int
}

// NewService builds the service. d must hold a River client (insert-only in
// the api) and the event store with this package's Projection registered.
// An account may have DefaultMaxWaitingBuilds builds waiting unless an
// option says otherwise.
func NewService(db *pgxpool.Pool, d *dispatch.Dispatcher, uploads *upload.Service, blobs *blobstore.Store, credits Credits, opts ...Option) *Service {
	s := &Service{db: db, dispatch: d, uploads: uploads, blobs: blobs, credits: credits, now: time.Now,
		maxWaiting: DefaultMaxWaitingBuilds}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Create starts a build from one of the caller's uploads named by imageURL.
// In one transaction it reserves CreditsFor(1) credit (402 when none are
// left), appends JobQueued and inserts the River job.
func (s *Service) Create(ctx context.Context, userID, imageURL string) (Job, error) {
	return s.CreateViews(ctx, userID, imageURL, nil)
}

// MoreImage is one further photo of a multi-photo build, as POST /api/jobs
// names it: imageURL like the front photo's, azimuth optional (degrees).
type MoreImage struct {
	ImageURL string
	Azimuth  *float64
}

// MaxMoreImages is how many photos a build takes besides the first.
const MaxMoreImages = reconstruct.MaxViews - 1

// Errors of a multi-photo request.
var (
	ErrTooManyImages = fault.New(fault.Invalid, "too_many_images", fmt.Sprintf("A build takes at most %d photos: the first and up to %d more.", reconstruct.MaxViews, MaxMoreImages))
	ErrBadAzimuth    = fault.New(fault.Invalid, "invalid_azimuth", "An azimuth must be a number of degrees from 0 to 360.")
)

// CreateViews is Create with further photos of the same product (issue 34 §3):
// every imageURL is checked exactly like the first (one of the caller's
// completed uploads), and the build is one job costing CreditsFor(photos),
// one credit per photo (security review M6). A bad further photo is a 400
// naming which one.
func (s *Service) CreateViews(ctx context.Context, userID, imageURL string, more []MoreImage) (Job, error) {
	if len(more) > MaxMoreImages {
		return Job{}, ErrTooManyImages
	}
	up, err := s.uploads.ResolvePhoto(ctx, userID, imageURL)
	if err != nil {
		return Job{}, err
	}
	views, err := s.ResolveViews(ctx, userID, more)
	if err != nil {
		return Job{}, err
	}
	return s.startBuild(ctx, userID, up.ID, up.BlobKey, defaultName(up.Filename, s.now().UTC()), views, nil)
}

// startBuild starts a build (queueViewsTx) in a transaction of its own and
// answers the job as that transaction wrote it. The answer is read before
// the COMMIT, never after it: a read after it can fail (the database
// restarting, the client going away) and answer an error for a build that
// was created and charged, and a client that retries that error, with or
// without an Idempotency-Key, starts and pays for the build twice
// (ops/chaos found it: one job in twelve runs that no accepted request
// created). Every write here that answers what it wrote reads it in its tx.
func (s *Service) startBuild(ctx context.Context, userID, uploadID, imageKey, name string, more []events.JobView, spin *events.JobSpin) (Job, error) {
	var j Job
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		id, err := s.queueViewsTx(ctx, tx, userID, uploadID, imageKey, name, more, spin)
		if err != nil {
			return err
		}
		j, err = Lookup(ctx, tx, userID, id)
		return err
	})
	if err != nil {
		return Job{}, err
	}
	return j, nil
}

// ResolveViews checks a build's further photos exactly like its first (each
// one of the caller's completed uploads, azimuth 0–360 when given, at most
// MaxMoreImages) and returns them as the job records them. Every caller that
// takes moreImages (POST /jobs, the add-product wizard) goes through here, so
// a bad photo is the same 400, naming it ("Photo 3: …"), wherever it comes in.
func (s *Service) ResolveViews(ctx context.Context, userID string, more []MoreImage) ([]events.JobView, error) {
	if len(more) > MaxMoreImages {
		return nil, ErrTooManyImages
	}
	views := make([]events.JobView, 0, len(more))
	for i, m := range more {
		if a := m.Azimuth; a != nil && (math.IsNaN(*a) || *a < 0 || *a > 360) {
			return nil, fault.New(ErrBadAzimuth.Kind, ErrBadAzimuth.Code, fmt.Sprintf("Photo %d: %s", i+2, ErrBadAzimuth.Message))
		}
		u, err := s.resolvePhoto(ctx, userID, m.ImageURL, i+2)
		if err != nil {
			return nil, err
		}
		views = append(views, events.JobView{UploadID: u.ID, ImageKey: u.BlobKey, Azimuth: m.Azimuth})
	}
	return views, nil
}

// resolvePhoto checks photo number n of a build exactly like its first
// (one of the caller's completed uploads) and names it in a refusal
// ("Photo 3: Choose a photo you uploaded to Photo3D."), keeping the code.
func (s *Service) resolvePhoto(ctx context.Context, userID, imageURL string, n int) (upload.Upload, error) {
	u, err := s.uploads.ResolvePhoto(ctx, userID, imageURL)
	if err != nil {
		if fe, ok := fault.As(err); ok {
			return upload.Upload{}, fault.Wrap(err, fe.Kind, fe.Code, fmt.Sprintf("Photo %d: %s", n, fe.Message))
		}
		return upload.Upload{}, err
	}
	return u, nil
}

// Retry starts a new attempt at the caller's failed build: a new job from the
// same photo(s), under the same name (a spin set in the same rings). Like
// Create it reserves CreditsFor its photos (402 when too few are left; the
// worker releases them if this attempt fails too), appends JobQueued and
// inserts the River job, and in the same transaction removes the failed
// blueprint from the workspace (BlueprintDeleted), so the new attempt takes
// its place. Credit holds are per job id, which is why a retry is a new job
// rather than the old one re-queued. Another user's or a deleted id is
// ErrNotFound; a build that did not fail is ErrNotFailed, and one whose
// photos the builder refused (Job.Refused) is ErrRefusedPhotos.
func (s *Service) Retry(ctx context.Context, userID, jobID string) (Job, error) {
	var retried Job
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		old, err := s.lockOwned(ctx, tx, userID, jobID)
		if err != nil {
			return err
		}
		if old.Status != StatusFailed {
			return ErrNotFailed
		}
		if old.Refused {
			return ErrRefusedPhotos
		}
		newID, err := s.queueViewsTx(ctx, tx, userID, old.UploadID, old.ImageKey, old.Name, old.MoreViews, old.Spin)
		if err != nil {
			return err
		}
		_, err = s.dispatch.Store.Append(ctx, tx, jobStream(jobID), eventstore.AnyVersion, events.BlueprintDeleted{JobID: jobID, At: s.now().UTC()})
		if err != nil {
			return err
		}
		retried, err = Lookup(ctx, tx, userID, newID) // before the COMMIT, as startBuild
		return err
	})
	if err != nil {
		return Job{}, err
	}
	return retried, nil
}

// queueViewsTx reserves the build's price, CreditsFor its photos (402 when
// the balance is short), refuses a build over the account's waiting limit
// (429 builds_queued), appends JobQueued (with the further photos of a
// multi-photo build, and the ring layout of a spin set) and inserts the
// River job at the account's fair-share priority (see fairshare.go), all in
// the caller's tx: the one way a build starts, whether from POST /jobs, a
// retry, the wizard or a product's rebuild or new photo, so every one of
// them is priced and shared alike.
func (s *Service) queueViewsTx(ctx context.Context, tx pgx.Tx, userID, uploadID, imageKey, name string, more []events.JobView, spin *events.JobSpin) (string, error) {
	photos := 1 + len(more)
	switch {
	case spin != nil && spin.Videos > 0:
		// Turntable videos: one upload per ring, priced by the photos the
		// worker cuts from them.
		if spin.Videos != photos || len(spin.Rings) != photos {
			return "", fmt.Errorf("spin layout names %d videos in %d rings, the build has %d uploads", spin.Videos, len(spin.Rings), photos)
		}
		photos = spin.Photos()
	case spin != nil && spin.Photos() != photos:
		return "", fmt.Errorf("spin layout names %d photos, the build has %d", spin.Photos(), photos)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("new job id: %w", err)
	}
	jobID := id.String()
	queued := events.JobQueued{JobID: jobID, UserID: userID, UploadID: uploadID, Name: name, ImageKey: imageKey,
		At: s.now().UTC(), MoreViews: more, Spin: spin}
	// Reserving locks the account's subscription row, so the builds counted
	// next cannot change under this request (see buildShare).
	if err := s.credits.ReserveCredits(ctx, tx, userID, jobID, CreditsFor(photos)); err != nil {
		if spin != nil && spin.Videos > 0 {
			return "", insufficientCreditsVideos(err, spin.Videos, photos)
		}
		return "", insufficientCredits(err, photos)
	}
	waiting, unfinished, err := buildShare(ctx, tx, userID)
	if err != nil {
		return "", err
	}
	if s.maxWaiting > 0 && waiting >= s.maxWaiting {
		return "", errBuildsQueued(s.maxWaiting)
	}
	_, err = s.dispatch.Append(ctx, tx, jobStream(jobID), 0, []events.Event{queued},
		river.InsertManyParams{Args: ReconstructArgs{JobID: jobID, Spin: spin != nil}, InsertOpts: &river.InsertOpts{
			Queue: QueueReconstruct, MaxAttempts: RiverMaxAttempts, Priority: priorityFor(unfinished)}})
	if err != nil {
		return "", err
	}
	return jobID, nil
}

// Requeue starts a new build of the same photo as the caller's job
// sourceJobID (which may since have been deleted as a blueprint), named
// name, inside tx: a product's rebuild appends its own event beside it, so
// the product, the credit and the River job commit together. Same price
// (CreditsFor every photo of the source build) and fair share as Create; a
// spin set keeps its ring layout.
func (s *Service) Requeue(ctx context.Context, tx pgx.Tx, userID, sourceJobID, name string) (string, error) {
	src, err := lookupAny(ctx, tx, sourceJobID)
	if err != nil {
		return "", err
	}
	if src.UserID != userID {
		return "", ErrNotFound
	}
	if len([]rune(name)) > MaxNameLength {
		name = string([]rune(name)[:MaxNameLength])
	}
	// A rebuild keeps every photo of the source build, and a spin set's rings.
	return s.queueViewsTx(ctx, tx, userID, src.UploadID, src.ImageKey, name, src.MoreViews, src.Spin)
}

// QueueBuild starts a build of the caller's upload uploadID from imageKey
// (the photo itself, or the background-removed cutout the merchant chose
// for it) inside tx, named name: a product made from a new photo appends
// its own event beside it. Same price and fair share as Create.
func (s *Service) QueueBuild(ctx context.Context, tx pgx.Tx, userID, uploadID, imageKey, name string) (string, error) {
	return s.QueueBuildViews(ctx, tx, userID, uploadID, imageKey, name, nil)
}

// QueueBuildViews is QueueBuild with further photos already checked by
// ResolveViews: one job, costing CreditsFor all its photos.
func (s *Service) QueueBuildViews(ctx context.Context, tx pgx.Tx, userID, uploadID, imageKey, name string, more []events.JobView) (string, error) {
	if len([]rune(name)) > MaxNameLength {
		name = string([]rune(name)[:MaxNameLength])
	}
	return s.queueViewsTx(ctx, tx, userID, uploadID, imageKey, name, more, nil)
}

// Get returns the caller's job (GET /jobs/{id}).
func (s *Service) Get(ctx context.Context, userID, jobID string) (Job, error) {
	return Lookup(ctx, s.db, userID, jobID)
}

// Blueprint returns the caller's blueprint with its blob keys (ModelKey,
// ThumbnailKey); the share-link code publishes from it. Another user's id is
// ErrNotFound.
func (s *Service) Blueprint(ctx context.Context, userID, id string) (Job, error) {
	return Lookup(ctx, s.db, userID, id)
}

// List returns a page of the caller's blueprints, newest first.
func (s *Service) List(ctx context.Context, userID string, p ListParams) (Page, error) {
	return list(ctx, s.db, userID, p)
}

// MaxNameLength bounds blueprint names (in characters).
const MaxNameLength = 100

// Rename renames the caller's blueprint.
func (s *Service) Rename(ctx context.Context, userID, id, name string) (Job, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return Job{}, ErrNameRequired
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return Job{}, ErrNameTooLong
	}
	var renamed Job
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		j, err := s.lockOwned(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if j.Name != name {
			if _, err = s.dispatch.Store.Append(ctx, tx, jobStream(id), eventstore.AnyVersion, events.BlueprintRenamed{JobID: id, Name: name}); err != nil {
				return err
			}
		}
		renamed, err = Lookup(ctx, tx, userID, id) // before the COMMIT, as startBuild
		return err
	})
	if err != nil {
		return Job{}, err
	}
	return renamed, nil
}

// FollowProductName renames, in the caller's transaction, those of jobIDs
// (a product's builds) that still carry the product's old name (issue 50
// item 14: a build named after its product is that product's model, and a
// rename must not leave the old name on it in My Blueprints, the dashboard,
// search and the Add product dialog). A build the merchant named otherwise,
// or one deleted or not theirs, is left alone. The caller locks these jobs
// before any product row (the worker's completion locks a job, then its
// products), so the two never wait on each other in opposite orders.
func (s *Service) FollowProductName(ctx context.Context, tx pgx.Tx, userID string, jobIDs []string, oldName, newName string) error {
	name := strings.Join(strings.Fields(newName), " ")
	if r := []rune(name); len(r) > MaxNameLength {
		name = strings.TrimSpace(string(r[:MaxNameLength]))
	}
	if name == "" {
		return nil
	}
	for _, id := range jobIDs {
		j, err := s.lockOwned(ctx, tx, userID, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if j.Name != oldName || j.Name == name {
			continue
		}
		if _, err := s.dispatch.Store.Append(ctx, tx, jobStream(id), eventstore.AnyVersion, events.BlueprintRenamed{JobID: id, Name: name}); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the caller's blueprint from their workspace. The files stay
// in the bucket (and the event log keeps the history); a job still being
// built is failed by the worker when it picks it up, releasing its credit.
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := s.lockOwned(ctx, tx, userID, id); err != nil {
			return err
		}
		_, err := s.dispatch.Store.Append(ctx, tx, jobStream(id), eventstore.AnyVersion, events.BlueprintDeleted{JobID: id, At: s.now().UTC()})
		return err
	})
}

// lockOwned locks the caller's live job row, so renames, deletes and the
// worker's appends never interleave on the stream.
func (s *Service) lockOwned(ctx context.Context, tx pgx.Tx, userID, id string) (Job, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Job{}, ErrNotFound
	}
	_, owner, deleted, err := lockStatus(ctx, tx, id)
	if err != nil {
		return Job{}, err
	}
	if owner != userID || deleted {
		return Job{}, ErrNotFound
	}
	return Lookup(ctx, tx, userID, id)
}

// Asset returns the caller's asset (GET /assets/{id}).
func (s *Service) Asset(ctx context.Context, userID, assetID string) (Asset, error) {
	return lookupAsset(ctx, s.db, userID, assetID)
}

// SignedURL returns a short-lived signed GET URL for a blob key, or "" for no
// key. JSON answers use these because model-viewer and <img> load URLs
// without an Authorization header.
func (s *Service) SignedURL(ctx context.Context, key string) (string, error) {
	if key == "" {
		return "", nil
	}
	return s.blobs.SignedGetURL(ctx, key, URLExpiry)
}

// defaultName names a blueprint after the photo ("red-chair.jpg" → "red-chair").
func defaultName(filename string, at time.Time) string {
	name := strings.TrimSpace(strings.TrimSuffix(filename, path.Ext(filename)))
	if name == "" || name == "photo" {
		return "Blueprint " + at.Format("2 Jan 2006 15:04")
	}
	for utf8.RuneCountInString(name) > MaxNameLength {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}

// TypicalDurationSample is how many recent builds TypicalDuration looks at.
const TypicalDurationSample = 50

// TypicalDuration is the median time from queueing to a finished model over
// the last TypicalDurationSample completed builds on this server, and how
// many builds that median is over (0: none yet). The processing screen says
// "usually about N seconds" from it instead of a promise written by hand. It
// is a property of the server (its workers and queue), not of any account,
// so every merchant gets the same answer and no one learns anything of
// another's builds beyond it.
func (s *Service) TypicalDuration(ctx context.Context) (time.Duration, int, error) {
	var median *float64
	var n int
	err := s.db.QueryRow(ctx, `
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY secs), count(*)
FROM (SELECT extract(epoch FROM finished_at - queued_at) AS secs
        FROM jobs WHERE status = 'completed' AND finished_at IS NOT NULL
        ORDER BY finished_at DESC LIMIT $1) recent`, TypicalDurationSample).Scan(&median, &n)
	if err != nil {
		return 0, 0, fmt.Errorf("typical build duration: %w", err)
	}
	if median == nil {
		return 0, 0, nil
	}
	return time.Duration(*median * float64(time.Second)), n, nil
}
