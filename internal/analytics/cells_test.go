package analytics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/dbtest"
)

// sketchTraffic writes n viewers over three days: every viewer has a
// counted view on one to three days, and does everything it does on one
// of them (its active day), so the per-day definitions of the sketch path
// and the per-range definitions of the exact path describe the same
// shoppers and only the sketch error separates the two answers.
func sketchTraffic(t *testing.T, db *dbtest.DB, day time.Time, n int) {
	t.Helper()
	ctx := context.Background()
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	rng := rand.New(rand.NewPCG(14, 19))
	for i := range n {
		viewer := fmt.Sprintf("viewer-%05d", i)
		prod := []string{"prod-1", "prod-2", "prod-3"}[rng.IntN(3)]
		base := analytics.Row{UserID: "owner-1", PublicationID: "pub-" + prod, ProductID: prod, Viewer: viewer,
			Device: []string{"mobile", "desktop", "tablet"}[i%3], Source: []string{"direct", "instagram.com"}[i%2],
			Region: []string{"IN", "US", "DE", "GB", "FR"}[i%5]}
		ndays := 1 + rng.IntN(3)
		active := rng.IntN(ndays)
		for d := range ndays {
			at := day.Add(time.Duration(d)*24*time.Hour + time.Duration(rng.IntN(70000))*time.Second)
			view := base
			view.At, view.Kind, view.Counted, view.Variant = at, analytics.KindView, true, fmt.Sprintf("v%d", 1+rng.IntN(2))
			require.NoError(t, w.Add(view))
			if d != active {
				continue
			}
			step := func(kind string, mod func(*analytics.Row)) {
				r := base
				at = at.Add(time.Second)
				r.At, r.Kind = at, kind
				if mod != nil {
					mod(&r)
				}
				require.NoError(t, w.Add(r))
			}
			if rng.IntN(10) < 7 {
				step(analytics.KindInteract, nil)
			}
			step(analytics.KindVisible, func(r *analytics.Row) { r.Ms = int32(4000 + rng.IntN(10000)) })
			if rng.IntN(10) < 3 {
				step(analytics.KindHotspot, func(r *analytics.Row) { r.Hotspot = fmt.Sprintf("h%d", rng.IntN(3)) })
			}
			if rng.IntN(10) < 2 {
				step(analytics.KindVariant, func(r *analytics.Row) { r.Variant = "v2" })
			}
			if rng.IntN(10) < 1 {
				step(analytics.KindAR, func(r *analytics.Row) { r.Mode = "webxr" })
			}
			if rng.IntN(100) < 15 {
				step(analytics.KindClick, func(r *analytics.Row) { r.Platform = []string{"Amazon", "Etsy"}[rng.IntN(2)] })
			}
		}
	}
	require.NoError(t, w.Close(ctx))
	for d := range 3 {
		_, err := analytics.Rollup(ctx, db.Pool, day.Add(time.Duration(d)*24*time.Hour))
		require.NoError(t, err)
	}
}

// within says got is within tol (relative) of want, the documented sketch
// error (README: ±5 %, three standard errors at 2^12 registers).
func within(t *testing.T, want, got int64, tol float64, what string) {
	t.Helper()
	diff := float64(got - want)
	require.LessOrEqual(t, diff*diff, tol*tol*float64(want*want), "%s: exact %d, sketch %d", what, want, got)
}

