package analytics_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/dbtest"
)

// screenTraffic writes n viewers over two days on two named products with
// the behaviours that made the screen contradict itself (merchant walk 4,
// H6): hotspots and variant changes without turning the model, clicks
// without any interaction, several features before one click, AR without
// ten seconds, a shopper on both products, and views that were not counted.
func screenTraffic(t *testing.T, db *dbtest.DB, day time.Time, n int) {
	t.Helper()
	ctx := context.Background()
	for _, p := range [][2]string{{"prod-vase", "Ceramic vase"}, {"prod-chair", "Oak chair"}} {
		_, err := db.Pool.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, created_at, updated_at)
			VALUES ($1, 'owner-1', 'cat', $2, 'photo', now(), now())`, p[0], p[1])
		require.NoError(t, err)
	}
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	rng := rand.New(rand.NewPCG(50, 7))
	for i := range n {
		viewer := fmt.Sprintf("viewer-%05d", i)
		prods := []string{[]string{"prod-vase", "prod-chair"}[i%2]}
		if i%7 == 0 {
			prods = append(prods, "prod-vase") // one shopper, two products (or the same product twice)
		}
		for k, prod := range prods {
			at := day.Add(time.Duration(rng.IntN(2))*24*time.Hour + time.Duration(rng.IntN(80000))*time.Second + time.Duration(k)*time.Minute)
			base := analytics.Row{UserID: "owner-1", PublicationID: "pub-" + prod, ProductID: prod, Viewer: viewer,
				Device: []string{"mobile", "desktop"}[i%2], Source: []string{"direct", "instagram.com", "newsletter"}[i%3],
				Region: []string{"IN", "US", "DE", "ZZ"}[i%4]}
			view := base
			view.At, view.Kind, view.Counted, view.Variant = at, analytics.KindView, rng.IntN(20) > 0, "v1"
			require.NoError(t, w.Add(view))
			step := func(kind string, mod func(*analytics.Row)) {
				r := base
				at = at.Add(time.Second)
				r.At, r.Kind = at, kind
				if mod != nil {
					mod(&r)
				}
				require.NoError(t, w.Add(r))
			}
			if rng.IntN(10) < 6 {
				step(analytics.KindInteract, nil)
			}
			if rng.IntN(10) < 7 {
				step(analytics.KindVisible, func(r *analytics.Row) { r.Ms = int32(2000 + rng.IntN(14000)) })
			}
			if rng.IntN(10) < 3 { // with or without turning the model first
				step(analytics.KindHotspot, func(r *analytics.Row) { r.Hotspot = fmt.Sprintf("h%d", 1+rng.IntN(3)) })
			}
			if rng.IntN(10) < 3 {
				step(analytics.KindVariant, func(r *analytics.Row) { r.Variant = "v2" })
			}
			if rng.IntN(10) < 2 {
				step(analytics.KindAR, func(r *analytics.Row) { r.Mode = "webxr" })
			}
			for range rng.IntN(3) * rng.IntN(2) { // none, one or two clicks; some without any interaction
				step(analytics.KindClick, func(r *analytics.Row) { r.Platform = []string{"Amazon", "Etsy"}[rng.IntN(2)] })
			}
		}
	}
	require.NoError(t, w.Close(ctx))
	for d := range 2 {
		_, err := analytics.Rollup(ctx, db.Pool, day.Add(time.Duration(d)*24*time.Hour))
		require.NoError(t, err)
	}
}

// requireScreenAgrees checks that the numbers of one Business Overview
// payload agree with each other as their definitions say.
func requireScreenAgrees(t *testing.T, p analytics.Payload, what string) {
	t.Helper()
	steps := p.Charts.ProgressLadder.Steps
	require.Len(t, steps, 5, what)
	for i := 1; i < len(steps); i++ {
		require.LessOrEqual(t, steps[i].Value, steps[i-1].Value, "%s: %s ≤ %s", what, steps[i].Key, steps[i-1].Key)
	}
	k := p.KPIs
	require.Equal(t, k.Shoppers, steps[0].Value, "%s: Viewed is Shoppers", what)
	require.Equal(t, k.Engaged, steps[2].Value, "%s: the Engaged step is the Engaged KPI", what)
	require.Equal(t, k.AddsFrom3D, steps[4].Value, "%s: ATC is Adds from 3D", what)
	require.Equal(t, k.Engaged, k.Opportunities+k.AddsFrom3D, "%s: Engaged = Engaged, not added + Adds from 3D", what)
	if k.AddsPerEngaged != nil {
		require.InDelta(t, math.Round(float64(k.AddsFrom3D)/float64(k.Engaged)*1000)/10, *k.AddsPerEngaged, 1e-9,
			"%s: Adds per engaged is ATC ÷ Engaged in %%", what)
		require.LessOrEqual(t, *k.EngagementUplift, *k.AddsPerEngaged+0.05, "%s: the uplift is the engaged rate minus another rate", what)
	}
	if f := p.Charts.Snapshot.TopFeaturesAdding; len(f) > 0 {
		var tenths int64
		for _, x := range f {
			require.Positive(t, x.Share, what)
			tenths += int64(math.Round(x.Share * 10))
		}
		require.EqualValues(t, 1000, tenths, "%s: Top Features add up to 100.0 %%: %+v", what, f)
	}
	for _, r := range p.Charts.Snapshot.TopRegions {
		require.LessOrEqual(t, r.EngagedPer1k, 1000.0, what)
	}
	// Every number on the screen has its label, definition and unit.
	keys := []string{"shoppers", "engaged", "opportunities", "adds_from_3d", "engagement_uplift", "adds_per_engaged",
		"best_variant_uplift", "geo_opportunity_index", analytics.DefTopRegions, analytics.DefTopFeatures}
	for _, s := range steps {
		keys = append(keys, s.Key)
	}
	for _, key := range keys {
		d, ok := p.Definitions[key]
		require.True(t, ok, "%s: no definition of %s", what, key)
		require.NotEmpty(t, d.Label, key)
		require.NotEmpty(t, d.Definition, key)
		require.NotEmpty(t, d.Unit, key)
	}
}

// The screen's numbers agree with each other (each ladder step at most the
// one above it, ATC = Adds from 3D, Engaged = not added + added, Adds per
// engaged = ATC ÷ Engaged, Top Features = 100 %) on traffic that broke them
// before, on the exact path and on the sketch path, for every filter; and
// the CSV export carries the same numbers with product names.
func TestScreenNumbersAgreeAndCSVMatches(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	screenTraffic(t, db, day, 400)
	all := analytics.Filters{From: day, To: day.Add(24 * time.Hour)}
	for _, rd := range []*analytics.Reader{{DB: db.Pool, ExactBelow: -1}, {DB: db.Pool, ExactBelow: 1}} {
		path := map[bool]string{false: "exact", true: "sketch"}[rd.ExactBelow > 0]
		for _, f := range []analytics.Filters{all, {From: day, To: day}, {From: all.From, To: all.To, SKU: "prod-chair"},
			{From: all.From, To: all.To, Device: "mobile"}, {From: all.From, To: all.To, Region: "ZZ", Source: "direct"}} {
			what := fmt.Sprintf("%s %+v", path, f)
			p, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
			require.NoError(t, err)
			require.Equal(t, rd.ExactBelow > 0, p.Approximate, what)
			require.Positive(t, p.KPIs.AddsFrom3D, what)
			requireScreenAgrees(t, p, what)
		}

		// The CSV: the screen's numbers, first for all products, then for
		// each product as the screen shows it with that product picked.
		rows, err := rd.ExportRows(ctx, "owner-1", all)
		require.NoError(t, err)
		require.Equal(t, []string{"Product", "Product ID", "From", "To", "Shoppers", "Interacted", "Engaged", "High-Intent",
			"ATC (Adds from 3D)", "Engaged, not added", "Buy-link clicks", "Approximate"}, rows[0])
		require.Len(t, rows, 4, "all products, then each product")
		require.Equal(t, []string{analytics.AllProducts, ""}, rows[1][:2])
		require.Equal(t, []string{"Ceramic vase", "prod-vase"}, rows[2][:2], "named, the id in its own column, by name")
		require.Equal(t, []string{"Oak chair", "prod-chair"}, rows[3][:2])
		for _, row := range rows[1:] {
			f := all
			f.SKU = row[1]
			p, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
			require.NoError(t, err)
			s := p.Charts.ProgressLadder.Steps
			want := []int64{p.KPIs.Shoppers, s[1].Value, p.KPIs.Engaged, s[3].Value, p.KPIs.AddsFrom3D, p.KPIs.Opportunities}
			var got []int64
			for _, c := range row[4:10] {
				n, err := strconv.ParseInt(c, 10, 64)
				require.NoError(t, err)
				got = append(got, n)
			}
			require.Equal(t, want, got, "%s CSV row %s", path, row[0])
			require.Equal(t, []string{"2026-11-24", "2026-11-25", strconv.FormatBool(p.Approximate)}, []string{row[2], row[3], row[11]})
		}
		// With a product picked, the file holds that product only.
		one, err := rd.ExportRows(ctx, "owner-1", analytics.Filters{From: all.From, To: all.To, SKU: "prod-vase"})
		require.NoError(t, err)
		require.Len(t, one, 2)
		require.Equal(t, rows[2], one[1])
	}

	// Clicks are every buy-link click: the exact path and the cells agree.
	e, err := (&analytics.Reader{DB: db.Pool, ExactBelow: -1}).ExportRows(ctx, "owner-1", all)
	require.NoError(t, err)
	s, err := (&analytics.Reader{DB: db.Pool, ExactBelow: 1}).ExportRows(ctx, "owner-1", all)
	require.NoError(t, err)
	require.Equal(t, e[1][10], s[1][10])
	var clicks string
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT sum(clicks)::text FROM shopper_days WHERE user_id = 'owner-1' AND counted`).Scan(&clicks))
	require.Equal(t, clicks, e[1][10])
}

