package job

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// The hand-written SQL of the jobs and assets read models lives here, and
// only here.

const jobColumns = `j.id, j.user_id, j.upload_id, j.name, j.status, j.progress, j.step, j.attempt, j.image_key,
	coalesce(j.asset_id, ''), j.model_key, j.thumbnail_key, j.mask_key, j.parts_map_key, coalesce(a.bytes, 0),
	j.parts, j.stats, j.reconstructor, j.version, j.error, j.queued_at, j.started_at, j.finished_at,
	j.deleted_at, j.created_at, j.updated_at, j.more_views, j.spin, j.refused, j.warnings`

const jobFrom = ` FROM jobs j LEFT JOIN assets a ON a.id = j.asset_id`

func scanJob(row pgx.Row) (Job, error) {
	var j Job
	var parts, more, spin, warnings []byte
	err := row.Scan(&j.ID, &j.UserID, &j.UploadID, &j.Name, &j.Status, &j.Progress, &j.Step, &j.Attempt, &j.ImageKey,
		&j.AssetID, &j.ModelKey, &j.ThumbnailKey, &j.MaskKey, &j.PartsMapKey, &j.ModelBytes,
		&parts, &j.Stats, &j.Reconstructor, &j.Version, &j.Error, &j.QueuedAt, &j.StartedAt, &j.FinishedAt,
		&j.DeletedAt, &j.CreatedAt, &j.UpdatedAt, &more, &spin, &j.Refused, &warnings)
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, ErrNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("read job: %w", err)
	}
	if err := json.Unmarshal(parts, &j.Parts); err != nil {
		return Job{}, fmt.Errorf("decode parts of job %s: %w", j.ID, err)
	}
	if err := json.Unmarshal(more, &j.MoreViews); err != nil {
		return Job{}, fmt.Errorf("decode views of job %s: %w", j.ID, err)
	}
	if err := json.Unmarshal(warnings, &j.Warnings); err != nil {
		return Job{}, fmt.Errorf("decode warnings of job %s: %w", j.ID, err)
	}
	if spin != nil {
		if err := json.Unmarshal(spin, &j.Spin); err != nil {
			return Job{}, fmt.Errorf("decode spin layout of job %s: %w", j.ID, err)
		}
	}
	return j, nil
}

// Lookup returns the owner's live (not deleted) job or blueprint; another
// user's id, a deleted one and a malformed id are all ErrNotFound, so ids
// never leak across accounts. q may be a transaction: share-link code calls
// it inside its own.
func Lookup(ctx context.Context, q pgdb.Querier, userID, jobID string) (Job, error) {
	if _, err := uuid.Parse(jobID); err != nil {
		return Job{}, ErrNotFound
	}
	return scanJob(q.QueryRow(ctx, `SELECT `+jobColumns+jobFrom+
		` WHERE j.id = $1 AND j.user_id = $2 AND j.deleted_at IS NULL`, jobID, userID))
}

// lookupAny reads a job whoever owns it (the worker and admins).
func lookupAny(ctx context.Context, q pgdb.Querier, jobID string) (Job, error) {
	if _, err := uuid.Parse(jobID); err != nil {
		return Job{}, ErrNotFound
	}
	return scanJob(q.QueryRow(ctx, `SELECT `+jobColumns+jobFrom+` WHERE j.id = $1`, jobID))
}

// lockStatus locks a job row for the rest of tx and returns its status and
// owner. Every append to a job stream happens under this lock, so appends
// with eventstore.AnyVersion never race each other.
func lockStatus(ctx context.Context, tx pgx.Tx, jobID string) (status, userID string, deleted bool, err error) {
	var deletedAt *time.Time
	err = tx.QueryRow(ctx, `SELECT status, user_id, deleted_at FROM jobs WHERE id = $1 FOR UPDATE`, jobID).Scan(&status, &userID, &deletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false, ErrNotFound
	}
	if err != nil {
		return "", "", false, fmt.Errorf("lock job %s: %w", jobID, err)
	}
	return status, userID, deletedAt != nil, nil
}

// Page is one page of a user's blueprints, newest first.
type Page struct {
	Items      []Job
	NextCursor string // empty on the last page
	Total      int    // live blueprints of the user, all pages
}

// ListParams select a page: Limit 1–100 (default 20) and the opaque Cursor
// of the previous page's NextCursor (empty for the first page).
type ListParams struct {
	Limit  int
	Cursor string
}

// DefaultLimit is the page size when none is asked for.
const DefaultLimit = 20

// list pages with a keyset on (created_at, id): stable under inserts, unlike
// OFFSET, and served by the jobs_user_live index.
func list(ctx context.Context, q pgdb.Querier, userID string, p ListParams) (Page, error) {
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	if p.Limit < 1 || p.Limit > 100 {
		return Page{}, ErrBadLimit
	}
	args := []any{userID, p.Limit + 1}
	where := `j.user_id = $1 AND j.deleted_at IS NULL`
	if p.Cursor != "" {
		at, id, err := decodeCursor(p.Cursor)
		if err != nil {
			return Page{}, ErrBadCursor
		}
		where += ` AND (j.created_at, j.id) < ($3, $4)`
		args = append(args, at, id)
	}
	rows, err := q.Query(ctx, `SELECT `+jobColumns+jobFrom+` WHERE `+where+` ORDER BY j.created_at DESC, j.id DESC LIMIT $2`, args...)
	if err != nil {
		return Page{}, fmt.Errorf("list blueprints: %w", err)
	}
	defer rows.Close()
	var page Page
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return Page{}, err
		}
		page.Items = append(page.Items, j)
	}
	if err := rows.Err(); err != nil {
		return Page{}, fmt.Errorf("list blueprints: %w", err)
	}
	if len(page.Items) > p.Limit {
		page.Items = page.Items[:p.Limit]
		last := page.Items[len(page.Items)-1]
		page.NextCursor = encodeCursor(last.CreatedAt, last.ID)
	}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = $1 AND deleted_at IS NULL`, userID).Scan(&page.Total); err != nil {
		return Page{}, fmt.Errorf("count blueprints: %w", err)
	}
	return page, nil
}

func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "|" + id))
}

func decodeCursor(c string) (time.Time, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", err
	}
	ts, id, ok := strings.Cut(string(b), "|")
	if !ok {
		return time.Time{}, "", errors.New("cursor without separator")
	}
	micros, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, "", err
	}
	if _, err := uuid.Parse(id); err != nil {
		return time.Time{}, "", err
	}
	return time.UnixMicro(micros).UTC(), id, nil
}

// lookupAsset returns the owner's asset of a live blueprint.
func lookupAsset(ctx context.Context, q pgdb.Querier, userID, assetID string) (Asset, error) {
	if _, err := uuid.Parse(assetID); err != nil {
		return Asset{}, ErrAssetNotFound
	}
	var a Asset
	err := q.QueryRow(ctx, `
SELECT a.id, a.user_id, a.job_id, a.key, a.content_type, a.bytes, a.created_at, j.name
FROM assets a JOIN jobs j ON j.id = a.job_id
WHERE a.id = $1 AND a.user_id = $2 AND j.deleted_at IS NULL`, assetID, userID).
		Scan(&a.ID, &a.UserID, &a.JobID, &a.Key, &a.ContentType, &a.Bytes, &a.CreatedAt, &a.JobName)
	if errors.Is(err, pgx.ErrNoRows) {
		return Asset{}, ErrAssetNotFound
	}
	if err != nil {
		return Asset{}, fmt.Errorf("read asset: %w", err)
	}
	return a, nil
}