// The sketch path (day cells) agrees with the exact path within the
// documented error on generated traffic, for no filter, one, two, three
// and four filters; additive numbers (clicks, adds from 3D, product views) are
// equal; the payload says which path answered.
func TestSketchPathAgreesWithExactPath(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	sketchTraffic(t, db, day, 6000)
	exact := &analytics.Reader{DB: db.Pool, ExactBelow: -1}
	sketch := &analytics.Reader{DB: db.Pool, ExactBelow: 1}
	all := analytics.Filters{From: day, To: day.Add(2 * 24 * time.Hour)}
	for _, f := range []analytics.Filters{all, {From: day, To: day.Add(24 * time.Hour)},
		{From: all.From, To: all.To, SKU: "prod-2"}, {From: all.From, To: all.To, Device: "mobile", Region: "US"},
		// The four triples and all four filters: their own (sparse) cells.
		{From: all.From, To: all.To, SKU: "prod-2", Device: "mobile", Source: "direct"},
		{From: all.From, To: all.To, SKU: "prod-1", Device: "tablet", Region: "DE"},
		{From: all.From, To: all.To, SKU: "prod-3", Source: "direct", Region: "GB"},
		{From: all.From, To: all.To, Device: "desktop", Source: "instagram.com", Region: "US"},
		{From: all.From, To: all.To, SKU: "prod-1", Device: "mobile", Source: "direct", Region: "IN"}} {
		e, err := exact.Report(ctx, "owner-1", f, analytics.TierPremium)
		require.NoError(t, err)
		s, err := sketch.Report(ctx, "owner-1", f, analytics.TierPremium)
		require.NoError(t, err)
		require.False(t, e.Approximate)
		require.True(t, s.Approximate, "%+v", f)
		// Three or four filters leave 1/30 to 1/90 of the viewers (i%30 picks
		// device, source and region): still enough for a check.
		require.Greater(t, e.KPIs.Shoppers, int64(50), "%+v", f)
		for i, st := range e.Charts.ProgressLadder.Steps {
			tol := 0.05
			if st.Value < 300 {
				tol = 0.15 // few shoppers: the same absolute error is a larger share
			}
			within(t, st.Value, s.Charts.ProgressLadder.Steps[i].Value, tol, fmt.Sprintf("%s %+v", st.Key, f))
		}
		within(t, e.KPIs.Opportunities, s.KPIs.Opportunities, 0.1, "opportunities")
		if e.KPIs.EngagementUplift != nil {
			tol := 2.0
			if e.KPIs.Shoppers < 300 {
				tol = 5.0 // one shopper more or less moves a rate over ~100 shoppers by 1 pp
			}
			require.InDelta(t, *e.KPIs.EngagementUplift, *s.KPIs.EngagementUplift, tol, "engagement uplift, pp, %+v", f)
		}
		within(t, e.KPIs.AddsFrom3D, s.KPIs.AddsFrom3D, 0.15, "adds from 3D")
		require.Equal(t, s.KPIs.AddsFrom3D, s.Charts.ProgressLadder.Steps[4].Value, "ATC is Adds from 3D")
		for i := 1; i < len(s.Charts.ProgressLadder.Steps); i++ {
			require.LessOrEqual(t, s.Charts.ProgressLadder.Steps[i].Value, s.Charts.ProgressLadder.Steps[i-1].Value, "the sketch ladder is a funnel")
		}
		// Everyone does everything on one day here, so the per-day feature
		// counts of the cells are the per-shopper counts of the exact path.
		require.Equal(t, e.Charts.Snapshot.TopFeaturesAdding, s.Charts.Snapshot.TopFeaturesAdding)
	}

	pe, err := exact.Product(ctx, "owner-1", "prod-1", all)
	require.NoError(t, err)
	ps, err := sketch.Product(ctx, "owner-1", "prod-1", all)
	require.NoError(t, err)
	require.True(t, ps.Approximate)
	require.Equal(t, pe.Views, ps.Views, "views are counted shopper-days, added up exactly")
	require.Equal(t, pe.Clicks, ps.Clicks)
	within(t, pe.Shoppers, ps.Shoppers, 0.05, "product shoppers")
	// The product page with the other three filters set reads the 4-filter cells.
	three := analytics.Filters{From: all.From, To: all.To, Device: "mobile", Source: "direct", Region: "IN"}
	pe, err = exact.Product(ctx, "owner-1", "prod-1", three)
	require.NoError(t, err)
	ps3, err := sketch.Product(ctx, "owner-1", "prod-1", three)
	require.NoError(t, err)
	require.True(t, ps3.Approximate)
	require.Equal(t, pe.Views, ps3.Views)
	require.Equal(t, pe.Clicks, ps3.Clicks)
	within(t, pe.Shoppers, ps3.Shoppers, 0.15, "product shoppers, 4 filters")

	// Top Products: the owner's live products, shoppers within the error.
	for _, id := range []string{"prod-1", "prod-2", "prod-3"} {
		_, err := db.Pool.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, created_at, updated_at)
			VALUES ($1, 'owner-1', 'cat', $1, 'photo', now(), now())`, id)
		require.NoError(t, err)
	}
	now := day.Add(2*24*time.Hour + 12*time.Hour)
	te, err := exact.TopProducts(ctx, "owner-1", now, 5)
	require.NoError(t, err)
	ts, err := sketch.TopProducts(ctx, "owner-1", now, 5)
	require.NoError(t, err)
	require.Len(t, ts, 3)
	shoppersOf := map[string]int64{}
	for _, p := range te {
		shoppersOf[p.ProductID] = p.Shoppers
	}
	for _, p := range ts {
		within(t, shoppersOf[p.ProductID], p.Shoppers, 0.05, "top product shoppers "+p.ProductID)
	}

	bs, approx, err := sketch.BreakdownsReport(ctx, "owner-1", all)
	require.NoError(t, err)
	require.True(t, approx)
	var devices int64
	for _, b := range bs {
		if b.Dimension == "device" {
			devices += b.Shoppers
		}
	}
	require.EqualValues(t, ps.Views+mustViews(t, sketch, "prod-2", all)+mustViews(t, sketch, "prod-3", all), devices,
		"approximate breakdowns count shopper-days")
}

func mustViews(t *testing.T, rd *analytics.Reader, prod string, f analytics.Filters) int64 {
	t.Helper()
	p, err := rd.Product(context.Background(), "owner-1", prod, f)
	require.NoError(t, err)
	return p.Views
}

// Small merchants get exact numbers with the default threshold, and a
// rebuild of every day from the raw rows (worker replay analytics) gives
// byte-identical day cells.
func TestDayCellsReplayAndExactForSmallRanges(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)
	sketchTraffic(t, db, day, 150)
	dump := func() []string {
		rows, err := db.Pool.Query(ctx, `SELECT user_id || '|' || filter || '|' || day || '|' || shopper_days || '|' || md5(cell)
			FROM shopper_day_cells ORDER BY user_id, filter, day`)
		require.NoError(t, err)
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}
	incremental := dump()
	require.NotEmpty(t, incremental)
	var quads int
	for _, row := range incremental {
		if strings.Count(row, "&") == 3 {
			quads++
		}
	}
	require.Positive(t, quads, "the 4-filter cells are rebuilt too")
	f := analytics.Filters{From: day, To: day.Add(2 * 24 * time.Hour)}
	sketch := &analytics.Reader{DB: db.Pool, ExactBelow: 1}
	before, err := sketch.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)

	_, err = db.Pool.Exec(ctx, `TRUNCATE shopper_days, shopper_day_cells`)
	require.NoError(t, err)
	_, err = analytics.RollupAll(ctx, db.Pool)
	require.NoError(t, err)
	require.Equal(t, incremental, dump(), "replay rebuilds the same cells")
	after, err := sketch.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, before, after)

	// Cells of older definitions (a deploy that raised cellVersion): the
	// range is counted exactly until the worker's upkeep rebuilds them,
	// a bounded number of days per pass, from shopper_days, so even days
	// whose raw events are past retention come back the same.
	_, err = db.Pool.Exec(ctx, `UPDATE shopper_day_cells SET cell = set_byte(cell, 0, 2)`)
	require.NoError(t, err)
	stale, err := sketch.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.False(t, stale.Approximate, "older cells are never summed")
	_, err = db.Pool.Exec(ctx, `DELETE FROM shopper_events`)
	require.NoError(t, err)
	upgraded, err := analytics.UpgradeStaleCells(ctx, db.Pool, 1)
	require.NoError(t, err)
	require.Equal(t, 1, upgraded, "one day per pass when the bound is 1")
	upgraded, err = analytics.UpgradeStaleCells(ctx, db.Pool, analytics.StaleDaysPerPass)
	require.NoError(t, err)
	require.Positive(t, upgraded)
	upgraded, err = analytics.UpgradeStaleCells(ctx, db.Pool, analytics.StaleDaysPerPass)
	require.NoError(t, err)
	require.Zero(t, upgraded, "nothing left to upgrade")
	require.Equal(t, incremental, dump(), "upgraded cells are the current cells")
	after, err = sketch.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, before, after)

	// A day rolled up before the 3- and 4-filter cells existed (migration
	// 0020) lacks them: such a range is counted exactly, never short of it.
	three := analytics.Filters{From: f.From, To: f.To, Device: "mobile", Source: "direct", Region: "IN"}
	p3, err := sketch.Report(ctx, "owner-1", three, analytics.TierPremium)
	require.NoError(t, err)
	require.True(t, p3.Approximate, "3 filters: cells of every day")
	_, err = db.Pool.Exec(ctx, `UPDATE shopper_rollup_days SET cell_filters = 2 WHERE day = $1`, day.Add(24*time.Hour))
	require.NoError(t, err)
	p3, err = sketch.Report(ctx, "owner-1", three, analytics.TierPremium)
	require.NoError(t, err)
	require.False(t, p3.Approximate, "3 filters over a day with pre-0020 cells: exact")
	p2, err := sketch.Report(ctx, "owner-1", analytics.Filters{From: f.From, To: f.To, Device: "mobile", Region: "IN"}, analytics.TierPremium)
	require.NoError(t, err)
	require.True(t, p2.Approximate, "2 filters: every day has their cells")

	rd := &analytics.Reader{DB: db.Pool}
	got, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	ref, err := rd.ReportFromRows(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.False(t, got.Approximate, "150 shoppers are counted exactly")
	require.Equal(t, ref, got)
	require.EqualValues(t, 150, got.KPIs.Shoppers)
}
