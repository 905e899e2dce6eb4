package analytics

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/fault"
)

// Analytics tiers: the free plan maps to basic analytics, every other plan
// to premium (spec §6).
const (
	TierBasic   = "basic"
	TierPremium = "premium"
)

// Ranges the date select offers (spec §9); "custom" takes from and to.
var Ranges = map[string]int{"7d": 7, "30d": 30, "90d": 90}

// MaxCustomDays caps a custom range.
const MaxCustomDays = 366

// Filters narrows a report. SKU is a product id; Device, Source and Region
// are premium.
type Filters struct {
	From, To time.Time // UTC days, inclusive
	SKU      string
	Device   string
	Source   string
	Region   string
}

// DrilldownMessage is the spec's text for a basic plan asking for a premium filter.
const DrilldownMessage = "Drill‑downs by device, source, and region are part of the Pro plan."

// ParseFilters reads the query string of GET /api/analytics: range (7d, 30d,
// 90d, default 7d) or from and to (YYYY-MM-DD, custom), sku, and the premium
// device, source and region, which a basic plan may not use.
func ParseFilters(q map[string][]string, tier string, now time.Time) (Filters, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	var f Filters
	today := now.UTC().Truncate(24 * time.Hour)
	from, to := get("from"), get("to")
	switch {
	case from != "" || to != "":
		a, err1 := time.Parse(time.DateOnly, from)
		b, err2 := time.Parse(time.DateOnly, to)
		if err1 != nil || err2 != nil || b.Before(a) || b.Sub(a) >= MaxCustomDays*24*time.Hour {
			return f, fault.Invalidf("invalid_range", "A custom range needs from and to as YYYY-MM-DD, from not after to, at most %d days.", MaxCustomDays)
		}
		f.From, f.To = a, b
	default:
		r := get("range")
		if r == "" {
			r = "7d"
		}
		days, ok := Ranges[r]
		if !ok {
			return f, fault.Invalidf("invalid_range", "range must be 7d, 30d or 90d.")
		}
		f.From, f.To = today.Add(-time.Duration(days-1)*24*time.Hour), today
	}
	f.SKU, f.Device, f.Source, f.Region = get("sku"), get("device"), get("source"), strings.ToUpper(get("region"))
	if len(f.SKU) > 64 || len(f.Source) > 64 || len(f.Region) > 2 {
		return f, fault.Invalidf("invalid_filter", "A filter value is too long.")
	}
	if f.Device != "" && f.Device != DeviceMobile && f.Device != DeviceTablet && f.Device != DeviceDesktop {
		return f, fault.Invalidf("invalid_filter", "device must be mobile, tablet or desktop.")
	}
	if tier != TierPremium && (f.Device != "" || f.Source != "" || f.Region != "") {
		return f, fault.New(fault.Forbidden, "premium_filter", DrilldownMessage)
	}
	return f, nil
}

// Capabilities says what the caller's tier may see.
type Capabilities struct {
	Filters       []string `json:"filters"`
	KPIsPrimary   []string `json:"kpis_primary"`
	KPIsSecondary []string `json:"kpis_secondary"`
	Drilldowns    bool     `json:"drilldowns"`
	Export        bool     `json:"export"`
}

var (
	primaryKPIs       = []string{"shoppers", "engaged", "opportunities", "adds_from_3d"}
	secondaryKPINames = []string{"engagement_uplift", "adds_per_engaged", "best_variant_uplift", "geo_opportunity_index"}
)

// CapabilitiesFor a tier.
func CapabilitiesFor(tier string) Capabilities {
	if tier == TierPremium {
		return Capabilities{Filters: []string{"dateRange", "sku", "device", "source", "region"}, KPIsPrimary: primaryKPIs,
			KPIsSecondary: secondaryKPINames, Drilldowns: true, Export: true}
	}
	return Capabilities{Filters: []string{"dateRange", "sku"}, KPIsPrimary: primaryKPIs, KPIsSecondary: []string{}}
}

// Payload is GET /api/analytics (spec §3, analytics payload).
type Payload struct {
	Plan         string       `json:"plan"`
	Capabilities Capabilities `json:"capabilities"`
	KPIs         KPIs         `json:"kpis"`
	Charts       Charts       `json:"charts"`
	// Approximate: the distinct-shopper numbers are HyperLogLog estimates
	// (a large range, README "Analytics at scale"); the UI shows "≈".
	Approximate bool `json:"approximate"`
	// Definitions: label, definition and unit of every number on the
	// screen (definitions.go), shown in the info tooltips.
	Definitions map[string]Definition `json:"definitions"`
}

