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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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
func (Projection) Reset(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `TRUNCATE workspace_items, workspace_accounts`); err != nil {
		return fmt.Errorf("truncate workspace tables: %w", err)
	}
	return nil
}

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
		_, err := tx.Exec(ctx, `INSERT INTO workspace_items (kind, item_id, user_id, label, status, path, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (kind, item_id) DO NOTHING`,
			KindBlueprint, ev.JobID, ev.UserID, label(ev.Name), StatusProcessing, BlueprintPath(ev.JobID, StatusProcessing), at)
		return wrap(err, "add blueprint")
	case events.JobStarted:
		return touchProcessing(ctx, tx, ev.JobID, at)
	case events.JobProgressed:
		return touchProcessing(ctx, tx, ev.JobID, at)
	case events.JobCompleted:
		return setStatus(ctx, tx, ev.JobID, StatusReady, at)
	case events.JobFailed:
		return setStatus(ctx, tx, ev.JobID, StatusError, at)
	case events.BlueprintRenamed:
		_, err := tx.Exec(ctx, `UPDATE workspace_items SET label = $3, updated_at = $4 WHERE kind = $1 AND item_id = $2`,
			KindBlueprint, ev.JobID, label(ev.Name), at)
		return wrap(err, "rename blueprint")
	case events.BlueprintDeleted:
		_, err := tx.Exec(ctx, `UPDATE workspace_items SET deleted = true, updated_at = $3 WHERE kind = $1 AND item_id = $2`,
			KindBlueprint, ev.JobID, at)
		return wrap(err, "delete blueprint")
	case events.PublicationCreated:
		_, err := tx.Exec(ctx, `INSERT INTO workspace_accounts (user_id, publications) VALUES ($1, 1)
			ON CONFLICT (user_id) DO UPDATE SET publications = workspace_accounts.publications + 1`, ev.UserID)
		return wrap(err, "count publication")
	}
	if userID, ok := UsageUserID(e.Data); ok {
		return foldUsage(ctx, tx, userID, e.Data, at)
	}
	return nil
}

// touchProcessing records activity on a running build. Terminal states stay
// terminal: a late or duplicated progress event must not revive a finished job.
func touchProcessing(ctx context.Context, tx pgx.Tx, jobID string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE workspace_items SET updated_at = $3
		WHERE kind = $1 AND item_id = $2 AND status = 'processing'`, KindBlueprint, jobID, at)
	return wrap(err, "touch blueprint")
}

func setStatus(ctx context.Context, tx pgx.Tx, jobID, status string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE workspace_items SET status = $3, path = $4, updated_at = $5 WHERE kind = $1 AND item_id = $2`,
		KindBlueprint, jobID, status, BlueprintPath(jobID, status), at)
	return wrap(err, "set blueprint status")
}

func foldUsage(ctx context.Context, tx pgx.Tx, userID string, ev events.Event, at time.Time) error {
	var raw []byte
	err := tx.QueryRow(ctx, `SELECT usage FROM workspace_accounts WHERE user_id = $1 FOR UPDATE`, userID).Scan(&raw)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("load usage: %w", err)
	}
	var u Usage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &u); err != nil {
			return fmt.Errorf("decode usage of %s: %w", userID, err)
		}
	}
	u.Apply(ev, at)
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("encode usage: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO workspace_accounts (user_id, usage) VALUES ($1, $2)
		ON CONFLICT (user_id) DO UPDATE SET usage = EXCLUDED.usage`, userID, b)
	return wrap(err, "save usage")
}

func wrap(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
