package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// LogRetention is how long finished deliveries stay in the log: long enough
// to debug last month's integration, short enough that payloads (which may
// hold a shopper's email) do not pile up for ever.
const LogRetention = 30 * 24 * time.Hour

// PruneArgs is the daily delivery-log clean-up.
type PruneArgs struct{}

// Kind implements river.JobArgs.
func (PruneArgs) Kind() string { return "webhook_prune" }

// PeriodicPrune schedules PruneWorker once a day (and at start-up).
func PeriodicPrune() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// PruneWorker deletes delivered and failed deliveries finished more than
// LogRetention ago; pending ones are never touched.
type PruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	DB  *pgxpool.Pool
	Now func() time.Time
}

// Work implements river.Worker.
func (w *PruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	if _, err := w.DB.Exec(ctx, `DELETE FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < $1`, now.Add(-LogRetention)); err != nil {
		return fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return nil
}
