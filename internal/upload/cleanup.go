package upload

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/internal/blobstore"
)

// UnusedUploadAge is how long an upload no job and no live product (a draft)
// used keeps its bytes (with its cutouts).
const UnusedUploadAge = 24 * time.Hour

// CleanupInterval is how often the periodic clean-up runs.
const CleanupInterval = time.Hour

// cleanupBatch bounds one run's work; the next run continues.
const cleanupBatch = 500

// CleanupArgs is the periodic River job that frees storage nobody can use
// any more: photos uploaded but never turned into a job within
// UnusedUploadAge, the files of deleted blueprints (model, thumbnail,
// mask, parts map) that no live publication still shows, merchants' own
// models that were replaced and no live publication shows, and own-model
// files left after their preparation.
type CleanupArgs struct{}

// Kind implements river.JobArgs.
func (CleanupArgs) Kind() string { return "storage_cleanup" }

// CleanupWorker runs CleanupArgs. Deleting is idempotent (a missing blob is
// not an error) and each row is marked only after its blobs are gone, so a
// run that stops half-way is finished by the next.
type CleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	DB     *pgxpool.Pool
	Blobs  *blobstore.Store
	Logger *slog.Logger
	Now    func() time.Time
}

// PeriodicCleanup schedules the worker every CleanupInterval (and at start).
func PeriodicCleanup() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(CleanupInterval),
		func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// Work deletes one batch of each kind.
func (w *CleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	uploads, err := w.purge(ctx,
		`SELECT u.id, ARRAY[u.blob_key] || ARRAY(SELECT c.blob_key FROM upload_cutouts c WHERE c.upload_id = u.id AND c.blob_key <> '')
		 FROM uploads u
		 WHERE u.purged_at IS NULL AND u.created_at < $1
		   AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.upload_id = u.id)
		   AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.more_views @> jsonb_build_array(jsonb_build_object('uploadId', u.id::text)))
		   AND NOT EXISTS (SELECT 1 FROM products p WHERE p.photo_upload_id = u.id AND p.deleted_at IS NULL)
		 ORDER BY u.created_at LIMIT $2`,
		`UPDATE uploads SET purged_at = $2 WHERE id = $1`, now().UTC().Add(-UnusedUploadAge), now().UTC())
	if err != nil {
		return err
	}
	blueprints, err := w.purge(ctx,
		`SELECT j.id, ARRAY[j.model_key, j.thumbnail_key, j.mask_key, j.parts_map_key] FROM jobs j
		 WHERE j.deleted_at IS NOT NULL AND j.blobs_purged_at IS NULL AND j.deleted_at < $1
		   AND NOT EXISTS (SELECT 1 FROM publications p WHERE p.blueprint_id = j.id AND p.unpublished_at IS NULL)
		 ORDER BY j.deleted_at LIMIT $2`,
		`UPDATE jobs SET blobs_purged_at = $2 WHERE id = $1`, now().UTC(), now().UTC())
	if err != nil {
		return err
	}
	// Merchants' own models (issue 28 item 7): the GLB and thumbnail of a
	// model that is no longer its product's (replaced, or the product was
	// deleted) once no version of a live publication shows it. The key names
	// the content, so a model uploaded again is current again and kept.
	models, err := w.purge(ctx,
		`SELECT m.id, ARRAY[m.model_key, m.thumbnail_key] FROM product_models m
		 JOIN products p ON p.id = m.product_id
		 WHERE m.status = 'ready' AND m.purged_at IS NULL AND m.finished_at < $1
		   AND (p.model_key <> m.model_key OR p.deleted_at IS NOT NULL)
		   AND NOT EXISTS (SELECT 1 FROM publication_versions v JOIN publications pub ON pub.id = v.publication_id
		                   WHERE pub.unpublished_at IS NULL AND v.snapshot->>'modelKey' = m.model_key)
		 ORDER BY m.finished_at LIMIT $2`,
		`UPDATE product_models SET purged_at = $2 WHERE id = $1`, now().UTC(), now().UTC())
	if err != nil {
		return err
	}
	// Uploaded model files the worker could not delete, or whose job was
	// lost (still pending after a day: the merchant is told it failed).
	sources, err := w.purge(ctx,
		`SELECT id, source_keys FROM product_models
		 WHERE source_keys <> '{}' AND (status <> 'pending' OR created_at < $1)
		 ORDER BY created_at LIMIT $2`,
		`UPDATE product_models SET source_keys = '{}',
		        code = CASE WHEN status = 'pending' THEN 'model_failed' ELSE code END,
		        message = CASE WHEN status = 'pending' THEN 'We could not prepare this model. Please try again.' ELSE message END,
		        finished_at = COALESCE(finished_at, $2),
		        status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END
		 WHERE id = $1`, now().UTC().Add(-UnusedUploadAge), now().UTC())
	if err != nil {
		return err
	}
	if w.Logger != nil && uploads+blueprints+models+sources > 0 {
		w.Logger.Info("storage clean-up", "unused_uploads", uploads, "deleted_blueprints", blueprints,
			"replaced_models", models, "model_sources", sources)
	}
	return nil
}

// purge deletes the blobs of the rows pick selects and marks each with mark.
func (w *CleanupWorker) purge(ctx context.Context, pick, mark string, before, at time.Time) (int, error) {
	rows, err := w.DB.Query(ctx, pick, before, cleanupBatch)
	if err != nil {
		return 0, fmt.Errorf("select for clean-up: %w", err)
	}
	type row struct {
		id   string
		keys []string
	}
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.keys); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read clean-up row: %w", err)
		}
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("select for clean-up: %w", err)
	}
	for _, r := range todo {
		for _, k := range r.keys {
			if k == "" {
				continue
			}
			if err := w.Blobs.Bucket.Delete(ctx, k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
				return 0, fmt.Errorf("delete %s: %w", k, err)
			}
		}
		if _, err := w.DB.Exec(ctx, mark, r.id, at); err != nil {
			return 0, fmt.Errorf("mark cleaned: %w", err)
		}
	}
	return len(todo), nil
}
