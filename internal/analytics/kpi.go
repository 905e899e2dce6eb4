package analytics

import (
	"math"
	"slices"
	"sort"
)

// Thresholds of the definitions (README "Shopper analytics").
const (
	EngagedVisibleMs   = 10_000 // "≥ 10 s visible"
	MinShoppersForRate = 100    // secondary KPIs show a dash below this (spec §5, §9)
	ReliableGroup      = 100    // best_variant_uplift is reliable when both groups have this many shoppers
	topN               = 5
)

// Shopper is what one viewer did with one product in the range, as the
// rollup stores it (summed over days).
type Shopper struct {
	Viewer  string
	Product string
	Device  string
	Source  string
	Region  string
	Counted bool
	// Turned: the shopper turned or zoomed the model (the first camera
	// change they caused; shopper_days.interacted). Interacted() is the
	// funnel step, which any action on the model counts for.
	Turned              bool
	VisibleMs           int64
	Hotspots            []string
	Variants            []string
	VariantChanged      bool
	AR                  bool
	Clicks              int
	Platforms           []string
	ARBeforeClick       bool
	VariantBeforeClick  bool
	ZoomBeforeClick     bool
	HotspotsBeforeClick []string
}

// The definitions (definitions.go says them in words). Each funnel step is
// a subset of the one above it by construction: Engaged needs Interacted,
// High-Intent needs Engaged (AR and a variant change with a hotspot imply
// it; a click counts only for an engaged shopper), and ATC is the engaged
// shoppers who clicked.

// Interacted: turned or zoomed the model, opened a hotspot, changed the
// variant or launched AR.
func (s Shopper) Interacted() bool {
	return s.Turned || len(s.Hotspots) > 0 || s.VariantChanged || s.AR
}

// Engaged: interacted and ≥ 10 s visible, or opened a hotspot, changed the
// variant or launched AR.
func (s Shopper) Engaged() bool {
	return s.Interacted() && (s.VisibleMs >= EngagedVisibleMs || len(s.Hotspots) > 0 || s.VariantChanged || s.AR)
}

// HighIntent: engaged and launched AR, or changed variant and opened a
// hotspot, or clicked a buy link.
func (s Shopper) HighIntent() bool {
	return s.AR || s.VariantChanged && len(s.Hotspots) > 0 || s.Added()
}

// Clicked: clicked a buy link (any shopper).
func (s Shopper) Clicked() bool { return s.Clicks > 0 }

// Added: engaged and clicked a buy link: the ladder's ATC and the Adds from
// 3D KPI.
func (s Shopper) Added() bool { return s.Clicked() && s.Engaged() }

