package analytics

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/axiomhq/hyperloglog"
	"github.com/jackc/pgx/v5"
)

// Day cells (migration 0019) make the dashboard of a large merchant cost one
// row per day of the range instead of one row per shopper-day: the rollup
// folds each day's shopper_days rows into one cell per owner and filter
// (no filter and every combination of filter values seen that day), and a
// query merges the cells of its days. Additive numbers (shopper-days,
// clicks) sum exactly; distinct shoppers per funnel step come from
// HyperLogLog sketches of the viewer ids, whose union over the days is the
// estimate of the range. The exact path (tallySQL over shopper_days) stays
// for ranges with fewer than ExactBelow shopper-days, so small merchants
// (and every test) see exact numbers; the payload says which was used.

// ExactBelow is the default number of counted shopper-days in a range (for
// its filter) below which the dashboard counts exactly from shopper_days.
// Measured (ops/analytics-bench.sh, 1 M events, this 2-core machine at load
// 20–30): the exact path took 30–75 ms (p50) for 300–1 600 shopper-days,
// because it scans every shopper-day of the range before the filters; the
// 150-shopper dashboards of the tests and demos stay well under 1 000.
const ExactBelow = 1_000

// MaxCellFilters is how many of the four filters (sku, device, source,
// region) a cell combines: all of them, so every filter set a dashboard can
// ask for has its own cell and reads one row per day. Each shopper_days row
// has exactly one value of each dimension, so a row belongs to the 16 cells
// of the subsets of its (sku, device, source, region); the 3- and 4-filter
// cells are sparse (only the combinations seen that day) and small (a few
// shopper-days each, sketches in sparse form). With 2 here, a query with 3
// or 4 filters took the exact path: 0.4–1.8 s at 10 M events
// (/work/notes/u-filters.md has the storage and rollup cost of 4).
const MaxCellFilters = 4

// SketchPrecision of the HyperLogLog sketches: 2^12 registers, 4 KiB dense,
// relative standard error 1.04/√4096 ≈ 1.6 % (README: ±5 % at three sigma).
const SketchPrecision = 12

// Sketched funnel steps (distinct viewers per step over the range).
const (
	skViewed = iota
	skInteracted
	skEngaged
	skHighIntent
	skClicked
	skHotspot
	skAdded // engaged and clicked on the same day: ATC, Adds from 3D
	nSketches
)

// Additive counts of a cell.
const (
	cnShopperDays = iota
	cnClicks
	cnARAdds      // added shopper-days with AR before the first click (Top Features)
	cnVariantAdds // … with a variant change before it
	cnZoomAdds    // … with a camera change before it
	nCounts
)

// Counts per group value (all in shopper-days, except clicks).
const (
	gSD = iota
	gInteracted
	gEngaged
	gAR
	gClicked
	gClicks
	nGroupCounts
)

// A hotspot group (grHotspot) counts in gClicked the added shopper-days
// that opened the hotspot before their first click (Top Features).

// Group kinds: the first byte of a group key, the value follows.
const (
	grRegion   = 'r'
	grDevice   = 'd'
	grSource   = 's'
	grProduct  = 'p'
	grVariant  = 'v' // product, NUL, variant
	grHotspot  = 'h' // added shopper-days that opened this hotspot before clicking
	grPlatform = 'P' // store-attributed funnel (clicked = clicked this platform)
)

// cellVersion 3 holds the funnel of definitions.go (issue 50: Interacted
// counts any action on the model, ATC is engaged and clicked, Top Features
// count added shopper-days). Cells of an older version were counted with
// other definitions: a range holding one is answered by the exact path
// (errStaleCell) until bin/worker replay analytics rebuilds the cells.
const cellVersion = 3

type groupCounts [nGroupCounts]int64

// cell is the merged state of one or more day cells.
type cell struct {
	counts   [nCounts]int64
	groups   map[string]*groupCounts
	sketches [nSketches]*hyperloglog.Sketch // nil when not decoded
}

func newCell(withSketches bool) *cell {
	c := &cell{groups: map[string]*groupCounts{}}
	if withSketches {
		for i := range c.sketches {
			c.sketches[i] = newSketch()
		}
	}
	return c
}

func newDenseSketch() *hyperloglog.Sketch {
	sk, err := hyperloglog.NewSketch(SketchPrecision, false)
	if err != nil {
		panic(err)
	}
	return sk
}

func newSketch() *hyperloglog.Sketch {
	sk, err := hyperloglog.NewSketch(SketchPrecision, true)
	if err != nil {
		panic(err) // a constant precision in range
	}
	return sk
}

