package analytics_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/dbtest"
)

// The api and the worker both create the coming days' partitions when they
// start. Started together they race on the same CREATE; the loser used to fail
// with "relation already exists" and the api refused to start. Each round
// here starts eight such callers at once on days nobody has created yet.
func TestConcurrentStartUpsCreateTheSamePartitions(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	day := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 20 {
		from := day.Add(time.Duration(round*3) * 24 * time.Hour)
		to := from.Add(2 * 24 * time.Hour)
		start := make(chan struct{})
		errs := make([]error, 8)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				<-start
				errs[i] = analytics.EnsurePartitions(ctx, db.Pool, from, to)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, caller %d", round, i)
		}
		var n int
		require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			WHERE c.relname = ANY($1)`, []string{analytics.PartitionName(from), analytics.PartitionName(from.Add(24 * time.Hour)),
			analytics.PartitionName(to)}).Scan(&n))
		require.Equal(t, 3, n, "round %d: each day has its partition", round)
	}
}
