package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/photo3d/photo3d/internal/pgdb"
)

// rollupSQL rebuilds one UTC day of shopper_days from the raw rows: per
// (owner, publication, viewer) what they did, with the dimensions of their
// first view that day (or of any row when the view was the day before), and
// what happened before their first click.
const rollupSQL = `
WITH ev AS (
    SELECT * FROM shopper_events WHERE at >= $2 AND at < $3
), fc AS (
    SELECT user_id, publication_id, viewer, min(at) AS first_click FROM ev WHERE kind = 'click' GROUP BY 1, 2, 3
), fv AS (
    SELECT DISTINCT ON (user_id, publication_id, viewer) user_id, publication_id, viewer, product_id, device, source, region
    FROM ev WHERE kind = 'view' ORDER BY user_id, publication_id, viewer, at
)
INSERT INTO shopper_days (user_id, day, publication_id, viewer, product_id, device, source, region, counted, interacted,
    visible_ms, hotspots, variants, variant_changed, ar, fullscreen, clicks, platforms,
    ar_before_click, variant_before_click, zoom_before_click, hotspots_before_click)
SELECT e.user_id, $1::date, e.publication_id, e.viewer,
    coalesce(min(fv.product_id), max(e.product_id)), coalesce(min(fv.device), max(e.device)),
    coalesce(min(fv.source), max(e.source)), coalesce(min(fv.region), max(e.region)),
    bool_or(e.kind = 'view' AND e.counted), bool_or(e.kind = 'interact'),
    coalesce(sum(e.ms) FILTER (WHERE e.kind = 'visible'), 0),
    coalesce(array_agg(DISTINCT e.hotspot) FILTER (WHERE e.kind = 'hotspot'), '{}'),
    coalesce(array_agg(DISTINCT e.variant) FILTER (WHERE e.kind IN ('view', 'variant') AND e.variant <> ''), '{}'),
    bool_or(e.kind = 'variant'), bool_or(e.kind = 'ar'), bool_or(e.kind = 'fullscreen'),
    count(*) FILTER (WHERE e.kind = 'click'),
    coalesce(array_agg(DISTINCT e.platform) FILTER (WHERE e.kind = 'click' AND e.platform <> ''), '{}'),
    coalesce(bool_or(e.kind = 'ar' AND e.at < fc.first_click), false),
    coalesce(bool_or(e.kind = 'variant' AND e.at < fc.first_click), false),
    coalesce(bool_or(e.kind = 'interact' AND e.at < fc.first_click), false),
    coalesce(array_agg(DISTINCT e.hotspot) FILTER (WHERE e.kind = 'hotspot' AND e.at < fc.first_click), '{}')
FROM ev e
LEFT JOIN fc ON fc.user_id = e.user_id AND fc.publication_id = e.publication_id AND fc.viewer = e.viewer
LEFT JOIN fv ON fv.user_id = e.user_id AND fv.publication_id = e.publication_id AND fv.viewer = e.viewer
GROUP BY e.user_id, e.publication_id, e.viewer`

// Rollup recomputes one UTC day of shopper_days from shopper_events in one
// transaction: the day's rows are deleted and rebuilt, so running it again,
// or replaying any day whose raw rows are still kept, gives the same rows.
func Rollup(ctx context.Context, db pgdb.Beginner, day time.Time) (int64, error) {
	day = day.UTC().Truncate(24 * time.Hour)
	var n int64
	err := pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		// One rollup of a day at a time across workers.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('shopper_days'), $1)`, int32(day.Unix()/86400)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM shopper_days WHERE day = $1`, day); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, rollupSQL, day, day, day.Add(24*time.Hour))
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		if err := buildCells(ctx, tx, day); err != nil {
			return err
		}
		var raw int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM shopper_events WHERE at >= $1 AND at < $2`, day, day.Add(24*time.Hour)).Scan(&raw); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO shopper_rollup_days (day, raw_rows, computed_at, cell_filters) VALUES ($1, $2, now(), $3)
			ON CONFLICT (day) DO UPDATE SET raw_rows = EXCLUDED.raw_rows, computed_at = EXCLUDED.computed_at,
				cell_filters = EXCLUDED.cell_filters`, day, raw, MaxCellFilters)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("roll up shopper day %s: %w", day.Format(time.DateOnly), err)
	}
	return n, nil
}