func (c *cell) group(kind byte, value string) *groupCounts {
	k := string(kind) + value
	g := c.groups[k]
	if g == nil {
		g = &groupCounts{}
		c.groups[k] = g
	}
	return g
}

// estimate of sketch i (0 when absent).
func (c *cell) estimate(i int) int64 {
	if c.sketches[i] == nil {
		return 0
	}
	return int64(c.sketches[i].Estimate())
}

// encode writes the cell: version, counts, length-prefixed groups (sorted by
// key, so a rebuild gives the same bytes), then the sketches.
func (c *cell) encode() ([]byte, error) {
	b := []byte{cellVersion}
	for _, v := range c.counts {
		b = binary.AppendUvarint(b, uint64(v))
	}
	keys := make([]string, 0, len(c.groups))
	for k := range c.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var gb []byte
	gb = binary.AppendUvarint(gb, uint64(len(keys)))
	for _, k := range keys {
		gb = binary.AppendUvarint(gb, uint64(len(k)))
		gb = append(gb, k...)
		for _, v := range c.groups[k] {
			gb = binary.AppendUvarint(gb, uint64(v))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(gb)))
	b = append(b, gb...)
	for _, sk := range c.sketches {
		if sk == nil {
			sk = newSketch()
		}
		sb, err := sk.MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(len(sb)))
		b = append(b, sb...)
	}
	return b, nil
}

var (
	errBadCell   = errors.New("analytics: malformed day cell")
	errStaleCell = errors.New("analytics: day cell of older definitions")
)

// mergeEncoded adds an encoded cell into c without building it first (a
// range merges up to 90 of them per query): groups only when asked, and
// only the sketches in mask (bit i = sketch i; Top Products needs two).
func (c *cell) mergeEncoded(b []byte, groups bool, mask uint) error {
	if len(b) == 0 {
		return errBadCell
	}
	if b[0] != cellVersion {
		return errStaleCell
	}
	stored := nSketches
	b = b[1:]
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errBadCell
		}
		b = b[n:]
		return v, nil
	}
	for i := range c.counts {
		v, err := next()
		if err != nil {
			return err
		}
		c.counts[i] += int64(v)
	}
	glen, err := next()
	if err != nil || glen > uint64(len(b)) {
		return errBadCell
	}
	gb, rest := b[:glen], b[glen:]
	if groups {
		b = gb
		n, err := next()
		if err != nil {
			return err
		}
		for range n {
			kl, err := next()
			if err != nil || kl > uint64(len(b)) || kl == 0 {
				return errBadCell
			}
			key := b[:kl]
			b = b[kl:]
			g := c.groups[string(key)]
			if g == nil {
				g = &groupCounts{}
				c.groups[string(key)] = g
			}
			for i := range g {
				v, err := next()
				if err != nil {
					return err
				}
				g[i] += int64(v)
			}
		}
	}
	b = rest
	for i := range stored {
		if mask == 0 {
			break
		}
		l, err := next()
		if err != nil || l > uint64(len(b)) {
			return errBadCell
		}
		if mask&(1<<i) != 0 {
			sk := newSketch()
			if err := sk.UnmarshalBinary(b[:l]); err != nil {
				return fmt.Errorf("%w: %v", errBadCell, err)
			}
			if c.sketches[i] == nil {
				c.sketches[i] = newDenseSketch() // merging many days: register-wise max beats sparse inserts
			}
			if err := c.sketches[i].Merge(sk); err != nil {
				return err
			}
			mask &^= 1 << i
		}
		b = b[l:]
	}
	return nil
}

// allSketches is the mergeEncoded mask of every sketch.
const allSketches = 1<<nSketches - 1

// hashViewer is the sketches' hash of a viewer id: FNV-1a finished with the
// splitmix64 mixer, stable across processes (sketches are stored).
func hashViewer(v string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(v))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// filterDims are the filters a cell can stand for, in key order.
var filterDims = []string{"sku", "device", "source", "region"}

func filterValues(f Filters) []string { return []string{f.SKU, f.Device, f.Source, f.Region} }

// cellKey is the canonical filter of a cell: the set filters in filterDims
// order, "dim=value" joined by '&' (values query-escaped); "" for none. ok
// is false when more than MaxCellFilters are set (no such cell).
func cellKey(f Filters) (key string, ok bool) {
	var parts []string
	for i, v := range filterValues(f) {
		if v != "" {
			parts = append(parts, filterDims[i]+"="+url.QueryEscape(v))
		}
	}
	return strings.Join(parts, "&"), len(parts) <= MaxCellFilters
}

