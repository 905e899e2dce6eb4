package upload

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// Issue 48: on every plan a merchant can upload a whole turntable spin set of
// the largest photos in one day, one photo after another, with room left for
// retakes, so the quota meant for scripts never stops a spin set half-way.
func TestEveryPlanQuotaTakesAWholeSpinSet(t *testing.T) {
	t.Parallel()
	for _, plan := range []string{"free", "pro", "enterprise", ""} {
		q := QuotaForPlan(plan)
		require.GreaterOrEqual(t, q.Count, reconstruct.MaxSpinPhotos+reconstruct.MinSpinPhotos, plan)
		require.GreaterOrEqual(t, q.Bytes, int64(reconstruct.MaxSpinPhotos+reconstruct.MinSpinPhotos)*imagecheck.MaxUploadBytes, plan)
	}
}
