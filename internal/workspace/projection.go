// Package workspace maintains the "workspace_items" read model: one row per
// thing a merchant owns (blueprints now; products and galleries later through
// the same projection), with its current label, status and where it opens in
// the web app. Workspace search and the dashboard's "Resume where you left
// off…" list both read it, so they always agree.
//
// It is an asynchronous projection run by the worker: the API never waits for
// it, and `worker replay workspace_items` rebuilds it from the event log. The
// same projection folds per-user subscription and publication counters
// (workspace_accounts) that the dashboard's insights are computed from.
package workspace

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Item kinds stored in workspace_items.kind.
const (
	KindBlueprint = "blueprint"
	KindProduct   = "product"
	KindGallery   = "gallery"
)

// Item statuses, as the dashboard shows them.
const (
	StatusDraft      = "draft" // a product with a photo and no build yet
	StatusProcessing = "processing"
	StatusReady      = "ready"
	StatusError      = "error"
)

// ProjectionName is the checkpoint key and the name `worker replay` takes.
const ProjectionName = "workspace_items"

// untitled labels a blueprint queued without a name, so search and the
// dashboard never show an empty card.
const untitled = "Untitled model"

// Projection builds workspace_items and workspace_accounts from events.
type Projection struct{}

// NewProjection returns the workspace_items projection.
func NewProjection() Projection { return Projection{} }

// Name implements projection.Projection.
func (Projection) Name() string { return ProjectionName }

// Reset implements projection.Projection: both tables are derived entirely
// from events.
func (Projection) Reset(ctx context.Context, tx pgx.Tx) error { return truncateDerived(ctx, tx) }

// BlueprintPath is where a blueprint opens: the preview once its model is
// ready, otherwise the processing page, which shows progress or the failure.
func BlueprintPath(jobID, status string) string {
	if status == StatusReady {
		return "/preview/" + jobID
	}
	return "/processing/" + jobID
}

func label(name string) string {
	if s := strings.TrimSpace(name); s != "" {
		return s
	}
	return untitled
}

// Handle implements projection.Projection. Times come from the event, never
// the clock, so a replay writes exactly what incremental processing wrote.
func (Projection) Handle(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	at := e.OccurredAt
	switch ev := e.Data.(type) {
	case events.JobQueued:
		return addItem(ctx, tx, Item{ID: ev.JobID, Type: KindBlueprint, Label: label(ev.Name), Status: StatusProcessing,
			UpdatedAt: at, Path: BlueprintPath(ev.JobID, StatusProcessing)}, ev.UserID)
	case events.JobStarted:
		return touchProcessing(ctx, tx, KindBlueprint, ev.JobID, at)
	case events.JobProgressed:
		// Terminal states stay terminal: a late or duplicated progress event
		// must not revive a finished build.
		return touchProcessing(ctx, tx, KindBlueprint, ev.JobID, at)
	case events.JobCompleted:
		if err := setProductsOfJob(ctx, tx, ev.JobID, StatusReady, e.Position, at); err != nil {
			return err
		}
		return setStatus(ctx, tx, KindBlueprint, ev.JobID, StatusReady, BlueprintPath(ev.JobID, StatusReady), at)
	case events.JobFailed:
		if err := setProductsOfJob(ctx, tx, ev.JobID, StatusError, e.Position, at); err != nil {
			return err
		}
		return setStatus(ctx, tx, KindBlueprint, ev.JobID, StatusError, BlueprintPath(ev.JobID, StatusError), at)
	case events.BlueprintRenamed:
		return relabel(ctx, tx, KindBlueprint, ev.JobID, label(ev.Name), at)
	case events.BlueprintDeleted:
		return markDeleted(ctx, tx, KindBlueprint, ev.JobID, at)
	case events.PublicationCreated:
		return countPublication(ctx, tx, ev.UserID)
	}
	if handled, err := handleCatalogue(ctx, tx, e); handled || err != nil {
		return err
	}
	if userID, ok := UsageUserID(e.Data); ok {
		u, err := loadUsage(ctx, tx, userID)
		if err != nil {
			return err
		}
		u.Apply(e.Data, at)
		return saveUsage(ctx, tx, userID, u)
	}
	return nil
}
