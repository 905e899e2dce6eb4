package job_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 29 item 15: the processing screen quotes the median queue-to-done
// time of recent completed builds, not a hand-written "30–90 seconds". The
// jobs are real; their timings are set in the read model to known values.
func TestTypicalDurationIsTheMedianOfRecentCompletedBuilds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	d, n, err := b.env.Jobs.TypicalDuration(b.ctx)
	require.NoError(t, err)
	require.Zero(t, n, "no build yet: nothing to quote")
	require.Zero(t, d)

	for i, c := range []struct {
		status string
		secs   int
	}{{"completed", 2}, {"completed", 3}, {"completed", 10}, {"failed", 100}, {"processing", 0}} {
		id := b.createJob(t)
		_, err := b.env.DB.Pool.Exec(b.ctx, `UPDATE jobs SET status = $2, queued_at = now() - make_interval(secs => $3),
			finished_at = CASE WHEN $2 = 'processing' THEN NULL ELSE now() - make_interval(secs => $4) END WHERE id = $1`,
			id, c.status, c.secs+i, i)
		require.NoError(t, err)
	}
	d, n, err = b.env.Jobs.TypicalDuration(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n, "only completed builds count")
	require.Equal(t, 3*time.Second, d.Round(time.Second))
}