// Charts of the payload.
type Charts struct {
	ProgressLadder struct {
		Steps []Step `json:"steps"`
	} `json:"progress_ladder"`
	Snapshot Snapshot `json:"snapshot"`
}

// Snapshot of the payload; empty for the basic tier (regions are a drill-down).
type Snapshot struct {
	TopRegions        []RegionStat  `json:"topRegions"`
	TopFeaturesAdding []FeatureStat `json:"topFeaturesAdding"`
}

// stepColors are the ladder's colours, darkest first.
var stepColors = []string{"#2E5BBA", "#3F6FD0", "#5B86E0", "#7FA2EA", "#A7C0F2"}

// BuildPayload gates a Result by tier: basic sees the four primary KPIs and
// the ladder; secondary KPIs and the snapshot are left out, not just hidden.
func BuildPayload(res Result, tier string) Payload {
	p := Payload{Plan: tier, Capabilities: CapabilitiesFor(tier), Approximate: res.Approximate, Definitions: overviewDefinitions()}
	p.KPIs = KPIs{Shoppers: res.KPIs.Shoppers, Engaged: res.KPIs.Engaged, Opportunities: res.KPIs.Opportunities, AddsFrom3D: res.KPIs.AddsFrom3D}
	p.Charts.ProgressLadder.Steps = slices.Clone(res.Steps)
	for i := range p.Charts.ProgressLadder.Steps {
		p.Charts.ProgressLadder.Steps[i].Color = stepColors[i%len(stepColors)]
	}
	p.Charts.Snapshot = Snapshot{TopRegions: []RegionStat{}, TopFeaturesAdding: []FeatureStat{}}
	if tier == TierPremium {
		s := res.KPIs.secondary
		p.KPIs.EngagementUplift, p.KPIs.AddsPerEngaged, p.KPIs.BestVariantUplift, p.KPIs.GeoOpportunityIndex = s.uplift, s.perEngaged, s.variant, s.geo
		if res.Regions != nil {
			p.Charts.Snapshot.TopRegions = res.Regions
		}
		if res.Features != nil {
			p.Charts.Snapshot.TopFeaturesAdding = res.Features
		}
	}
	return p
}

// Reader answers the merchant's analytics queries from shopper_days.
type Reader struct {
	DB *pgxpool.Pool
	// ExactBelow overrides the package's ExactBelow (shopper-days in a range
	// under which the numbers are counted exactly); negative: always exact.
	ExactBelow int64
}

// dayRow is one shopper_days row.
type dayRow struct {
	Day time.Time
	Shopper
}