// merge folds another product's record of the same viewer into s.
func (s Shopper) merge(o Shopper) Shopper {
	s.Counted = s.Counted || o.Counted
	s.Turned = s.Turned || o.Turned
	s.VisibleMs += o.VisibleMs
	s.Hotspots = union(s.Hotspots, o.Hotspots)
	s.Variants = union(s.Variants, o.Variants)
	s.VariantChanged = s.VariantChanged || o.VariantChanged
	s.AR = s.AR || o.AR
	s.Clicks += o.Clicks
	s.Platforms = union(s.Platforms, o.Platforms)
	s.ARBeforeClick = s.ARBeforeClick || o.ARBeforeClick
	s.VariantBeforeClick = s.VariantBeforeClick || o.VariantBeforeClick
	s.ZoomBeforeClick = s.ZoomBeforeClick || o.ZoomBeforeClick
	s.HotspotsBeforeClick = union(s.HotspotsBeforeClick, o.HotspotsBeforeClick)
	return s
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// KPIs is the kpis object of the payload. Secondary KPIs are pointers: nil
// is sent as null (a dash: fewer than MinShoppersForRate shoppers) or left
// out for the basic plan.
type KPIs struct {
	Shoppers            int64         `json:"shoppers"`
	Engaged             int64         `json:"engaged"`
	Opportunities       int64         `json:"opportunities"`
	AddsFrom3D          int64         `json:"adds_from_3d"`
	EngagementUplift    *float64      `json:"engagement_uplift,omitempty"`
	AddsPerEngaged      *float64      `json:"adds_per_engaged,omitempty"`
	BestVariantUplift   *VariantLift  `json:"best_variant_uplift,omitempty"`
	GeoOpportunityIndex *GeoIndex     `json:"geo_opportunity_index,omitempty"`
	secondary           secondaryKPIs // computed always; gated when building the payload
}

// VariantLift is best_variant_uplift. Option is the variant's id; Label is
// what the merchant reads ("Blue · Ceramic vase"), resolved by the Reader
// from the products' configuration (labels.go).
type VariantLift struct {
	Option    string  `json:"option"`
	ProductID string  `json:"productId"`
	Label     string  `json:"label,omitempty"`
	PP        float64 `json:"pp"`
	Reliable  bool    `json:"reliable"`
}

// GeoIndex is geo_opportunity_index.
type GeoIndex struct {
	Region string  `json:"region"`
	Value  float64 `json:"value"`
}

type secondaryKPIs struct {
	uplift, perEngaged *float64
	variant            *VariantLift
	geo                *GeoIndex
}

// Step is one Progress Ladder step.
type Step struct {
	Key   string `json:"key"`
	Value int64  `json:"value"`
	Color string `json:"color,omitempty"`
}

// RegionStat is one Top Regions entry.
type RegionStat struct {
	Region       string  `json:"region"`
	EngagedPer1k float64 `json:"engagedPer1k"`
}

// FeatureStat is one Top Features entry: the feature's share (percent) of
// the feature uses before an add (definitions.go); the entries of a
// payload add up to exactly 100 (FeatureOther folds the rest).
type FeatureStat struct {
	Feature string  `json:"feature"`
	Share   float64 `json:"share"`
	// Label is the feature as the merchant reads it: a hotspot's title
	// instead of "hotspot:h1" (labels.go); empty for the fixed features.
	Label string `json:"label,omitempty"`
}

// FeatureOther is the Top Features entry folding the features past the
// first topN-1 when there are more than topN.
const FeatureOther = "other"

// Result is everything Compute derives from a set of shoppers.
type Result struct {
	KPIs     KPIs
	Steps    []Step
	Regions  []RegionStat
	Features []FeatureStat
	// Clicks is every buy-link click (the CSV's Buy-link clicks).
	Clicks int64
	// Approximate: distinct shoppers are sketch estimates (day cells).
	Approximate bool
}

// Funnel step keys (spec §9).
const (
	StepViewed     = "Viewed"
	StepInteracted = "Interacted"
	StepEngaged    = "Engaged"
	StepHighIntent = "High-Intent"
	StepATC        = "ATC"
)

func round1(x float64) float64 { return math.Round(x*10) / 10 }
func round2(x float64) float64 { return math.Round(x*100) / 100 }

func rate(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// regionAgg and groupAgg are counts per region and per product or variant.
type regionAgg struct{ shoppers, engaged, clickers int64 }
type groupAgg struct{ n, clickers int64 }

// tallies are the counts every output is derived from. Compute fills them
// from per-shopper records; Reader.Report fills them with SQL aggregates of
// shopper_days (tally_sql.go) or from day cells (cells.go); finish turns
// any of them into the same Result. Every count is of shoppers except
// totalClicks; the feature counts are of added shoppers who used the
// feature before their first click.
type tallies struct {
	shoppers, interacted, engaged, highIntent, added int64
	clickers, plainClickers                          int64 // plain: clicked without being engaged
	totalClicks                                      int64
	arAdds, variantAdds, zoomAdds                    int64
	hotspotAdds                                      map[string]int64
	regions                                          map[string]*regionAgg
	products                                         map[string]*groupAgg
	variants                                         map[[2]string]*groupAgg
	// approximate: counted from day cells (cells.go); regions then hold
	// shopper-days, so the geo index compares with their click rate.
	approximate     bool
	regionClickRate float64
}

func newTallies() *tallies {
	return &tallies{hotspotAdds: map[string]int64{}, regions: map[string]*regionAgg{},
		products: map[string]*groupAgg{}, variants: map[[2]string]*groupAgg{}}
}

func (t *tallies) region(name string) *regionAgg {
	r := t.regions[name]
	if r == nil {
		r = &regionAgg{}
		t.regions[name] = r
	}
	return r
}

// Compute applies the definitions to per-(viewer, product) records. Only
// records with a counted view belong to the population: a shopper is a
// distinct viewer id with a counted view in range.
func Compute(records []Shopper) Result {
	var units []Shopper
	byViewer := map[string]int{}
	var people []Shopper
	for _, r := range records {
		if !r.Counted {
			continue
		}
		units = append(units, r)
		if i, ok := byViewer[r.Viewer]; ok {
			people[i] = people[i].merge(r)
			continue
		}
		byViewer[r.Viewer] = len(people)
		people = append(people, r)
	}
	t := newTallies()
	for _, p := range people {
		t.shoppers++
		eng := p.Engaged()
		ra := t.region(p.Region)
		ra.shoppers++
		if p.Interacted() {
			t.interacted++
		}
		if eng {
			t.engaged++
			ra.engaged++
		}
		if p.HighIntent() {
			t.highIntent++
		}
		t.totalClicks += int64(p.Clicks)
		if p.Clicked() {
			t.clickers++
			ra.clickers++
			if !eng {
				t.plainClickers++
			}
		}
		if p.Added() {
			t.added++
			if p.ARBeforeClick {
				t.arAdds++
			}
			if p.VariantBeforeClick {
				t.variantAdds++
			}
			if p.ZoomBeforeClick {
				t.zoomAdds++
			}
			for _, h := range p.HotspotsBeforeClick {
				t.hotspotAdds[h]++
			}
		}
	}
	for _, u := range units {
		p := t.products[u.Product]
		if p == nil {
			p = &groupAgg{}
			t.products[u.Product] = p
		}
		p.n++
		if u.Clicked() {
			p.clickers++
		}
		for _, v := range u.Variants {
			key := [2]string{u.Product, v}
			a := t.variants[key]
			if a == nil {
				a = &groupAgg{}
				t.variants[key] = a
			}
			a.n++
			if u.Clicked() {
				a.clickers++
			}
		}
	}
	return t.finish()
}

// finish derives the KPIs, ladder and snapshot from the tallies.
func (t *tallies) finish() Result {
	res := Result{Approximate: t.approximate, Clicks: t.totalClicks}
	k := &res.KPIs
	k.Shoppers, k.Engaged, k.Opportunities, k.AddsFrom3D = t.shoppers, t.engaged, t.engaged-t.added, t.added
	res.Steps = []Step{
		{Key: StepViewed, Value: t.shoppers}, {Key: StepInteracted, Value: t.interacted}, {Key: StepEngaged, Value: t.engaged},
		{Key: StepHighIntent, Value: t.highIntent}, {Key: StepATC, Value: t.added},
	}
	if t.shoppers >= MinShoppersForRate {
		engagedRate := rate(t.added, t.engaged) // an engaged shopper who clicked is an add
		up := round1((engagedRate - rate(t.plainClickers, t.shoppers-t.engaged)) * 100)
		per := round1(engagedRate * 100)
		k.secondary.uplift, k.secondary.perEngaged = &up, &per
	}
	k.secondary.variant = bestVariant(t.products, t.variants)

	avg := rate(t.clickers, t.shoppers)
	if t.approximate {
		avg = t.regionClickRate
	}
	for name, r := range t.regions {
		per1k := round1(rate(r.engaged, r.shoppers) * 1000)
		res.Regions = append(res.Regions, RegionStat{Region: name, EngagedPer1k: per1k})
		if rate(r.clickers, r.shoppers) < avg {
			if g := k.secondary.geo; g == nil || per1k > g.Value || per1k == g.Value && name < g.Region {
				k.secondary.geo = &GeoIndex{Region: name, Value: per1k}
			}
		}
	}
	sort.Slice(res.Regions, func(i, j int) bool {
		a, b := res.Regions[i], res.Regions[j]
		return a.EngagedPer1k > b.EngagedPer1k || a.EngagedPer1k == b.EngagedPer1k && a.Region < b.Region
	})
	res.Regions = res.Regions[:min(len(res.Regions), topN)]
	res.Features = t.features()
	return res
}

// features are Top Features: each feature's uses before an add over all
// such uses, the most used first, at most topN rows (the rest folded into
// FeatureOther), shares in tenths of a percent that add up to exactly 100.
func (t *tallies) features() []FeatureStat {
	type use struct {
		feature string
		n       int64
	}
	var uses []use
	add := func(f string, n int64) {
		if n > 0 {
			uses = append(uses, use{f, n})
		}
	}
	add("ar", t.arAdds)
	add("variant", t.variantAdds)
	add("zoom", t.zoomAdds)
	for h, n := range t.hotspotAdds {
		add("hotspot:"+h, n)
	}
	if len(uses) == 0 {
		return nil
	}
	sort.Slice(uses, func(i, j int) bool {
		a, b := uses[i], uses[j]
		return a.n > b.n || a.n == b.n && a.feature < b.feature
	})
	if len(uses) > topN {
		var rest int64
		for _, u := range uses[topN-1:] {
			rest += u.n
		}
		uses = append(uses[:topN-1], use{FeatureOther, rest})
	}
	ns := make([]int64, len(uses))
	for i, u := range uses {
		ns[i] = u.n
	}
	tenths := largestRemainder(ns, 1000)
	out := make([]FeatureStat, len(uses))
	for i, u := range uses {
		out[i] = FeatureStat{Feature: u.feature, Share: float64(tenths[i]) / 10}
	}
	return out
}

// largestRemainder splits total units over ns in proportion (Hamilton's
// method): the parts are whole numbers that add up to total exactly, each
// within one unit of its exact share; leftover units go to the largest
// remainders, the first of equal ones first.
func largestRemainder(ns []int64, total int64) []int64 {
	var sum int64
	for _, n := range ns {
		sum += n
	}
	out := make([]int64, len(ns))
	if sum == 0 {
		return out
	}
	rem := make([]int64, len(ns))
	left := total
	for i, n := range ns {
		out[i] = n * total / sum
		rem[i] = n * total % sum
		left -= out[i]
	}
	order := make([]int, len(ns))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for _, i := range order[:left] {
		out[i]++
	}
	return out
}

// bestVariant: the variant whose viewers click most compared with the
// average of its product, in percentage points; reliable when both the
// variant's viewers and the product's shoppers number ReliableGroup or more.
// Products with one variant seen have nothing to compare and are skipped.
func bestVariant(products map[string]*groupAgg, variants map[[2]string]*groupAgg) *VariantLift {
	seen := map[string]int{}
	for key := range variants {
		seen[key[0]]++
	}
	var best *VariantLift
	var bestKey [2]string
	for key, a := range variants {
		p := products[key[0]]
		if seen[key[0]] < 2 || p == nil {
			continue
		}
		pp := round1((rate(a.clickers, a.n) - rate(p.clickers, p.n)) * 100)
		if best == nil || pp > best.PP || pp == best.PP && (key[0] < bestKey[0] || key[0] == bestKey[0] && key[1] < bestKey[1]) {
			best = &VariantLift{Option: key[1], ProductID: key[0], PP: pp, Reliable: a.n >= ReliableGroup && p.n >= ReliableGroup}
			bestKey = key
		}
	}
	return best
}
