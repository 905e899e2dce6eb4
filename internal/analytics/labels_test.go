package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/dbtest"
)

// The Business Overview names what shoppers used: the best variant by its
// name and product, Top Features' hotspots by their titles (per product when
// the SKU filter picks one), and ids nothing has any more as deleted, never
// as "h7" or "v2".
func TestReportNamesHotspotsAndVariants(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	products := []struct{ id, name, config string }{
		{"prod-1", "Ceramic vase", `{"variants":[{"id":"v1","name":"Matte black"},{"id":"v2","name":"Terracotta"}],"hotspots":[{"id":"h1","title":"Hand-thrown rim"}]}`},
		{"prod-2", "Oak stool", `{"variants":[{"id":"v1","name":"Default"}],"hotspots":[{"id":"h1","title":"Solid oak legs"}]}`},
		{"prod-3", "Not yours", `{"hotspots":[{"id":"h1","title":"Another merchant"}]}`},
	}
	for _, p := range products {
		owner := "owner-1"
		if p.id == "prod-3" {
			owner = "owner-2"
		}
		_, err := db.Pool.Exec(ctx, `INSERT INTO products (id, user_id, catalog_id, name, source, config, created_at, updated_at)
			VALUES ($1, $2, 'cat', $3, 'photo', $4, now(), now())`, p.id, owner, p.name, p.config)
		require.NoError(t, err)
	}
	w := analytics.NewWriter(db.Pool, nil, analytics.WriterConfig{})
	at := now.Add(-time.Hour)
	shopper := func(viewer, variant, hotspot string, click bool) {
		r := analytics.Row{At: at, UserID: "owner-1", PublicationID: "pub-1", ProductID: "prod-1", Viewer: viewer,
			Kind: analytics.KindView, Counted: true, Variant: variant, Region: "IN"}
		require.NoError(t, w.Add(r))
		r.Counted, r.Variant = false, ""
		if hotspot != "" {
			r.Kind, r.Hotspot, r.At = analytics.KindHotspot, hotspot, at.Add(time.Second)
			require.NoError(t, w.Add(r))
		}
		if click {
			r.Kind, r.Hotspot, r.At, r.Platform = analytics.KindClick, "", at.Add(2*time.Second), "Amazon"
			require.NoError(t, w.Add(r))
		}
	}
	shopper("a", "v1", "", false)
	shopper("b", "v2", "h1", true)
	shopper("c", "v2", "h7", true) // h7 was deleted from the product since
	require.NoError(t, w.Close(ctx))
	_, err := analytics.Rollup(ctx, db.Pool, now)
	require.NoError(t, err)

	rd := &analytics.Reader{DB: db.Pool}
	f := analytics.Filters{From: now.Truncate(24 * time.Hour), To: now.Truncate(24 * time.Hour)}
	labels := func(p analytics.Payload) map[string]string {
		out := map[string]string{}
		for _, s := range p.Charts.Snapshot.TopFeaturesAdding {
			out[s.Feature] = s.Label
		}
		return out
	}

	all, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.NotNil(t, all.KPIs.BestVariantUplift)
	require.Equal(t, "v2", all.KPIs.BestVariantUplift.Option)
	require.Equal(t, "Terracotta · Ceramic vase", all.KPIs.BestVariantUplift.Label)
	// Hotspot ids are numbered per product: across products both of the owner's titles are named, not another owner's.
	require.Equal(t, "Hotspot: Hand-thrown rim / Solid oak legs", labels(all)["hotspot:h1"])
	require.Equal(t, analytics.DeletedHotspot, labels(all)["hotspot:h7"])
	require.Empty(t, labels(all)["variant"], "fixed features keep their client-side names")

	f.SKU = "prod-1"
	one, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, "Hotspot: Hand-thrown rim", labels(one)["hotspot:h1"])

	// The variant is deleted from the product: the KPI says so instead of showing its id.
	_, err = db.Pool.Exec(ctx, `UPDATE products SET config = '{"variants":[{"id":"v1","name":"Matte black"}],"hotspots":[]}' WHERE id = 'prod-1'`)
	require.NoError(t, err)
	gone, err := rd.Report(ctx, "owner-1", f, analytics.TierPremium)
	require.NoError(t, err)
	require.Equal(t, "Deleted variant · Ceramic vase", gone.KPIs.BestVariantUplift.Label)
	require.Equal(t, analytics.DeletedHotspot, labels(gone)["hotspot:h1"])
}