// A subject that is not a product of the owner is named as what it is.
func TestExportNamesEveryRow(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	_, err := db.Pool.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, created_at, updated_at, deleted_at)
		VALUES ('prod-old', 'owner-1', 'cat', 'Old lamp', 'photo', now(), now(), now())`)
	require.NoError(t, err)
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	for i, prod := range []string{"prod-old", "build-unknown"} {
		require.NoError(t, w.Add(analytics.Row{At: day.Add(time.Hour), UserID: "owner-1", PublicationID: "pub", ProductID: prod,
			Viewer: fmt.Sprintf("viewer-%d", i), Kind: analytics.KindView, Counted: true, Device: "mobile", Source: "direct", Region: "IN"}))
	}
	require.NoError(t, w.Close(ctx))
	_, err = analytics.Rollup(ctx, db.Pool, day)
	require.NoError(t, err)
	rows, err := (&analytics.Reader{DB: db.Pool}).ExportRows(ctx, "owner-1", analytics.Filters{From: day, To: day})
	require.NoError(t, err)
	require.Equal(t, [][]string{{analytics.AllProducts, ""}, {"Old lamp (deleted)", "prod-old"}, {analytics.UnknownSubject, "build-unknown"}},
		[][]string{rows[1][:2], rows[2][:2], rows[3][:2]})
}
