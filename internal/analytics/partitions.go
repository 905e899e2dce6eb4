package analytics

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// DefaultRetention is how long raw shopper events are kept (env
// ANALYTICS_RETENTION_DAYS). The shopper_days rollup is kept regardless:
// dropping a raw day only means it can no longer be recomputed.
const DefaultRetention = 90 * 24 * time.Hour

// PartitionName is the day partition holding events at t (UTC).
func PartitionName(t time.Time) string {
	return "shopper_events_" + t.UTC().Format("20060102")
}

var partitionPattern = regexp.MustCompile(`^shopper_events_(\d{8})$`)

// EnsurePartitions creates the day partitions from..to (inclusive, UTC days)
// that do not exist yet. Concurrent callers are safe: the api and the worker
// both create the coming days at start-up, and IF NOT EXISTS alone lets the
// loser of that race fail (the api then refused to start), so a partition
// that a concurrent caller created meanwhile counts as created.
func EnsurePartitions(ctx context.Context, db pgdb.Querier, from, to time.Time) error {
	from = from.UTC().Truncate(24 * time.Hour)
	for d := from; !d.After(to.UTC()); d = d.Add(24 * time.Hour) {
		q := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF shopper_events FOR VALUES FROM ('%s') TO ('%s')`,
			pgx.Identifier{PartitionName(d)}.Sanitize(), d.Format(time.RFC3339), d.Add(24*time.Hour).Format(time.RFC3339))
		if _, err := db.Exec(ctx, q); err != nil && !pgdb.IsDuplicateRelation(err) {
			return fmt.Errorf("create partition %s: %w", PartitionName(d), err)
		}
	}
	return nil
}

// EnsurePartitionsFor creates the partitions rows need.
func EnsurePartitionsFor(ctx context.Context, db pgdb.Querier, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	lo, hi := rows[0].At, rows[0].At
	for _, r := range rows {
		lo, hi = minTime(lo, r.At), maxTime(hi, r.At)
	}
	return EnsurePartitions(ctx, db, lo, hi)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// DropPartitionsBefore drops the day partitions wholly older than cutoff and
// returns their names. Dropping a partition is instant and leaves no bloat,
// which is why the table is partitioned by day.
func DropPartitionsBefore(ctx context.Context, db pgdb.Querier, cutoff time.Time) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT c.relname FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
		WHERE p.relname = 'shopper_events'`)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	cut := cutoff.UTC().Truncate(24 * time.Hour)
	var dropped []string
	for _, n := range names {
		m := partitionPattern.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		day, err := time.Parse("20060102", m[1])
		if err != nil || day.Add(24*time.Hour).After(cut) {
			continue
		}
		if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{n}.Sanitize()); err != nil {
			return dropped, fmt.Errorf("drop partition %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}
