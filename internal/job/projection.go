package job

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
)

// Projection keeps the jobs and assets tables in step with job-{id} streams.
// It is inline (eventstore.WithInline) so the processing screen, polling
// every 2 s, reads progress in the same instant the worker records it.
// Terminal states are sticky: a late progress event can never move a
// completed job back to processing.
type Projection struct{}

// Apply implements eventstore.Inline; events of other streams are ignored.
func (Projection) Apply(ctx context.Context, tx pgx.Tx, e eventstore.Envelope) error {
	var err error
	switch ev := e.Data.(type) {
	case events.JobQueued:
		var spin []byte
		if spin, err = spinJSON(ev.Spin); err != nil {
			return fmt.Errorf("project %s: %w", e.Type, err)
		}
		_, err = tx.Exec(ctx, `
INSERT INTO jobs (id, user_id, upload_id, name, status, image_key, queued_at, created_at, updated_at, more_views, spin)
VALUES ($1, $2, $3, $4, 'queued',
        coalesce(nullif($5, ''), (SELECT blob_key FROM uploads WHERE id = $3)), $6, $6, $6, $7, $8)
ON CONFLICT (id) DO NOTHING`, ev.JobID, ev.UserID, ev.UploadID, ev.Name, ev.ImageKey, ev.At, moreViewsJSON(ev.MoreViews), spin)
	case events.JobStarted:
		_, err = tx.Exec(ctx, `
UPDATE jobs SET status = 'processing', attempt = $2, progress = 0, step = '',
       started_at = coalesce(started_at, $3), updated_at = $3
WHERE id = $1 AND status IN ('queued', 'processing')`, ev.JobID, ev.Attempt, ev.At)
	case events.JobProgressed:
		_, err = tx.Exec(ctx, `
UPDATE jobs SET status = 'processing', progress = $2, step = $3, updated_at = $4
WHERE id = $1 AND status IN ('queued', 'processing')`, ev.JobID, min(max(ev.Percent, 0), 100), ev.Step, e.OccurredAt)
	case events.JobCompleted:
		err = applyCompleted(ctx, tx, ev)
	case events.JobFailed:
		_, err = tx.Exec(ctx, `
UPDATE jobs SET status = 'failed', error = $2, refused = $4, finished_at = $3, updated_at = $3
WHERE id = $1 AND status <> 'completed'`, ev.JobID, ev.Reason, ev.At, ev.Refused)
	case events.BlueprintRenamed:
		_, err = tx.Exec(ctx, `UPDATE jobs SET name = $2, updated_at = $3 WHERE id = $1`, ev.JobID, ev.Name, e.OccurredAt)
	case events.BlueprintDeleted:
		_, err = tx.Exec(ctx, `UPDATE jobs SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`, ev.JobID, ev.At)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("project %s: %w", e.Type, err)
	}
	return nil
}

// moreViewsJSON is the more_views column value: never NULL.
func moreViewsJSON(v []events.JobView) []byte {
	if len(v) == 0 {
		return []byte("[]")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("[]")
	}
	return b
}

// spinJSON is the spin column value: NULL for a build that is not a spin set.
func spinJSON(s *events.JobSpin) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode spin layout: %w", err)
	}
	return b, nil
}

func applyCompleted(ctx context.Context, tx pgx.Tx, ev events.JobCompleted) error {
	parts, err := json.Marshal(ev.Parts)
	if err != nil {
		return fmt.Errorf("encode parts: %w", err)
	}
	if ev.Parts == nil {
		parts = []byte("[]")
	}
	stats, err := json.Marshal(ev.Stats)
	if err != nil {
		return fmt.Errorf("encode stats: %w", err)
	}
	if ev.Stats == nil {
		stats = []byte("{}")
	}
	warnings, err := json.Marshal(ev.Warnings)
	if err != nil {
		return fmt.Errorf("encode warnings: %w", err)
	}
	if ev.Warnings == nil {
		warnings = []byte("[]")
	}
	var userID string
	err = tx.QueryRow(ctx, `
UPDATE jobs SET status = 'completed', progress = 100, step = $2, asset_id = $3, model_key = $4, thumbnail_key = $5,
       mask_key = $6, parts_map_key = $7, parts = $8, stats = $9, reconstructor = $10, version = $11,
       error = '', finished_at = $12, updated_at = $12, warnings = $13
WHERE id = $1
RETURNING user_id`, ev.JobID, stepFinalizing, ev.AssetID, ev.ModelKey, ev.ThumbnailKey, ev.MaskKey, ev.PartsMapKey,
		parts, stats, ev.Reconstructor, ev.Version, ev.At, warnings).Scan(&userID)
	if err != nil {
		return fmt.Errorf("complete job %s: %w", ev.JobID, err)
	}
	_, err = tx.Exec(ctx, `
INSERT INTO assets (id, user_id, job_id, key, content_type, bytes, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (id) DO NOTHING`, ev.AssetID, userID, ev.JobID, ev.ModelKey, ModelContentType, ev.Bytes, ev.At)
	if err != nil {
		return fmt.Errorf("record asset of job %s: %w", ev.JobID, err)
	}
	return nil
}
