package upload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// The wizard's "Remove background" (issue 13): the worker cuts the product out
// of an upload with the reconstructor's own segmenter (reconstruct.Cutout), on a
// queue of its own so a cutout never waits behind 3D builds. Results are cached
// per (upload, options) in upload_cutouts and the blob store; the api waits a
// short, bounded time for the job so most answers carry the finished cutout.

// QueueCutout is the River queue of cutout jobs; workers serve it with their own
// slots (see cmd/worker), apart from the reconstruct queue.
const QueueCutout = "cutout"

// Cutout statuses.
const (
	CutoutPending = "pending"
	CutoutReady   = "ready"
	CutoutFailed  = "failed"
)

// CutoutWait is how long POST /uploads/{id}/cutout waits for the worker before
// answering 202 (the client then polls GET).
const CutoutWait = 2 * time.Second

// cutoutStale: a pending cutout older than this is queued again when asked for
// (its worker died and River has not rescued it yet).
const cutoutStale = 5 * time.Minute

// CutoutFailedMessage is what the merchant reads when a cutout cannot be made
// for a reason other than the photo itself.
const CutoutFailedMessage = "We could not remove the background of this photo. Please try again or upload a different photo."

// ErrCutoutNotFound: no cutout with these options was asked for (or the upload
// is someone else's).
var ErrCutoutNotFound = fault.NotFoundf("Cutout not found.")

// CutoutArgs is the River job that makes one cutout.
type CutoutArgs struct {
	UploadID   string `json:"uploadId"`
	CleanEdges bool   `json:"cleanEdges"`
	KeepShadow bool   `json:"keepShadow"`
}

// Kind implements river.JobArgs; stored in river_job, never change it.
func (CutoutArgs) Kind() string { return "cutout" }

// InsertOpts implements river.JobArgsWithInsertOpts: the cutout queue, two
// attempts (a cutout is cheap; the merchant is waiting and can click again).
func (CutoutArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueCutout, MaxAttempts: 2}
}

// Cutout is one cached cutout.
type Cutout struct {
	UploadID string
	reconstruct.CutoutOptions
	Status  string
	BlobKey string
	Width   int
	Height  int
	Message string
}

// cutoutKey names the cutout's PNG; one per option pair, so the same request
// always lands on the same file.
func cutoutKey(userID, uploadID string, o reconstruct.CutoutOptions) string {
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	return fmt.Sprintf("cutouts/%s/%s/e%ds%d.png", userID, uploadID, b(o.CleanEdges), b(o.KeepShadow))
}

// CutoutKey is the blob key of a ready cutout (used by product builds, which
// take the chosen cutout as their photo).
func CutoutKey(userID, uploadID string, o reconstruct.CutoutOptions) string {
	return cutoutKey(userID, uploadID, o)
}

// WithRiver gives the service an (insert-only) River client, needed to queue
// cutouts.
func (s *Service) WithRiver(rc *river.Client[pgx.Tx]) *Service {
	s.river = rc
	return s
}