// RollupInterval is how often the worker recomputes today and yesterday:
// the dashboard trails the shoppers by at most this plus one flush.
const RollupInterval = time.Minute

// RollupArgs is the periodic River job keeping shopper_days and the
// partitions up to date.
type RollupArgs struct{}

// Kind implements river.JobArgs.
func (RollupArgs) Kind() string { return "analytics_rollup" }

// RollupWorker creates the next days' partitions, drops raw days past the
// retention and recomputes today and yesterday (late batches and clicks
// after midnight land in yesterday).
type RollupWorker struct {
	river.WorkerDefaults[RollupArgs]
	DB        *pgxpool.Pool
	Retention time.Duration
	Logger    *slog.Logger
	Now       func() time.Time
}

// PeriodicRollup schedules the worker every RollupInterval (and at start).
func PeriodicRollup(every time.Duration) *river.PeriodicJob {
	if every <= 0 {
		every = RollupInterval
	}
	return river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) { return RollupArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// Work runs one upkeep pass.
func (w *RollupWorker) Work(ctx context.Context, _ *river.Job[RollupArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	today := now().UTC().Truncate(24 * time.Hour)
	if err := EnsurePartitions(ctx, w.DB, today.Add(-24*time.Hour), today.Add(2*24*time.Hour)); err != nil {
		return err
	}
	retention := w.Retention
	if retention <= 0 {
		retention = DefaultRetention
	}
	dropped, err := DropPartitionsBefore(ctx, w.DB, today.Add(-retention))
	if err != nil {
		return err
	}
	if len(dropped) > 0 && w.Logger != nil {
		w.Logger.Info("shopper events past retention dropped", "partitions", dropped)
	}
	for _, d := range []time.Time{today.Add(-24 * time.Hour), today} {
		if _, err := Rollup(ctx, w.DB, d); err != nil {
			return err
		}
	}
	upgraded, err := UpgradeStaleCells(ctx, w.DB, StaleDaysPerPass)
	if err != nil {
		return err
	}
	if upgraded > 0 && w.Logger != nil {
		w.Logger.Info("analytics day cells rebuilt with the current definitions", "days", upgraded)
	}
	return nil
}

// StaleDaysPerPass bounds how many days of cells counted with older
// definitions one upkeep pass rebuilds: after a deploy that changes
// cellVersion the cells catch up within minutes (90 days in 13 passes)
// without one long pass holding the periodic job, and no operator has to
// remember bin/worker replay analytics. Until then the exact path answers.
const StaleDaysPerPass = 7

// UpgradeStaleCells rebuilds, newest first, up to limit days whose cells
// were encoded with an older cellVersion (the version is a cell's first
// byte). Cells are built from the day's shopper_days rows, so a day whose
// raw events are past retention is upgraded too and loses nothing. It
// returns how many days it rebuilt.
func UpgradeStaleCells(ctx context.Context, db *pgxpool.Pool, limit int) (int, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT day FROM shopper_day_cells WHERE get_byte(cell, 0) <> $1 ORDER BY day DESC LIMIT $2`,
		cellVersion, limit)
	if err != nil {
		return 0, err
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return 0, err
	}
	for _, d := range days {
		day := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
		err := pgdb.WithTx(ctx, db, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('shopper_days'), $1)`, int32(day.Unix()/86400)); err != nil {
				return err
			}
			if err := buildCells(ctx, tx, day); err != nil {
				return err
			}
			// The rebuilt cells hold every filter combination.
			_, err := tx.Exec(ctx, `UPDATE shopper_rollup_days SET cell_filters = $2 WHERE day = $1`, day, MaxCellFilters)
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("rebuild day cells %s: %w", day.Format(time.DateOnly), err)
		}
	}
	return len(days), nil
}

// RollupAll recomputes every day that still has raw rows (worker replay
// analytics): the rollup is a pure function of the raw rows.
func RollupAll(ctx context.Context, db *pgxpool.Pool) (int, error) {
	// Newest first: the dashboard's default ranges are back soonest.
	rows, err := db.Query(ctx, `SELECT DISTINCT date_trunc('day', at AT TIME ZONE 'UTC') AS d FROM shopper_events ORDER BY d DESC`)
	if err != nil {
		return 0, err
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return 0, err
	}
	for _, d := range days {
		if _, err := Rollup(ctx, db, time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)); err != nil {
			return 0, err
		}
	}
	return len(days), nil
}
