package catalog

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/upload"
)

// Products made from a new photo (the add-product wizard): "Save as draft"
// keeps the photo and its cutout options without building; "Generate 3D now"
// (at creation, or later on a draft through RebuildProduct) queues a build
// from the cutout the merchant verified, with the same credit rules as POST
// /jobs.

// ErrCutoutNotReady refuses a build with cutout options whose cutout has not
// been made yet: the build must use exactly what the merchant saw.
var ErrCutoutNotReady = fault.New(fault.Conflict, "cutout_not_ready",
	"The background-removed photo is not ready yet. Wait for it to appear, then try again.")

// ErrDraftAngles refuses more photos on "Save as draft": a draft keeps one
// photo, and silently dropping the others would lose the merchant's work.
var ErrDraftAngles = fault.New(fault.Invalid, "draft_more_images",
	"More angles are used when the 3D model is generated. Choose \"Generate 3D now\", or remove the extra photos to save a draft.")

// createFromPhoto appends the new product's events for a photo (in the
// caller's locked transaction): created + photo attached, and when generate
// is set the build's queued job and its build-started event.
func (s *Service) createFromPhoto(ctx context.Context, tx pgx.Tx, userID, id, catalogID string, in NewProduct) error {
	// No blueprint name to fall back on: the wizard's name field is required.
	name, err := CleanName("product", in.Name)
	if err != nil {
		return err
	}
	up, err := upload.UsablePhoto(ctx, tx, userID, in.UploadID)
	if err != nil {
		return err
	}
	if len(in.MoreImages) > 0 && !in.Generate {
		return ErrDraftAngles
	}
	// The further photos get exactly the checks POST /jobs gives them.
	views, err := s.jobs.ResolveViews(ctx, userID, in.MoreImages)
	if err != nil {
		return err
	}
	at := s.at()
	evs := []events.Event{
		events.ProductCreated{ProductID: id, UserID: userID, CatalogID: catalogID, Name: name,
			Source: events.ProductSourcePhoto, At: at},
		events.ProductPhotoAttached{ProductID: id, UploadID: up.ID, PhotoKey: up.BlobKey,
			CleanEdges: in.CleanEdges, KeepShadow: in.KeepShadow, At: at},
	}
	if in.Generate {
		p := Product{UserID: userID, Name: name, PhotoUploadID: up.ID, PhotoKey: up.BlobKey,
			CleanEdges: in.CleanEdges, KeepShadow: in.KeepShadow}
		jobID, err := s.buildFromPhoto(ctx, tx, p, views)
		if err != nil {
			return err
		}
		evs = append(evs, events.ProductBuildStarted{ProductID: id, JobID: jobID, At: at})
	}
	_, err = s.store.Append(ctx, tx, productStream(id), 0, evs...)
	return err
}

// chooseCatalog returns the named catalog when it is the merchant's, else
// the default one (created with the first product).
func (s *Service) chooseCatalog(ctx context.Context, tx pgx.Tx, userID, catalogID string) (string, error) {
	if catalogID == "" {
		return s.ensureDefault(ctx, tx, userID)
	}
	_, err := getCatalog(ctx, tx, userID, catalogID)
	return catalogID, err
}

// buildFromPhoto queues a build of the product's photo: from the chosen
// cutout when an option is on (the reconstructor trusts its alpha), else
// from the photo itself, which the reconstructor segments exactly as the
// plain cutout did. more are the further angles (already checked); one job,
// costing one credit per photo (job.CreditsFor).
func (s *Service) buildFromPhoto(ctx context.Context, tx pgx.Tx, p Product, more []events.JobView) (string, error) {
	imageKey := p.PhotoKey
	if o := (reconstruct.CutoutOptions{CleanEdges: p.CleanEdges, KeepShadow: p.KeepShadow}); o.CleanEdges || o.KeepShadow {
		c, err := upload.ReadyCutout(ctx, tx, p.UserID, p.PhotoUploadID, o)
		if err != nil {
			return "", ErrCutoutNotReady
		}
		imageKey = c.BlobKey
	}
	return s.jobs.QueueBuildViews(ctx, tx, p.UserID, p.PhotoUploadID, imageKey, p.Name, more)
}