// RequestCutout returns the caller's cutout of one upload with options o,
// queuing it when it was never made (or failed, or its job was lost) and
// waiting up to wait for the worker. Another user's upload is ErrNotFound.
func (s *Service) RequestCutout(ctx context.Context, userID, uploadID string, o reconstruct.CutoutOptions, wait time.Duration) (Cutout, error) {
	up, err := s.Get(ctx, s.db, userID, uploadID)
	if err != nil {
		return Cutout{}, err
	}
	if !up.Completed() || up.Purged {
		// A photo sent straight to the cloud bucket is checked on first use.
		if _, err := s.ResolvePhoto(ctx, userID, s.PublicURL(uploadID)); err != nil {
			return Cutout{}, err
		}
	}
	if s.river == nil {
		return Cutout{}, errors.New("request cutout: no River client configured")
	}
	now := s.now().UTC()
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var queued bool
		err := tx.QueryRow(ctx, `
			INSERT INTO upload_cutouts (upload_id, user_id, clean_edges, keep_shadow, status, requested_at)
			VALUES ($1, $2, $3, $4, 'pending', $5)
			ON CONFLICT (upload_id, clean_edges, keep_shadow) DO UPDATE
			SET status = 'pending', message = '', blob_key = '', requested_at = EXCLUDED.requested_at, finished_at = NULL
			WHERE upload_cutouts.status = 'failed'
			   OR (upload_cutouts.status = 'pending' AND upload_cutouts.requested_at < $6)
			RETURNING true`, uploadID, userID, o.CleanEdges, o.KeepShadow, now, now.Add(-cutoutStale)).Scan(&queued)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // already made or being made
		}
		if err != nil {
			return fmt.Errorf("request cutout: %w", err)
		}
		_, err = s.river.InsertTx(ctx, tx, CutoutArgs{UploadID: uploadID, CleanEdges: o.CleanEdges, KeepShadow: o.KeepShadow}, nil)
		if err != nil {
			return fmt.Errorf("queue cutout: %w", err)
		}
		return nil
	})
	if err != nil {
		return Cutout{}, err
	}
	// Bounded wait: the worker usually finishes within a few hundred ms. The
	// row is polled with a short, growing interval (cheap primary-key reads).
	deadline := time.Now().Add(wait)
	interval := 10 * time.Millisecond
	for {
		c, err := s.GetCutout(ctx, userID, uploadID, o)
		if err != nil || c.Status != CutoutPending || !time.Now().Before(deadline) {
			return c, err
		}
		t := time.NewTimer(min(interval, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return c, ctx.Err()
		case <-t.C:
		}
		interval = min(interval*3/2, 50*time.Millisecond)
	}
}

// GetCutout returns the caller's cutout of an upload with options o (GET
// /uploads/{id}/cutout); never asked for, or someone else's: ErrCutoutNotFound.
func (s *Service) GetCutout(ctx context.Context, userID, uploadID string, o reconstruct.CutoutOptions) (Cutout, error) {
	return getCutout(ctx, s.db, userID, uploadID, o)
}

func getCutout(ctx context.Context, q pgdb.Querier, userID, uploadID string, o reconstruct.CutoutOptions) (Cutout, error) {
	c := Cutout{UploadID: uploadID, CutoutOptions: o}
	err := q.QueryRow(ctx, `SELECT status, blob_key, width, height, message FROM upload_cutouts
		WHERE upload_id = $1 AND user_id = $2 AND clean_edges = $3 AND keep_shadow = $4`,
		uploadID, userID, o.CleanEdges, o.KeepShadow).Scan(&c.Status, &c.BlobKey, &c.Width, &c.Height, &c.Message)
	if errors.Is(err, pgx.ErrNoRows) {
		return Cutout{}, ErrCutoutNotFound
	}
	if err != nil {
		return Cutout{}, fmt.Errorf("read cutout: %w", err)
	}
	return c, nil
}

// ReadyCutout returns the owner's finished cutout in q (a product build takes
// it as its photo); anything else is ErrCutoutNotFound.
func ReadyCutout(ctx context.Context, q pgdb.Querier, userID, uploadID string, o reconstruct.CutoutOptions) (Cutout, error) {
	c, err := getCutout(ctx, q, userID, uploadID, o)
	if err != nil {
		return Cutout{}, err
	}
	if c.Status != CutoutReady {
		return Cutout{}, ErrCutoutNotFound
	}
	return c, nil
}

// UsablePhoto returns the owner's upload read in q when its bytes are there
// to build from: someone else's is ErrNotFound, one never completed
// ErrNotReceived, one purged by the clean-up ErrPurged.
func UsablePhoto(ctx context.Context, q pgdb.Querier, userID, uploadID string) (Upload, error) {
	up, err := lookup(ctx, q, userID, uploadID)
	switch {
	case err != nil:
		return Upload{}, err
	case up.Purged:
		return Upload{}, ErrPurged
	case !up.Completed():
		return Upload{}, ErrNotReceived
	case up.IsVideo():
		return Upload{}, ErrVideoNotPhoto
	}
	return up, nil
}

