package analytics

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// tallySQL computes the tallies of one merchant, range and filters inside
// Postgres, so the dashboard moves counts rather than shoppers. It follows
// Compute exactly: units are (viewer, product) with a counted view in range;
// a shopper is a viewer with such a unit, whose region is that of their
// earliest unit; everything else is OR-ed or summed over the shopper's
// units, and the flags i (interacted), eng (engaged), hi (high-intent) and
// add (ATC) are Shopper's methods written in SQL. One statement (the CTEs
// used twice are materialised once) returns three kinds of rows: per region
// ("r"), hotspot used before an add ("h") and per product/variant ("p", "v").
const tallySQL = `
WITH d AS (
    SELECT * FROM shopper_days
    WHERE user_id = $1 AND day BETWEEN $2 AND $3
      AND ($4 = '' OR product_id = $4) AND ($5 = '' OR device = $5) AND ($6 = '' OR source = $6) AND ($7 = '' OR region = $7)
), u AS (
    SELECT viewer, product_id, min(day) AS first_day, (array_agg(region ORDER BY day))[1] AS region,
        bool_or(interacted) AS turned, sum(visible_ms) AS ms, bool_or(cardinality(hotspots) > 0) AS h,
        bool_or(variant_changed) AS vc, bool_or(ar) AS ar, sum(clicks)::bigint AS clicks,
        bool_or(ar_before_click) AS arb, bool_or(variant_before_click) AS vb, bool_or(zoom_before_click) AS zb
    FROM d GROUP BY viewer, product_id HAVING bool_or(counted)
), v AS (
    SELECT viewer, (array_agg(region ORDER BY first_day, product_id))[1] AS region, bool_or(turned) AS turned, sum(ms) AS ms,
        bool_or(h) AS h, bool_or(vc) AS vc, bool_or(ar) AS ar, sum(clicks)::bigint AS clicks,
        bool_or(arb) AS arb, bool_or(vb) AS vb, bool_or(zb) AS zb
    FROM u GROUP BY viewer
), i AS (
    SELECT *, turned OR h OR vc OR ar AS i FROM v
), e AS (
    SELECT *, i AND (ms >= $8 OR h OR vc OR ar) AS eng FROM i
), f AS (
    SELECT *, eng AND clicks > 0 AS add, ar OR (vc AND h) OR (eng AND clicks > 0) AS hi FROM e
)
SELECT 'r', region, '', count(*), count(*) FILTER (WHERE i), count(*) FILTER (WHERE eng),
    count(*) FILTER (WHERE hi), count(*) FILTER (WHERE add), count(*) FILTER (WHERE clicks > 0),
    count(*) FILTER (WHERE NOT eng AND clicks > 0), coalesce(sum(clicks), 0),
    count(*) FILTER (WHERE add AND arb), count(*) FILTER (WHERE add AND vb), count(*) FILTER (WHERE add AND zb)
FROM f GROUP BY region
UNION ALL
SELECT 'h', hs.h, '', count(*), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM (SELECT DISTINCT d.viewer, x.h FROM d JOIN u USING (viewer, product_id), unnest(d.hotspots_before_click) AS x(h)) hs
JOIN f USING (viewer) WHERE f.add GROUP BY hs.h
UNION ALL
SELECT 'p', product_id, '', count(*), count(*) FILTER (WHERE clicks > 0), 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM u GROUP BY product_id
UNION ALL
SELECT 'v', uv.product_id, uv.variant, count(*), count(*) FILTER (WHERE u.clicks > 0), 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM (SELECT DISTINCT d.viewer, d.product_id, x.variant FROM d JOIN u USING (viewer, product_id), unnest(d.variants) AS x(variant)) uv
JOIN u USING (viewer, product_id) GROUP BY uv.product_id, uv.variant`

// tally runs tallySQL.
func (r *Reader) tally(ctx context.Context, userID string, f Filters) (*tallies, error) {
	// Planned with the actual values every time (no cached generic plan):
	// with "($n = '' OR col = $n)" a generic plan cannot tell which filters
	// are set and picked nested loops 20× slower than the custom plan.
	rows, err := r.DB.Query(ctx, tallySQL, pgx.QueryExecModeExec, userID, f.From, f.To, f.SKU, f.Device, f.Source, f.Region, EngagedVisibleMs)
	if err != nil {
		return nil, fmt.Errorf("tally shoppers: %w", err)
	}
	defer rows.Close()
	t := newTallies()
	for rows.Next() {
		var kind, k1, k2 string
		var c [11]int64
		dest := []any{&kind, &k1, &k2}
		for i := range c {
			dest = append(dest, &c[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("tally shoppers: %w", err)
		}
		switch kind {
		case "r":
			t.shoppers += c[0]
			t.interacted += c[1]
			t.engaged += c[2]
			t.highIntent += c[3]
			t.added += c[4]
			t.clickers += c[5]
			t.plainClickers += c[6]
			t.totalClicks += c[7]
			t.arAdds += c[8]
			t.variantAdds += c[9]
			t.zoomAdds += c[10]
			t.regions[k1] = &regionAgg{shoppers: c[0], engaged: c[2], clickers: c[5]}
		case "h":
			t.hotspotAdds[k1] = c[0]
		case "p":
			t.products[k1] = &groupAgg{n: c[0], clickers: c[1]}
		case "v":
			t.variants[[2]string{k1, k2}] = &groupAgg{n: c[0], clickers: c[1]}
		}
	}
	return t, rows.Err()
}