// lastViews are the further photos of the product's last build, which a
// rebuild keeps (none for a draft, or when that build was deleted).
func lastViews(ctx context.Context, tx pgx.Tx, p Product) ([]events.JobView, error) {
	if p.JobID == "" {
		return nil, nil
	}
	j, err := job.Lookup(ctx, tx, p.UserID, p.JobID)
	if errors.Is(err, job.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return j.MoreViews, nil
}

// BuildProgress is the current build's real progress for the product page
// and the Building modal: percent 0–100 and the stage ("Queued" while it
// waits for a worker, then the reconstructor's step names).
type BuildProgress struct {
	Progress int
	Stage    string
	// Views is how many photos the build uses (1 for a single photo).
	Views int
}

// Progress reads the current build's progress from the jobs read model;
// a product without a running build has none (ok false).
func (s *Service) Progress(ctx context.Context, p Product) (BuildProgress, bool, error) {
	if p.JobID == "" || p.Status == StatusDraft {
		return BuildProgress{}, false, nil
	}
	j, err := job.Lookup(ctx, s.db, p.UserID, p.JobID)
	if errors.Is(err, job.ErrNotFound) {
		return BuildProgress{}, false, nil // its blueprint was deleted; the product keeps its status
	}
	if err != nil {
		return BuildProgress{}, false, err
	}
	stage := j.Step
	switch {
	case j.Status == job.StatusQueued:
		stage = "Queued"
	case j.Status == job.StatusCompleted:
		stage = "Ready"
	case j.Status == job.StatusFailed:
		stage = "Failed"
	case stage == "":
		stage = "Processing"
	}
	return BuildProgress{Progress: j.Progress, Stage: stage, Views: j.Views()}, true, nil
}

// ReplacePhoto gives an existing product a new photo and rebuilds it from
// that photo (issue 29 item 17): one job and one credit, as any build. The
// configuration is product data, not the build's, so variants, hotspots,
// buy links and presets stay; a part they name that the new model lacks is
// reported by the product's checks rather than silently dropped. The new
// photo is built as it is (no cutout options): its cutout was never shown
// to the merchant. A product still building is refused, as a rebuild is; a
// draft only gets the new photo (no build, no credit).
func (s *Service) ReplacePhoto(ctx context.Context, userID, id, uploadID string) (Product, error) {
	return s.writeProduct(ctx, userID, id, func(tx pgx.Tx) error {
		p, err := getProduct(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if p.Status == StatusProcessing {
			return ErrStillBuilding
		}
		up, err := upload.UsablePhoto(ctx, tx, userID, uploadID)
		if err != nil {
			return err
		}
		if p.Status == StatusDraft {
			// A draft's wrong photo is swapped before any credit is spent (issue 50
			// P12): the photo only; Generate 3D builds from it later.
			_, err = s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion,
				events.ProductPhotoAttached{ProductID: id, UploadID: up.ID, PhotoKey: up.BlobKey, At: s.at()})
			return err
		}
		next := p
		next.PhotoUploadID, next.PhotoKey, next.CleanEdges, next.KeepShadow = up.ID, up.BlobKey, false, false
		jobID, err := s.buildFromPhoto(ctx, tx, next, nil)
		if err != nil {
			return err
		}
		at := s.at()
		_, err = s.store.Append(ctx, tx, productStream(id), eventstore.AnyVersion,
			events.ProductPhotoAttached{ProductID: id, UploadID: up.ID, PhotoKey: up.BlobKey, At: at},
			events.ProductBuildStarted{ProductID: id, JobID: jobID, At: at})
		return err
	})
}