// SignedURL signs a blob key for JSON answers (same expiry as models).
func (s *Service) SignedURL(ctx context.Context, key string) (string, error) {
	return s.blobs.SignedGetURL(ctx, key, time.Hour)
}

// CutoutWorker makes cutouts. It is idempotent: a ready cutout is left alone,
// and the PNG is written before the row says ready.
type CutoutWorker struct {
	river.WorkerDefaults[CutoutArgs]
	DB     *pgxpool.Pool
	Blobs  *blobstore.Store
	Logger *slog.Logger
}

// Timeout implements river.Worker: a cutout takes well under a second on an
// idle core; the limit only frees a slot held by a stuck one, with room for
// a heavily loaded machine.
func (w *CutoutWorker) Timeout(*river.Job[CutoutArgs]) time.Duration { return 2 * time.Minute }

// Work implements river.Worker.
func (w *CutoutWorker) Work(ctx context.Context, rj *river.Job[CutoutArgs]) error {
	a := rj.Args
	o := reconstruct.CutoutOptions{CleanEdges: a.CleanEdges, KeepShadow: a.KeepShadow}
	var userID, status, photoKey string
	err := w.DB.QueryRow(ctx, `SELECT c.user_id, c.status, u.blob_key FROM upload_cutouts c JOIN uploads u ON u.id = c.upload_id
		WHERE c.upload_id = $1 AND c.clean_edges = $2 AND c.keep_shadow = $3`, a.UploadID, a.CleanEdges, a.KeepShadow).
		Scan(&userID, &status, &photoKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return river.JobCancel(fmt.Errorf("cutout of upload %s has no record", a.UploadID))
	}
	if err != nil {
		return err
	}
	if status == CutoutReady {
		return nil
	}
	photo, err := w.Blobs.Read(ctx, photoKey, imagecheck.MaxUploadBytes)
	if errors.Is(err, blobstore.ErrNotFound) {
		return w.finish(ctx, a, "", 0, 0, ErrPurged.Message)
	}
	if err != nil {
		return w.retryOrFail(ctx, rj, err)
	}
	png, width, height, err := reconstruct.Cutout(ctx, photo, o)
	if err != nil {
		if ce := CheckFault(err); ce != err {
			fe, _ := fault.As(ce)
			return w.finish(ctx, a, "", 0, 0, fe.Message)
		}
		return w.retryOrFail(ctx, rj, err)
	}
	key := cutoutKey(userID, a.UploadID, o)
	if err := w.Blobs.Write(ctx, key, "image/png", png); err != nil {
		return w.retryOrFail(ctx, rj, err)
	}
	return w.finish(ctx, a, key, width, height, "")
}

// retryOrFail lets River retry, except on the last attempt, where the row is
// marked failed so the waiting page shows an answer instead of spinning.
func (w *CutoutWorker) retryOrFail(ctx context.Context, rj *river.Job[CutoutArgs], cause error) error {
	if rj.Attempt < rj.MaxAttempts {
		return cause
	}
	if w.Logger != nil {
		w.Logger.Error("cutout failed", "upload_id", rj.Args.UploadID, "err", cause)
	}
	if err := w.finish(context.WithoutCancel(ctx), rj.Args, "", 0, 0, CutoutFailedMessage); err != nil {
		return err
	}
	return nil
}

// finish records the outcome: ready with its file, or failed with a message.
func (w *CutoutWorker) finish(ctx context.Context, a CutoutArgs, key string, width, height int, message string) error {
	status := CutoutReady
	if key == "" {
		status = CutoutFailed
	}
	_, err := w.DB.Exec(ctx, `UPDATE upload_cutouts SET status = $4, blob_key = $5, width = $6, height = $7, message = $8, finished_at = now()
		WHERE upload_id = $1 AND clean_edges = $2 AND keep_shadow = $3`,
		a.UploadID, a.CleanEdges, a.KeepShadow, status, key, width, height, message)
	if err != nil {
		return fmt.Errorf("record cutout: %w", err)
	}
	return nil
}
