package analytics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/dbtest"
)

// Rows written around midnight land in their own day partitions (created on
// demand: rollover), the rollup recomputed from them gives the KPIs the
// definitions give for the same shoppers, running it again or replaying
// every day changes nothing, and retention drops whole days.
func TestStoreRollupReplayAndRetention(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	midnight := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	ev := func(at time.Time, viewer, kind string, mod ...func(*analytics.Row)) analytics.Row {
		r := analytics.Row{At: at, UserID: "owner-1", PublicationID: "pub-1", ProductID: "prod-1", Viewer: viewer, Kind: kind,
			Device: "mobile", Source: "instagram.com", Region: "IN"}
		for _, m := range mod {
			m(&r)
		}
		return r
	}
	counted := func(r *analytics.Row) { r.Counted = true }
	before, after := midnight.Add(-time.Minute), midnight.Add(time.Minute)
	rows := []analytics.Row{
		// A: engaged (hotspot) late on the 19th, clicks after midnight with AR before.
		ev(before, "viewer-a", analytics.KindView, counted),
		ev(before.Add(time.Second), "viewer-a", analytics.KindInteract),
		ev(before.Add(2*time.Second), "viewer-a", analytics.KindHotspot, func(r *analytics.Row) { r.Hotspot = "h1" }),
		ev(after, "viewer-a", analytics.KindAR, func(r *analytics.Row) { r.Mode = "webxr" }),
		ev(after.Add(time.Second), "viewer-a", analytics.KindClick, func(r *analytics.Row) { r.Platform = "Amazon" }),
		// B: interacted and 12 s visible on the 20th.
		ev(after, "viewer-b", analytics.KindView, counted, func(r *analytics.Row) { r.Device, r.Region = "desktop", "US" }),
		ev(after, "viewer-b", analytics.KindInteract),
		ev(after.Add(5*time.Second), "viewer-b", analytics.KindVisible, func(r *analytics.Row) { r.Ms = 6000 }),
		ev(after.Add(10*time.Second), "viewer-b", analytics.KindVisible, func(r *analytics.Row) { r.Ms = 6000 }),
		// C: a view that was not counted (repeat or ceiling): not a shopper.
		ev(after, "viewer-c", analytics.KindView, func(r *analytics.Row) { r.Device = "desktop" }),
		ev(after, "viewer-c", analytics.KindClick),
		// Another merchant's shopper never shows up in owner-1's numbers.
		ev(after, "viewer-d", analytics.KindView, counted, func(r *analytics.Row) { r.UserID = "owner-2" }),
	}
	require.NoError(t, w.Add(rows...))
	require.NoError(t, w.Close(ctx), "partitions for both days are created on demand")
	require.Zero(t, w.Pending())

	var parts []string
	r, err := db.Pool.Query(ctx, `SELECT DISTINCT tableoid::regclass::text FROM shopper_events ORDER BY 1`)
	require.NoError(t, err)
	for r.Next() {
		var s string
		require.NoError(t, r.Scan(&s))
		parts = append(parts, s)
	}
	require.Equal(t, []string{"shopper_events_20261119", "shopper_events_20261120"}, parts)

	for _, d := range []time.Time{midnight.Add(-24 * time.Hour), midnight} {
		_, err := analytics.Rollup(ctx, db.Pool, d)
		require.NoError(t, err)
	}
	rd := &analytics.Reader{DB: db.Pool}
	f := analytics.Filters{From: midnight.Add(-24 * time.Hour), To: midnight}
	got, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)

	// The same shoppers written down by hand and put through the definitions.
	want := analytics.BuildPayload(analytics.Compute([]analytics.Shopper{
		{Viewer: "viewer-a", Product: "prod-1", Device: "mobile", Source: "instagram.com", Region: "IN", Counted: true, Turned: true,
			Hotspots: []string{"h1"}, AR: true, Clicks: 1, Platforms: []string{"Amazon"}, ARBeforeClick: true},
		{Viewer: "viewer-b", Product: "prod-1", Device: "desktop", Source: "instagram.com", Region: "US", Counted: true, Turned: true, VisibleMs: 12000},
	}), analytics.TierPremium)
	require.Equal(t, want, got)
	require.EqualValues(t, 2, got.KPIs.Shoppers)
	require.EqualValues(t, 2, got.KPIs.Engaged)
	require.EqualValues(t, 1, got.KPIs.AddsFrom3D)
	require.EqualValues(t, 1, got.Charts.ProgressLadder.Steps[3].Value, "high-intent: A launched AR")

	// Idempotent and replayable: again, and from scratch, the same answer.
	_, err = analytics.Rollup(ctx, db.Pool, midnight)
	require.NoError(t, err)
	_, err = db.Pool.Exec(ctx, `TRUNCATE shopper_days`)
	require.NoError(t, err)
	days, err := analytics.RollupAll(ctx, db.Pool)
	require.NoError(t, err)
	require.Equal(t, 2, days)
	again, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, got, again)

	// Filters: device narrows the shoppers.
	f.Device = "desktop"
	desk, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.EqualValues(t, 1, desk.KPIs.Shoppers)

	// Retention: the 19th goes, the 20th stays; the rollup is kept.
	dropped, err := analytics.DropPartitionsBefore(ctx, db.Pool, midnight)
	require.NoError(t, err)
	require.Equal(t, []string{"shopper_events_20261119"}, dropped)
	var n int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM shopper_events`).Scan(&n))
	require.Equal(t, 9, n)
	again, err = rd.Report(ctx, "owner-1", analytics.Filters{From: midnight.Add(-24 * time.Hour), To: midnight}, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, got, again, "the rollup outlives the raw rows")
}

// The dashboard's SQL counting gives exactly what the Go definitions give on
// the same rolled-up shoppers, for random traffic and every filter.
func TestReportSQLMatchesDefinitions(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 14))
	kinds := []string{analytics.KindInteract, analytics.KindVisible, analytics.KindHotspot, analytics.KindVariant, analytics.KindAR, analytics.KindClick, analytics.KindFullscreen}
	for i := range 400 {
		viewer := fmt.Sprintf("viewer-%04d", i)
		region := []string{"IN", "US", "DE", "GB"}[i%4]
		device := []string{"mobile", "desktop", "tablet"}[rng.IntN(3)]
		for _, prod := range []string{"prod-1", "prod-2"}[:1+rng.IntN(2)] {
			for d := range 1 + rng.IntN(2) {
				at := day.Add(time.Duration(d)*24*time.Hour + time.Duration(rng.IntN(80000))*time.Second)
				base := analytics.Row{UserID: "owner-1", PublicationID: "pub-" + prod, ProductID: prod, Viewer: viewer,
					Device: device, Source: "direct", Region: region}
				view := base
				view.At, view.Kind, view.Counted, view.Variant = at, analytics.KindView, rng.IntN(10) > 0, fmt.Sprintf("v%d", 1+rng.IntN(3))
				require.NoError(t, w.Add(view))
				for e := range rng.IntN(8) {
					r := base
					r.At, r.Kind = at.Add(time.Duration(e+1)*time.Second), kinds[rng.IntN(len(kinds))]
					switch r.Kind {
					case analytics.KindVisible:
						r.Ms = int32(1000 + rng.IntN(9000))
					case analytics.KindHotspot:
						r.Hotspot = fmt.Sprintf("h%d", rng.IntN(3))
					case analytics.KindVariant:
						r.Variant = fmt.Sprintf("v%d", 1+rng.IntN(3))
					case analytics.KindAR:
						r.Mode = "webxr"
					case analytics.KindClick:
						r.Platform = "Etsy"
					}
					require.NoError(t, w.Add(r))
				}
			}
		}
	}
	require.NoError(t, w.Close(ctx))
	for d := range 2 {
		_, err := analytics.Rollup(ctx, db.Pool, day.Add(time.Duration(d)*24*time.Hour))
		require.NoError(t, err)
	}
	rd := &analytics.Reader{DB: db.Pool, ExactBelow: -1} // the exact path, whatever the size
	base := analytics.Filters{From: day, To: day.Add(24 * time.Hour)}
	for _, f := range []analytics.Filters{base, {From: day, To: day}, {From: base.From, To: base.To, SKU: "prod-2"},
		{From: base.From, To: base.To, Device: "mobile"}, {From: base.From, To: base.To, Region: "DE"}} {
		sql, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
		require.NoError(t, err)
		ref, err := rd.ReportFromRows(ctx, "owner-1", f, analytics.TierPremium)
		require.NoError(t, err)
		require.Equal(t, ref, sql, "%+v", f)
		require.Greater(t, sql.KPIs.Shoppers, int64(0))
	}
}

// Top Products: the owner's live products ranked by engagement rate over 30
// days; links to things that are not the owner's live products are left out.
func TestTopProducts(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, p := range [][3]string{{"prod-a", "owner-1", "Armchair"}, {"prod-b", "owner-1", "Bench"}, {"prod-x", "owner-2", "Not yours"}} {
		_, err := db.Pool.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, created_at, updated_at)
			VALUES ($1, $2, 'cat', $3, 'photo', now(), now())`, p[0], p[1], p[2])
		require.NoError(t, err)
	}
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	add := func(prod, viewer string, engaged bool) {
		r := analytics.Row{At: now.Add(-time.Hour), UserID: "owner-1", PublicationID: "pub-" + prod, ProductID: prod, Viewer: viewer,
			Kind: analytics.KindView, Counted: true}
		require.NoError(t, w.Add(r))
		if engaged {
			r.Kind, r.Counted, r.Hotspot = analytics.KindHotspot, false, "h1"
			require.NoError(t, w.Add(r))
		}
	}
	for i := range 4 {
		add("prod-a", fmt.Sprintf("a%d", i), i < 1) // 25 %
		add("prod-b", fmt.Sprintf("b%d", i), i < 3) // 75 %
		add("prod-x", fmt.Sprintf("x%d", i), true)  // another owner's product id in owner-1's rows: not shown
		add("blueprint-1", fmt.Sprintf("c%d", i), true)
	}
	require.NoError(t, w.Close(ctx))
	_, err := analytics.Rollup(ctx, db.Pool, now)
	require.NoError(t, err)
	top, err := (&analytics.Reader{DB: db.Pool}).TopProducts(ctx, "owner-1", now, 5)
	require.NoError(t, err)
	require.Equal(t, []analytics.TopProduct{
		{ProductID: "prod-b", Name: "Bench", Shoppers: 4, Engagement: 75},
		{ProductID: "prod-a", Name: "Armchair", Shoppers: 4, Engagement: 25},
	}, top)
}
