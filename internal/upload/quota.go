package upload

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Quota bounds what one user may upload in a rolling day, so a script
// cannot fill the blob store (each photo may be 10 MB).
type Quota struct {
	Count int   // uploads per 24 hours
	Bytes int64 // bytes per 24 hours
}

// QuotaWindow is the rolling window of a Quota.
const QuotaWindow = 24 * time.Hour

// QuotaForPlan is the daily upload allowance of a plan: far above what a
// merchant photographing products needs, far below what fills a disk.
//
// Every plan admits a whole turntable spin set of the largest photos
// (issue 48: reconstruct.MaxSpinPhotos photos of imagecheck.MaxUploadBytes,
// 72 × 10 MB), uploaded one after another, with room for retakes: the Free
// plan's allowance was 50 files and 500 MB, which refused the 51st photo of
// a spin set its owner had bought the credits for. It is now 100 files (one
// spin set and 28 more) and 1 GiB; unused photos are still deleted after a
// day (storage_cleanup), so a free account holds about a day's worth.
func QuotaForPlan(plan string) Quota {
	switch plan {
	case "enterprise":
		return Quota{Count: 5000, Bytes: 50 << 30}
	case "pro":
		return Quota{Count: 500, Bytes: 5 << 30}
	default:
		return Quota{Count: 100, Bytes: 1 << 30}
	}
}

// QuotaFunc returns a user's quota (cmd/api derives it from the effective plan).
type QuotaFunc func(ctx context.Context, userID string) (Quota, error)

// WithQuota sets how a user's daily quota is found; without it every user
// gets the Free plan's.
func (s *Service) WithQuota(q QuotaFunc) *Service {
	s.quota = q
	return s
}

func (s *Service) quotaOf(ctx context.Context, userID string) (Quota, error) {
	if s.quota == nil {
		return QuotaForPlan("free"), nil
	}
	return s.quota(ctx, userID)
}

// lockQuota serialises one user's upload creations for the rest of tx, so
// parallel requests cannot all pass the check at once.
func lockQuota(ctx context.Context, tx pgx.Tx, userID string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('upload-quota:' || $1, 0))`, userID); err != nil {
		return fmt.Errorf("lock upload quota: %w", err)
	}
	return nil
}

// checkQuota refuses an upload of size bytes that would take the user past
// their daily quota, counting the declared size of pending uploads.
func (s *Service) checkQuota(ctx context.Context, q pgdb.Querier, userID string, size int64) error {
	quota, err := s.quotaOf(ctx, userID)
	if err != nil {
		return err
	}
	return CheckQuota(ctx, q, quota, userID, size, s.now())
}

// CheckQuotaTx is the daily quota for files that are not photos (a
// merchant's own model files): it locks the user's quota for the rest of tx
// and refuses size more bytes past quota. Photos and own models share one
// allowance, so neither can be used to get round the other.
func CheckQuotaTx(ctx context.Context, tx pgx.Tx, quota Quota, userID string, size int64, now time.Time) error {
	if err := lockQuota(ctx, tx, userID); err != nil {
		return err
	}
	return CheckQuota(ctx, tx, quota, userID, size, now)
}

// CheckQuota is CheckQuotaTx without the lock: a first look before files are
// written, so a refused upload stores nothing.
func CheckQuota(ctx context.Context, q pgdb.Querier, quota Quota, userID string, size int64, now time.Time) error {
	var n int
	var bytes int64
	if err := q.QueryRow(ctx, `SELECT sum(n)::int, sum(b)::bigint FROM (
		SELECT count(*) AS n, COALESCE(sum(GREATEST(bytes, declared_size)), 0) AS b FROM uploads
		WHERE user_id = $1 AND created_at > $2
		UNION ALL
		SELECT count(*), COALESCE(sum(source_bytes), 0) FROM product_models
		WHERE user_id = $1 AND created_at > $2) t`, userID, now.UTC().Add(-QuotaWindow)).Scan(&n, &bytes); err != nil {
		return fmt.Errorf("read upload quota: %w", err)
	}
	if n+1 > quota.Count || bytes+max(size, 0) > quota.Bytes {
		return fault.New(fault.RateLimited, "upload_quota", fmt.Sprintf(
			"You have uploaded %d files (%d MB) in the last 24 hours, the most your plan allows (%d photos or models, %d MB). Please try again later or upgrade your plan.",
			n, bytes>>20, quota.Count, quota.Bytes>>20))
	}
	return nil
}