// load reads userID's shopper_days rows in the filters' range.
func (r *Reader) load(ctx context.Context, userID string, f Filters) ([]dayRow, error) {
	rows, err := r.DB.Query(ctx, `SELECT day, viewer, product_id, device, source, region, counted, interacted, visible_ms,
		hotspots, variants, variant_changed, ar, clicks, platforms, ar_before_click, variant_before_click,
		zoom_before_click, hotspots_before_click
		FROM shopper_days WHERE user_id = $1 AND day BETWEEN $2 AND $3
		AND ($4 = '' OR product_id = $4) AND ($5 = '' OR device = $5) AND ($6 = '' OR source = $6) AND ($7 = '' OR region = $7)`,
		pgx.QueryExecModeExec, userID, f.From, f.To, f.SKU, f.Device, f.Source, f.Region)
	if err != nil {
		return nil, fmt.Errorf("read shopper days: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dayRow, error) {
		var d dayRow
		s := &d.Shopper
		err := row.Scan(&d.Day, &s.Viewer, &s.Product, &s.Device, &s.Source, &s.Region, &s.Counted, &s.Turned, &s.VisibleMs,
			&s.Hotspots, &s.Variants, &s.VariantChanged, &s.AR, &s.Clicks, &s.Platforms, &s.ARBeforeClick,
			&s.VariantBeforeClick, &s.ZoomBeforeClick, &s.HotspotsBeforeClick)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read shopper days: %w", err)
	}
	return out, nil
}

// Shoppers folds day rows into one record per (viewer, product); the
// dimensions are those of the earliest day.
func Shoppers(rows []dayRow) []Shopper {
	sort.Slice(rows, func(i, j int) bool { return rows[i].Day.Before(rows[j].Day) })
	idx := map[[2]string]int{}
	var out []Shopper
	for _, d := range rows {
		key := [2]string{d.Viewer, d.Product}
		if i, ok := idx[key]; ok {
			out[i] = out[i].merge(d.Shopper)
			continue
		}
		idx[key] = len(out)
		out = append(out, d.Shopper)
	}
	return out
}

// Report computes userID's payload for the filters and tier. The counting
// happens in Postgres (tally_sql.go) or in the day cells (cells.go); the
// definitions applied to the counts are the same code as Compute's
// (tallies.finish).
func (r *Reader) Report(ctx context.Context, userID string, f Filters, tier string) (Payload, error) {
	res, err := r.result(ctx, userID, f)
	if err != nil {
		return Payload{}, err
	}
	p := BuildPayload(res, tier)
	if err := r.label(ctx, userID, f.SKU, &p); err != nil {
		return Payload{}, err
	}
	return p, nil
}

// result is Report's Result before tier gating and labels (the CSV export
// reads it too, so its numbers are the screen's).
func (r *Reader) result(ctx context.Context, userID string, f Filters) (Result, error) {
	if c, ok, err := r.rangeCell(ctx, userID, f, true, true); err != nil || ok {
		if err != nil {
			return Result{}, err
		}
		return c.tallies().finish(), nil
	}
	t, err := r.tally(ctx, userID, f)
	if err != nil {
		return Result{}, err
	}
	return t.finish(), nil
}

// ReportFromRows is Report computed in Go from the loaded shopper_days rows
// (Shoppers, then Compute): the reference the SQL path is tested against.
func (r *Reader) ReportFromRows(ctx context.Context, userID string, f Filters, tier string) (Payload, error) {
	rows, err := r.load(ctx, userID, f)
	if err != nil {
		return Payload{}, err
	}
	p := BuildPayload(Compute(Shoppers(rows)), tier)
	if err := r.label(ctx, userID, f.SKU, &p); err != nil {
		return Payload{}, err
	}
	return p, nil
}

// ProductSummary is the product page's metric tiles.
type ProductSummary struct {
	Shoppers   int64   `json:"shoppers"`
	Views      int64   `json:"views"`      // shoppers with a counted view (one per shopper per day)
	Engagement float64 `json:"engagement"` // engaged / shoppers, percent, one decimal
	HotspotCTR float64 `json:"hotspotCtr"` // shoppers who opened a hotspot / shoppers, percent, one decimal
	Clicks     int64   `json:"clicks"`
	// Approximate: shoppers, engagement and hotspot CTR are sketch estimates.
	Approximate bool `json:"approximate"`
}

// Product summarises one product over the filters' range.
func (r *Reader) Product(ctx context.Context, userID, productID string, f Filters) (ProductSummary, error) {
	f.SKU = productID
	if c, ok, err := r.rangeCell(ctx, userID, f, false, true); err != nil || ok {
		if err != nil {
			return ProductSummary{}, err
		}
		v := c.estimate(skViewed)
		pct := func(i int) float64 { return round1(rate(min(c.estimate(i), v), v) * 100) }
		return ProductSummary{Shoppers: v, Views: c.counts[cnShopperDays], Engagement: pct(skEngaged), HotspotCTR: pct(skHotspot),
			Clicks: c.counts[cnClicks], Approximate: true}, nil
	}
	rows, err := r.load(ctx, userID, f)
	if err != nil {
		return ProductSummary{}, err
	}
	var s ProductSummary
	for _, d := range rows {
		if d.Counted {
			s.Views++
		}
	}
	var engaged, hot int64
	for _, sh := range Shoppers(rows) {
		if !sh.Counted {
			continue
		}
		s.Shoppers++
		if sh.Engaged() {
			engaged++
		}
		if len(sh.Hotspots) > 0 {
			hot++
		}
		s.Clicks += int64(sh.Clicks)
	}
	s.Engagement, s.HotspotCTR = round1(rate(engaged, s.Shoppers)*100), round1(rate(hot, s.Shoppers)*100)
	return s, nil
}

// Breakdown is one row of the Breakdowns drawer: a dimension value and its
// funnel (view → interacted → AR → click).
type Breakdown struct {
	Dimension  string `json:"dimension"` // device, source, region, platform
	Value      string `json:"value"`
	Shoppers   int64  `json:"shoppers"`
	Interacted int64  `json:"interacted"`
	AR         int64  `json:"ar"`
	Clicked    int64  `json:"clicked"`
}

// Breakdowns (premium) by device, source and region, and the
// store-attributed funnel: per store platform, the shoppers of the products
// on which someone clicked that platform, and the shoppers who clicked it.
func (r *Reader) Breakdowns(ctx context.Context, userID string, f Filters) ([]Breakdown, error) {
	out, _, err := r.BreakdownsReport(ctx, userID, f)
	return out, err
}

// BreakdownsReport is Breakdowns saying whether the counts are per
// shopper-day from the day cells (approximate: a large range) rather than
// per distinct shopper.
func (r *Reader) BreakdownsReport(ctx context.Context, userID string, f Filters) ([]Breakdown, bool, error) {
	if c, ok, err := r.rangeCell(ctx, userID, f, true, false); err != nil || ok {
		if err != nil {
			return nil, false, err
		}
		return sortBreakdowns(c.breakdowns()), true, nil
	}
	rows, err := r.load(ctx, userID, f)
	if err != nil {
		return nil, false, err
	}
	units := Shoppers(rows)
	acc := map[[2]string]*Breakdown{}
	bump := func(dim, val string, s Shopper, clicked bool) {
		b := acc[[2]string{dim, val}]
		if b == nil {
			b = &Breakdown{Dimension: dim, Value: val}
			acc[[2]string{dim, val}] = b
		}
		b.Shoppers++
		if s.Interacted() {
			b.Interacted++
		}
		if s.AR {
			b.AR++
		}
		if clicked {
			b.Clicked++
		}
	}
	offered := map[string]map[string]bool{} // product → platforms clicked on it
	for _, u := range units {
		for _, p := range u.Platforms {
			if offered[u.Product] == nil {
				offered[u.Product] = map[string]bool{}
			}
			offered[u.Product][p] = true
		}
	}
	for _, u := range units {
		if !u.Counted {
			continue
		}
		bump("device", u.Device, u, u.Clicked())
		bump("source", u.Source, u, u.Clicked())
		bump("region", u.Region, u, u.Clicked())
		for p := range offered[u.Product] {
			bump("platform", p, u, slices.Contains(u.Platforms, p))
		}
	}
	out := make([]Breakdown, 0, len(acc))
	for _, b := range acc {
		out = append(out, *b)
	}
	return sortBreakdowns(out), false, nil
}

// sortBreakdowns orders by dimension, then most shoppers first.
func sortBreakdowns(out []Breakdown) []Breakdown {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dimension != b.Dimension {
			return a.Dimension < b.Dimension
		}
		return a.Shoppers > b.Shoppers || a.Shoppers == b.Shoppers && a.Value < b.Value
	})
	return out
}

