package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Outcome is what the event log and read models say about a set of jobs.
type Outcome struct {
	Jobs      int
	Completed int // jobs row completed
	Failed    int // jobs row failed
	Pending   int // neither: lost, unless the run is still going

	// Per-job counts that must be exactly one (or zero) each.
	DoubleCompletions int // more than one job.completed.v1 in a job's stream
	CompletedNoEvent  int // row says completed, no completion event
	CreditsWrong      int // a completed job not consumed exactly once, or reserved/released wrongly
	Attempts          int // River attempts over all jobs (re-runs after kills)
	Problems          []string

	First, Last time.Time // first job queued, last job finished
}

// Done reports whether every job has finished (completed or failed).
func (o Outcome) Done() bool { return o.Pending == 0 }

// OK reports whether every job completed exactly once and was charged once.
func (o Outcome) OK() bool {
	return o.Pending == 0 && o.Failed == 0 && o.DoubleCompletions == 0 && o.CompletedNoEvent == 0 && o.CreditsWrong == 0
}

// Check reads the state of the given jobs from the database.
func Check(ctx context.Context, pool *pgxpool.Pool, jobIDs []string) (Outcome, error) {
	o := Outcome{Jobs: len(jobIDs)}
	rows, err := pool.Query(ctx, `
SELECT j.id, j.status, j.queued_at, j.finished_at,
  (SELECT count(*) FROM events e WHERE e.stream_id = 'job-' || j.id AND e.type = 'job.completed.v1'),
  (SELECT count(*) FROM events e WHERE e.stream_type = 'subscription' AND e.type = 'subscription.credits_reserved.v1' AND e.data->>'jobId' = j.id),
  (SELECT count(*) FROM events e WHERE e.stream_type = 'subscription' AND e.type = 'subscription.credits_consumed.v1' AND e.data->>'jobId' = j.id),
  (SELECT count(*) FROM events e WHERE e.stream_type = 'subscription' AND e.type = 'subscription.credits_released.v1' AND e.data->>'jobId' = j.id),
  (SELECT coalesce(sum(r.attempt), 0) FROM river_job r WHERE r.kind = 'reconstruct' AND r.args->>'jobId' = j.id)
FROM jobs j WHERE j.id = ANY($1)`, jobIDs)
	if err != nil {
		return o, fmt.Errorf("check jobs: %w", err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var (
			id, status                                   string
			queued                                       time.Time
			finished                                     *time.Time
			completions, reserved, consumed, released, n int64
		)
		if err := rows.Scan(&id, &status, &queued, &finished, &completions, &reserved, &consumed, &released, &n); err != nil {
			return o, err
		}
		seen++
		o.Attempts += int(n)
		if o.First.IsZero() || queued.Before(o.First) {
			o.First = queued
		}
		if finished != nil && finished.After(o.Last) {
			o.Last = *finished
		}
		problem := func(format string, args ...any) {
			if len(o.Problems) < 20 {
				o.Problems = append(o.Problems, fmt.Sprintf("job %s: ", id)+fmt.Sprintf(format, args...))
			}
		}
		if completions > 1 {
			o.DoubleCompletions++
			problem("%d completion events", completions)
		}
		switch status {
		case "completed":
			o.Completed++
			if completions == 0 {
				o.CompletedNoEvent++
				problem("completed without a completion event")
			}
			if reserved != 1 || consumed != 1 || released != 0 {
				o.CreditsWrong++
				problem("credits reserved %d, consumed %d, released %d", reserved, consumed, released)
			}
		case "failed":
			o.Failed++
			if reserved != 1 || consumed != 0 || released != 1 {
				o.CreditsWrong++
				problem("failed: credits reserved %d, consumed %d, released %d", reserved, consumed, released)
			}
		default:
			o.Pending++
		}
	}
	if err := rows.Err(); err != nil {
		return o, err
	}
	if seen != len(jobIDs) {
		o.Problems = append(o.Problems, fmt.Sprintf("%d of %d jobs have no row", len(jobIDs)-seen, len(jobIDs)))
		o.Pending += len(jobIDs) - seen
	}
	return o, nil
}

// Wait polls Check until every job has finished or ctx ends; the last
// outcome is returned either way.
func Wait(ctx context.Context, pool *pgxpool.Pool, jobIDs []string, every time.Duration, tick func(Outcome)) (Outcome, error) {
	for {
		o, err := Check(ctx, pool, jobIDs)
		if err == nil {
			if tick != nil {
				tick(o)
			}
			if o.Done() {
				return o, nil
			}
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return o, err
			}
			return o, nil
		case <-time.After(every):
		}
	}
}

// String is a one-line summary.
func (o Outcome) String() string {
	s := fmt.Sprintf("jobs %d: completed %d, failed %d, lost %d; double completions %d, credit errors %d, River attempts %d",
		o.Jobs, o.Completed, o.Failed, o.Pending, o.DoubleCompletions, o.CreditsWrong, o.Attempts)
	if len(o.Problems) > 0 {
		s += "\n  " + strings.Join(o.Problems, "\n  ")
	}
	return s
}