// cellKeysOf are the keys of every cell a shopper-day with these dimension
// values belongs to: one per subset of the filters with at most
// MaxCellFilters of them set (the empty subset is the no-filter cell).
func cellKeysOf(vals []string) []string {
	keys := make([]string, 0, 1<<len(vals))
	for set := 0; set < 1<<len(vals); set++ {
		f := Filters{}
		for i := range vals {
			if set&(1<<i) != 0 {
				setFilter(&f, i, vals[i])
			}
		}
		if k, ok := cellKey(f); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

func setFilter(f *Filters, i int, v string) {
	switch i {
	case 0:
		f.SKU = v
	case 1:
		f.Device = v
	case 2:
		f.Source = v
	case 3:
		f.Region = v
	}
}

// dayRowsSQL reads the shopper-days a day's cells are built from, in a
// fixed order so that a rebuild gives the same bytes.
const dayRowsSQL = `SELECT user_id, viewer, product_id, device, source, region, interacted, visible_ms, hotspots, variants,
    variant_changed, ar, clicks, platforms, ar_before_click, variant_before_click, zoom_before_click, hotspots_before_click
FROM shopper_days WHERE day = $1 AND counted ORDER BY user_id, publication_id, viewer`

// buildCells rebuilds one day's cells from its shopper_days rows (called
// by Rollup in the same transaction). Only counted shopper-days belong to
// a cell: actions on a day without a counted view of that product (a visit
// crossing midnight) are left to the exact path.
func buildCells(ctx context.Context, tx pgx.Tx, day time.Time) error {
	rows, err := tx.Query(ctx, dayRowsSQL, day)
	if err != nil {
		return err
	}
	type ownerDay struct {
		cells   map[string]*cell
		offered map[string]map[string]bool // product → store platforms clicked on it that day
		rows    []Shopper
	}
	owners := map[string]*ownerDay{}
	var order []string
	for rows.Next() {
		var user string
		var s Shopper
		if err := rows.Scan(&user, &s.Viewer, &s.Product, &s.Device, &s.Source, &s.Region, &s.Turned, &s.VisibleMs, &s.Hotspots,
			&s.Variants, &s.VariantChanged, &s.AR, &s.Clicks, &s.Platforms, &s.ARBeforeClick, &s.VariantBeforeClick,
			&s.ZoomBeforeClick, &s.HotspotsBeforeClick); err != nil {
			rows.Close()
			return err
		}
		o := owners[user]
		if o == nil {
			o = &ownerDay{cells: map[string]*cell{}, offered: map[string]map[string]bool{}}
			owners[user] = o
			order = append(order, user)
		}
		for _, p := range s.Platforms {
			if o.offered[s.Product] == nil {
				o.offered[s.Product] = map[string]bool{}
			}
			o.offered[s.Product][p] = true
		}
		o.rows = append(o.rows, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM shopper_day_cells WHERE day = $1`, day); err != nil {
		return err
	}
	var out [][]any
	for _, user := range order {
		o := owners[user]
		for _, s := range o.rows {
			h := hashViewer(s.Viewer)
			for _, k := range cellKeysOf([]string{s.Product, s.Device, s.Source, s.Region}) {
				c := o.cells[k]
				if c == nil {
					c = newCell(true)
					o.cells[k] = c
				}
				c.add(s, h, o.offered[s.Product])
			}
		}
		keys := make([]string, 0, len(o.cells))
		for k := range o.cells {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b, err := o.cells[k].encode()
			if err != nil {
				return err
			}
			out = append(out, []any{user, k, day, o.cells[k].counts[cnShopperDays], b})
		}
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"shopper_day_cells"}, []string{"user_id", "filter", "day", "shopper_days", "cell"},
		pgx.CopyFromRows(out))
	return err
}

// add folds one counted shopper-day into the cell. The funnel flags are
// those of the day (README: "per day under sketches").
func (c *cell) add(s Shopper, h uint64, offered map[string]bool) {
	inter, eng, high, clicked, added := s.Interacted(), s.Engaged(), s.HighIntent(), s.Clicked(), s.Added()
	clicks := int64(s.Clicks)
	flags := [nSketches]bool{skViewed: true, skInteracted: inter, skEngaged: eng, skHighIntent: high, skClicked: clicked,
		skHotspot: len(s.Hotspots) > 0, skAdded: added}
	for i, on := range flags {
		if on {
			c.sketches[i].InsertHash(h)
		}
	}
	c.counts[cnShopperDays]++
	c.counts[cnClicks] += clicks
	if added {
		if s.ARBeforeClick {
			c.counts[cnARAdds]++
		}
		if s.VariantBeforeClick {
			c.counts[cnVariantAdds]++
		}
		if s.ZoomBeforeClick {
			c.counts[cnZoomAdds]++
		}
		for _, hs := range s.HotspotsBeforeClick {
			c.group(grHotspot, hs)[gClicked]++
		}
	}
	bump := func(g *groupCounts, clicked bool) {
		g[gSD]++
		if inter {
			g[gInteracted]++
		}
		if eng {
			g[gEngaged]++
		}
		if s.AR {
			g[gAR]++
		}
		if clicked {
			g[gClicked]++
		}
		g[gClicks] += clicks
	}
	bump(c.group(grRegion, s.Region), clicked)
	bump(c.group(grDevice, s.Device), clicked)
	bump(c.group(grSource, s.Source), clicked)
	bump(c.group(grProduct, s.Product), clicked)
	for _, v := range s.Variants {
		bump(c.group(grVariant, s.Product+"\x00"+v), clicked)
	}
	for p := range offered {
		bump(c.group(grPlatform, p), slices.Contains(s.Platforms, p))
	}
}

// largeRange says whether the cells of filter key hold ExactBelow or more
// counted shopper-days over the range (the sketch path answers). A key with
// more filters than the cells of some day of the range were built for
// (shopper_rollup_days.cell_filters: days rolled up before migration 0020
// have cells for at most two) is never large: those days lack its cells.
func (r *Reader) largeRange(ctx context.Context, userID, key string, f Filters) (bool, error) {
	exactBelow := r.ExactBelow
	switch {
	case exactBelow < 0:
		return false, nil
	case exactBelow == 0:
		exactBelow = ExactBelow
	}
	nf := 0
	for _, v := range filterValues(f) {
		if v != "" {
			nf++
		}
	}
	var sd int64
	var covered bool
	if err := r.DB.QueryRow(ctx, `SELECT coalesce(sum(shopper_days), 0), NOT EXISTS (SELECT 1 FROM shopper_rollup_days
			WHERE day BETWEEN $3 AND $4 AND cell_filters < $5)
		FROM shopper_day_cells WHERE user_id = $1 AND filter = $2 AND day BETWEEN $3 AND $4`,
		userID, key, f.From, f.To, nf).Scan(&sd, &covered); err != nil {
		return false, fmt.Errorf("size shopper range: %w", err)
	}
	return covered && sd >= exactBelow, nil
}

// rangeCell merges userID's cells of the filters' range. ok is false when
// the exact path should answer: more filters than a cell combines, or
// fewer than exactBelow shopper-days in the range.
func (r *Reader) rangeCell(ctx context.Context, userID string, f Filters, groups, sketches bool) (*cell, bool, error) {
	key, ok := cellKey(f)
	if !ok {
		return nil, false, nil
	}
	if large, err := r.largeRange(ctx, userID, key, f); err != nil || !large {
		return nil, false, err
	}
	rows, err := r.DB.Query(ctx, `SELECT cell FROM shopper_day_cells WHERE user_id = $1 AND filter = $2 AND day BETWEEN $3 AND $4`,
		userID, key, f.From, f.To)
	if err != nil {
		return nil, false, fmt.Errorf("read day cells: %w", err)
	}
	defer rows.Close()
	acc := &cell{groups: map[string]*groupCounts{}}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, false, fmt.Errorf("read day cells: %w", err)
		}
		mask := uint(0)
		if sketches {
			mask = allSketches
		}
		if err := acc.mergeEncoded(b, groups, mask); err != nil {
			if errors.Is(err, errStaleCell) {
				return nil, false, nil // counted with older definitions: the exact path answers
			}
			return nil, false, err
		}
	}
	return acc, true, rows.Err()
}

// tallies turns a merged cell into the counts finish expects. Distinct
// shoppers per step are sketch estimates, each capped by the step above it
// (the sets are nested; two sketches' estimates need not be), so the
// ladder stays a funnel; the per-group numbers (regions, products,
// variants) and the Top Features counts are shopper-days.
func (c *cell) tallies() *tallies {
	t := newTallies()
	t.approximate = true
	capped := func(i int, above int64) int64 { return min(max(c.estimate(i), 0), above) }
	t.shoppers = max(c.estimate(skViewed), 0)
	t.interacted = capped(skInteracted, t.shoppers)
	t.engaged = capped(skEngaged, t.interacted)
	t.highIntent = capped(skHighIntent, t.engaged)
	t.clickers = capped(skClicked, t.shoppers)
	t.added = min(capped(skAdded, t.highIntent), t.clickers)
	t.plainClickers = t.clickers - t.added
	t.totalClicks = c.counts[cnClicks]
	t.arAdds, t.variantAdds, t.zoomAdds = c.counts[cnARAdds], c.counts[cnVariantAdds], c.counts[cnZoomAdds]
	var sd, clicked int64
	for k, g := range c.groups {
		kind, val := k[0], k[1:]
		switch kind {
		case grRegion:
			t.regions[val] = &regionAgg{shoppers: g[gSD], engaged: g[gEngaged], clickers: g[gClicked]}
			sd += g[gSD]
			clicked += g[gClicked]
		case grProduct:
			t.products[val] = &groupAgg{n: g[gSD], clickers: g[gClicked]}
		case grVariant:
			if p, vr, ok := strings.Cut(val, "\x00"); ok {
				t.variants[[2]string{p, vr}] = &groupAgg{n: g[gSD], clickers: g[gClicked]}
			}
		case grHotspot:
			t.hotspotAdds[val] = g[gClicked]
		}
	}
	t.regionClickRate = rate(clicked, sd)
	return t
}

// breakdowns of a merged cell: shopper-days per dimension value.
func (c *cell) breakdowns() []Breakdown {
	dims := map[byte]string{grDevice: "device", grSource: "source", grRegion: "region", grPlatform: "platform"}
	var out []Breakdown
	for k, g := range c.groups {
		dim, ok := dims[k[0]]
		if !ok {
			continue
		}
		out = append(out, Breakdown{Dimension: dim, Value: k[1:], Shoppers: g[gSD], Interacted: g[gInteracted], AR: g[gAR], Clicked: g[gClicked]})
	}
	return out
}

// topProductCells answers TopProducts from the day cells when the owner's
// range is large: the no-filter cells rank the owner's live products by
// engaged shopper-days per shopper-day, then only the best 2n products'
// own cells (filter "sku=…") are read, whose sketches give shoppers and
// engaged shoppers per product. ok is false for the exact path.
func (r *Reader) topProductCells(ctx context.Context, userID string, f Filters, n int) (map[string][2]int64, bool, error) {
	all, large, err := r.rangeCell(ctx, userID, Filters{From: f.From, To: f.To}, true, false)
	if err != nil || !large {
		return nil, false, err
	}
	lrows, err := r.DB.Query(ctx, `SELECT id FROM products WHERE user_id = $1 AND deleted_at IS NULL`, userID)
	if err != nil {
		return nil, false, fmt.Errorf("list live products: %w", err)
	}
	live, err := pgx.CollectRows(lrows, pgx.RowTo[string])
	if err != nil {
		return nil, false, fmt.Errorf("list live products: %w", err)
	}
	type cand struct {
		id      string
		sd, eng int64
	}
	var cands []cand
	for _, id := range live {
		if g := all.groups[string(rune(grProduct))+id]; g != nil && g[gSD] > 0 {
			cands = append(cands, cand{id, g[gSD], g[gEngaged]})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.eng*b.sd != b.eng*a.sd {
			return a.eng*b.sd > b.eng*a.sd
		}
		return a.sd > b.sd || a.sd == b.sd && a.id < b.id
	})
	keys := []string{}
	for _, c := range cands[:min(len(cands), 2*n)] {
		k, _ := cellKey(Filters{SKU: c.id})
		keys = append(keys, k)
	}
	rows, err := r.DB.Query(ctx, `SELECT filter, cell FROM shopper_day_cells WHERE user_id = $1 AND day BETWEEN $2 AND $3
		AND filter = ANY($4)`, userID, f.From, f.To, keys)
	if err != nil {
		return nil, false, fmt.Errorf("read product cells: %w", err)
	}
	defer rows.Close()
	acc := map[string]*cell{}
	for rows.Next() {
		var key string
		var b []byte
		if err := rows.Scan(&key, &b); err != nil {
			return nil, false, fmt.Errorf("read product cells: %w", err)
		}
		c := acc[key]
		if c == nil {
			c = &cell{}
			acc[key] = c
		}
		if err := c.mergeEncoded(b, false, 1<<skViewed|1<<skEngaged); err != nil {
			if errors.Is(err, errStaleCell) {
				return nil, false, nil
			}
			return nil, false, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	out := map[string][2]int64{}
	for key, p := range acc {
		id, err := url.QueryUnescape(strings.TrimPrefix(key, "sku="))
		if err != nil {
			continue
		}
		v := p.estimate(skViewed)
		out[id] = [2]int64{v, min(p.estimate(skEngaged), v)}
	}
	return out, true, nil
}