// ExportRows is the CSV export (premium): the Business Overview's funnel
// for the filters' range, first for all products together (the screen's
// numbers) and then for each product seen in the range (the screen with
// that product picked in the SKU filter), named (and identified by id in
// its own column). Every row is computed by the same code as the screen
// (Reader.result), so the file and the screen agree, approximate or not.
func (r *Reader) ExportRows(ctx context.Context, userID string, f Filters) ([][]string, error) {
	ids := []string{f.SKU}
	if f.SKU == "" {
		var err error
		if ids, err = r.productsInRange(ctx, userID, f); err != nil {
			return nil, err
		}
	}
	names, err := r.subjectNames(ctx, userID, ids)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := strings.ToLower(names[ids[i]]), strings.ToLower(names[ids[j]])
		return a < b || a == b && ids[i] < ids[j]
	})
	label := func(k string) string { return Definitions[k].Label }
	out := [][]string{{"Product", "Product ID", "From", "To", label("shoppers"), label(StepInteracted), label(StepEngaged),
		label(StepHighIntent), label(StepATC) + " (" + label("adds_from_3d") + ")", label("opportunities"), label(DefBuyLinkClicks),
		"Approximate"}}
	row := func(name, id string, g Filters) error {
		res, err := r.result(ctx, userID, g)
		if err != nil {
			return err
		}
		step := map[string]int64{}
		for _, s := range res.Steps {
			step[s.Key] = s.Value
		}
		out = append(out, []string{name, id, g.From.Format(time.DateOnly), g.To.Format(time.DateOnly),
			fmt.Sprint(res.KPIs.Shoppers), fmt.Sprint(step[StepInteracted]), fmt.Sprint(res.KPIs.Engaged),
			fmt.Sprint(step[StepHighIntent]), fmt.Sprint(res.KPIs.AddsFrom3D), fmt.Sprint(res.KPIs.Opportunities),
			fmt.Sprint(res.Clicks), fmt.Sprint(res.Approximate)})
		return nil
	}
	if f.SKU == "" {
		if err := row(AllProducts, "", f); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		g := f
		g.SKU = id
		if err := row(names[id], id, g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AllProducts names the CSV's first row: every product together.
const AllProducts = "All products"

// productsInRange are the product ids with a counted shopper-day in the
// filters' range.
func (r *Reader) productsInRange(ctx context.Context, userID string, f Filters) ([]string, error) {
	rows, err := r.DB.Query(ctx, `SELECT DISTINCT product_id FROM shopper_days WHERE user_id = $1 AND day BETWEEN $2 AND $3
		AND counted AND ($4 = '' OR device = $4) AND ($5 = '' OR source = $5) AND ($6 = '' OR region = $6)`,
		userID, f.From, f.To, f.Device, f.Source, f.Region)
	if err != nil {
		return nil, fmt.Errorf("list products in range: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list products in range: %w", err)
	}
	return ids, nil
}

// subjectNames names what shoppers looked at: the owner's products (a
// deleted one says so), else a gallery or a build (blueprint) shared on its
// own (by the build's name, else the name its share page was published
// with), else UnknownSubject.
func (r *Reader) subjectNames(ctx context.Context, userID string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id] = UnknownSubject
	}
	rows, err := r.DB.Query(ctx, `SELECT p.blueprint_id, 'Build: ' || (v.snapshot->>'name'), 0
		FROM publications p JOIN publication_versions v ON v.publication_id = p.id AND v.version = p.current_version
		WHERE p.user_id = $1 AND p.blueprint_id = ANY($2) AND coalesce(v.snapshot->>'name', '') <> ''
		UNION ALL SELECT id, 'Build: ' || name, 1 FROM jobs WHERE user_id = $1 AND id = ANY($2)
		UNION ALL SELECT id, 'Gallery: ' || name, 2 FROM galleries WHERE user_id = $1 AND id = ANY($2)
		UNION ALL SELECT id, name || CASE WHEN deleted_at IS NULL THEN '' ELSE ' (deleted)' END, 3
		FROM products WHERE user_id = $1 AND id = ANY($2)
		ORDER BY 3`, userID, ids)
	if err != nil {
		return nil, fmt.Errorf("name analytics products: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		var rank int
		if err := rows.Scan(&id, &name, &rank); err != nil {
			return nil, fmt.Errorf("name analytics products: %w", err)
		}
		out[id] = name // products come last: they win, then galleries, builds, pages
	}
	return out, rows.Err()
}

// UnknownSubject names an id no product, gallery or build of the owner has.
const UnknownSubject = "Unknown product"

// TopProduct is one product ranked by engagement rate for the dashboard.
type TopProduct struct {
	ProductID  string
	Name       string // the product's name; TopProducts keeps only live products of the owner
	Shoppers   int64
	Engagement float64 // percent, one decimal
}

// TopProducts ranks userID's live products by engagement rate over the last
// 30 days (ties: more shoppers first), for the dashboard's Top Products.
func (r *Reader) TopProducts(ctx context.Context, userID string, now time.Time, n int) ([]TopProduct, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	f := Filters{From: today.Add(-29 * 24 * time.Hour), To: today}
	type agg struct{ shoppers, engaged int64 }
	m := map[string]*agg{}
	approx, large, err := r.topProductCells(ctx, userID, f, n)
	if err != nil {
		return nil, err
	}
	for id, c := range approx {
		m[id] = &agg{shoppers: c[0], engaged: c[1]}
	}
	var rows []dayRow
	if !large {
		if rows, err = r.load(ctx, userID, f); err != nil {
			return nil, err
		}
	}
	for _, u := range Shoppers(rows) {
		if !u.Counted {
			continue
		}
		a := m[u.Product]
		if a == nil {
			a = &agg{}
			m[u.Product] = a
		}
		a.shoppers++
		if u.Engaged() {
			a.engaged++
		}
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	names := map[string]string{}
	nrows, err := r.DB.Query(ctx, `SELECT id, name FROM products WHERE user_id = $1 AND id = ANY($2) AND deleted_at IS NULL`, userID, ids)
	if err != nil {
		return nil, fmt.Errorf("name top products: %w", err)
	}
	for nrows.Next() {
		var id, name string
		if err := nrows.Scan(&id, &name); err != nil {
			nrows.Close()
			return nil, fmt.Errorf("name top products: %w", err)
		}
		names[id] = name
	}
	nrows.Close()
	out := make([]TopProduct, 0, len(m))
	for id, a := range m {
		name, ok := names[id]
		if !ok {
			continue // not a live product of this owner (a blueprint link, or deleted): nothing honest to show
		}
		out = append(out, TopProduct{ProductID: id, Name: name, Shoppers: a.shoppers, Engagement: round1(rate(a.engaged, a.shoppers) * 100)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Engagement > b.Engagement || a.Engagement == b.Engagement && (a.Shoppers > b.Shoppers || a.Shoppers == b.Shoppers && a.ProductID < b.ProductID)
	})
	return out[:min(n, len(out))], nil
}
