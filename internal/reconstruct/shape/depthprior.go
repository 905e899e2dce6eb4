package shape

import (
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Shape classes reported in Stats.ShapeClass. The class says what kind of product
// the silhouette was read as, which decides how deep the model is where one photo
// cannot show it:
//
//   - ShapeClassRevolution, ShapeClassMug, ShapeClassBox: the geometric fits (lathe,
//     lathe with handle, cuboid), whose depth follows from the fit itself;
//   - ShapeClassFurniture: legs at the bottom under a wide body (chairs, sofas,
//     tables, desks): a seat or top as deep as the furniture, legs at the front and
//     rear corners, and the part above the seat (a backrest) as a thin slab at the
//     rear;
//   - ShapeClassBulky: wide and low with no legs (a sofa on a plinth, a shoe from the
//     side): a slab about as deep as it is tall, with rounded edges;
//   - ShapeClassFlat: everything else (bags, books, frames, watches, phones, and
//     anything the classifier cannot read): a thin slab whose depth is a fraction of
//     its width, never a pillow as deep as it is wide.
const (
	ShapeClassRevolution = "revolution"
	ShapeClassMug        = "mug"
	ShapeClassBox        = "box"
	ShapeClassFurniture  = "furniture"
	ShapeClassBulky      = "bulky"
	ShapeClassFlat       = "flat"
)

// Depth priors, as fractions of the silhouette's size (pixels), from catalogue
// products: a side chair is about as deep as it is wide, a sofa about as deep as it
// is tall, a desk a little shallower than tall; a tote bag, a framed picture or a
// watch seen face on is a fraction of its width deep.
const (
	furnitureDepthOfWidth  = 1.0  // depth ≤ width …
	furnitureDepthOfHeight = 1.0  // … and ≤ height
	bulkyDepthOfHeight     = 0.9  // a wide object without legs
	bulkyMinAspect         = 1.35 // width/height from which a legless object is bulky
	trayMinAspect          = 3.5  // width/height from which it is a dish or tray
	// A round dish, plate or bowl seen from above shows its rim: an outline that is
	// an ellipse (footprintEllipse: its IoU with the ellipse inscribed in its
	// bounding box) at least footprintMinAspect as wide as tall (a disc seen from
	// 40° or lower). The real dish seen from 20–25° matches it by 0.99; no other
	// real-set photo wider than tall passes 0.93 (a ball's or a boom box's outline
	// is about as tall as wide, a shoe's or a sofa's 0.5–0.75).
	footprintMinAspect = 1.5
	footprintEllipse   = 0.95
	flatDepthOfWidth   = 0.12 // a flat good's depth
	// loopDepthOfWidth is the depth of a product with a handle loop over its middle:
	// a tote or handbag (a 40 cm tote is 12–18 cm deep when packed, a handbag about
	// 0.4 of its width), but also a boom box, a basket or a cooler carried by a top
	// handle, which are deeper. One photo cannot tell them apart, so the depth sits
	// between, where neither reading is wildly wrong.
	loopDepthOfWidth = 0.3
	slabRound        = 1.2 // rim rounding: half-thickness ≤ slabRound·√u
	// furnitureLegsReach is how far above the silhouette's bottom (of its height)
	// the lowest row with legs apart may be: the rear legs stand higher in the
	// photo than the front ones, but the front ones reach the floor.
	furnitureLegsReach = 0.3
	// standBodyOfSpread: a solid body narrower than this share of its legs' spread
	// at the floor stands on a stand (a tripod), not on furniture legs. Furniture
	// legs stand under the seat or top, so its widest solid row is at least as wide
	// as they stand apart (1.03–1.08 on the drawn chair, sofa and desk, 1.14–1.28 on
	// the real SheenChair and GlamVelvetSofa); a tripod's legs splay out from under a
	// head (0.56–0.74 on the real camera).
	standBodyOfSpread = 0.85
	// furnitureRoundIn is how far into the body (as a share of its half-height)
	// a furniture body's rounded edge reaches its full depth.
	furnitureRoundIn = 0.1
	chairBackOfDepth = 0.14 // backrest thickness of a chair …
	sofaBackOfDepth  = 0.24 // … and of a sofa (cushions)
)

// SilClass is the silhouette's class and the measurements its depth profile needs;
// rows are working-photo pixel rows (y down).
type SilClass struct {
	Class      string
	Confidence float64 // 0..1: how clearly the silhouette shows the class's cue
	Depth      float64 // full depth of the body, pixels
	legTop     int     // furniture: first row (from the top) of the legs band; else -1
	BackFrom   int     // furniture: rows above this are the backrest; else -1
	BackThick  float64 // backrest thickness, pixels
	legHalf    float64 // half the typical leg width, pixels
	top        int     // furniture: first row of the silhouette
	// slabHalf, when positive, is the half-height (pixels) of a bulky body that
	// is a slab as deep as its depth (a dish, a tray) rather than a pillow.
	slabHalf float64
	// VetoFits is set when the silhouette shows a cue that no solid of revolution
	// or box has (legs with backdrop between them, a handle loop over the middle),
	// so the geometric fits are not tried.
	VetoFits bool
}

// rowStat summarises one row of the mask: its runs, covered pixels and extent.
type rowStat struct {
	runs   int
	cover  int
	x0, x1 int
	maxRun int
}

// rowRuns lists the [x0, x1) runs of the mask (alpha ≥ 128) in row y.
func rowRuns(seg *segment.Segmentation, y int) [][2]int {
	var runs [][2]int
	row := seg.Alpha[y*seg.W : (y+1)*seg.W]
	start := -1
	for x := seg.Bbox.Min.X; x <= seg.Bbox.Max.X; x++ {
		in := x < seg.Bbox.Max.X && row[x] >= 128
		switch {
		case in && start < 0:
			start = x
		case !in && start >= 0:
			runs = append(runs, [2]int{start, x})
			start = -1
		}
	}
	return runs
}

// ClassifySilhouette reads the class of a silhouette that no geometric fit took.
// Legs are rows near the bottom made of two or more separate narrow runs that span
// most of the width, under a body that fills the width: backdrop between the legs is
// what tells a chair from a blob.
func ClassifySilhouette(seg *segment.Segmentation) SilClass {
	b := seg.Bbox
	W, H := float64(b.Dx()), float64(b.Dy())
	out := SilClass{Class: ShapeClassFlat, legTop: -1, BackFrom: -1}
	if W < 8 || H < 8 || seg.WholeFrame {
		out.Depth = flatDepthOfWidth * W
		out.Confidence = 0.2
		return out
	}
	stats := make([]rowStat, b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		runs := rowRuns(seg, y)
		st := rowStat{runs: len(runs)}
		if len(runs) > 0 {
			st.x0, st.x1 = runs[0][0], runs[len(runs)-1][1]
		}
		for _, r := range runs {
			st.cover += r[1] - r[0]
			st.maxRun = max(st.maxRun, r[1]-r[0])
		}
		stats[y-b.Min.Y] = st
	}
	// A leg row is made only of narrow runs; legs at both sides show as two or more
	// runs spanning much of the width. Under perspective the front legs reach lower
	// than the rear ones, so the lowest rows may show one leg only.
	legRow := func(st rowStat) bool {
		return st.runs >= 1 && float64(st.maxRun) <= 0.2*W && float64(st.cover) <= 0.5*W
	}
	spread := func(st rowStat) bool { return st.runs >= 2 && float64(st.x1-st.x0) >= 0.4*W }
	// Walk up from just above the floor line while leg rows continue; a short break
	// (a stretcher bar between the legs) is bridged.
	margin := max(1, int(0.01*H))
	gapTol := max(2, int(0.05*H))
	bottom := b.Dy() - 1 - margin
	lastLeggy, nLeggy, nSpread, lowestSpread := -1, 0, 0, -1
	for i := bottom; i >= 0; i-- {
		if legRow(stats[i]) {
			lastLeggy = i
			nLeggy++
			if spread(stats[i]) {
				nSpread++
				if lowestSpread < 0 {
					lowestSpread = i
				}
			}
			continue
		}
		if lastLeggy < 0 && bottom-i > gapTol || lastLeggy >= 0 && lastLeggy-i > gapTol {
			break
		}
	}
	if lastLeggy >= 0 {
		band := bottom - lastLeggy + 1
		legFrac := float64(band) / H
		above := lastLeggy - max(2, int(0.03*H))
		wideAbove := above >= 0 && float64(stats[above].x1-stats[above].x0) >= 0.6*W
		density := float64(nLeggy) / float64(band)
		// Furniture legs stay apart up to the seat; a tripod's converge under the
		// head (a camera on a stand is solid above its legs, no seat and back).
		topRows, topSpread := 0, 0
		for i := lastLeggy; i <= lastLeggy+max(1, band/4) && i <= bottom; i++ {
			topRows++
			if spread(stats[i]) {
				topSpread++
			}
		}
		apart := 2*topSpread >= topRows
		// Furniture stands on its legs: legs apart reach down to the floor (the
		// front ones at least). Runs apart only high above it are something
		// hanging beside a post (a lamp post's lantern), not legs.
		grounded := lowestSpread >= 0 && float64(bottom-lowestSpread) <= furnitureLegsReach*H
		if legFrac >= 0.03 && density >= 0.6 && float64(nSpread) >= 0.3*float64(band) && wideAbove && apart && grounded {
			out := furnitureClass(stats, b.Min.Y, lastLeggy, bottom, W, H, legWidth(seg, b.Min.Y+lastLeggy, b.Min.Y+bottom), density)
			if onStand(stats, lastLeggy, bottom) {
				// A body on a stand is one solid block on its legs: what narrows
				// above the legs is the head and the body, not a sofa's backrest
				// (the real AntiqueCamera seen from above, its tripod whole: F@5
				// 0.52 with a backrest, 0.83 without; read as a bulky body 0.82).
				out.BackFrom = -1
			}
			out.VetoFits = true
			return out
		}
	}
	if legTop, ok := legsUnderBody(seg); ok {
		// Seen at an angle, a long piece's legs hang at different heights under a
		// slanted underside (see legs.go): furniture whose legs start under the
		// body's lowest row.
		top := legTop - b.Min.Y
		bottom := b.Dy() - 1
		out := furnitureClass(stats, b.Min.Y, top, bottom, W, H, legWidth(seg, legTop, b.Max.Y-1), 0.8)
		// Seen at an angle the outline's narrowing is the view's, not where a
		// backrest starts: the body is one slab.
		out.BackFrom = -1
		out.VetoFits = true
		return out
	}
	if holeBottom, ok := centralLoop(seg); ok {
		// A loop over the middle (a tote's or a handbag's handles): no solid of
		// revolution shows an enclosed hole, and a mug's is at its side.
		out.VetoFits = true
		out.Depth = loopDepthOfWidth * W
		out.Confidence = 0.6
		if bw, fill, sides := bodyBelow(seg, holeBottom); fill <= roundBodyFill || sides >= roundBodySides {
			// The body under the handle is round, not a bag's straight-sided panel
			// (a round speaker, a kettlebell, a basket): as deep as it is wide,
			// never a slab (and, like any bulky product, not deeper than tall).
			out.Class = ShapeClassBulky
			out.Depth = min(bw, bulkyDepthOfHeight*H)
			out.Confidence = 0.3
		}
		return out
	}
	// No cue: most catalogue products that no fit takes (shoes, toys, cameras,
	// lamps whose outline the lathe could not read, upholstered furniture) are
	// solid, so the fallback is a rounded prism as deep as it is wide, capped by
	// its height for wide products: never the pillow-thin inflation, never deeper
	// than the product is tall.
	out.Class = ShapeClassBulky
	out.Depth = min(W, bulkyDepthOfHeight*H)
	rim := W >= footprintMinAspect*H && ellipseMatch(seg) >= footprintEllipse
	if W >= trayMinAspect*H || rim {
		// Far wider than tall (a dish, a tray, a rug), or a round rim seen from
		// above: what shows is mostly the top seen from a little above, so the
		// footprint is about as deep as wide, and the body a slab that deep (see
		// slabRounding), not a pillow as deep as the band is tall.
		out.Depth = W
		out.slabHalf = H / 2
		// A rim's ellipse is not a side view's profile: the lathe would make it a
		// lens as tall as the ellipse.
		out.VetoFits = rim
	}
	out.Confidence = 0.3
	if W >= bulkyMinAspect*H {
		out.Confidence = segment.Clamp01(0.4 + 0.3*(W/H-bulkyMinAspect))
	}
	return out
}

// onStand reports whether the solid body above a band of legs (rows lastLeggy..bottom
// of stats) is clearly narrower than the legs stand apart at the floor: legs splayed
// out from under a narrow head (a camera on a tripod, a lamp on a stand), not a
// seat's or a top's legs, which stand under the body's width.
func onStand(stats []rowStat, lastLeggy, bottom int) bool {
	spread := 0
	for i := lastLeggy; i <= bottom; i++ {
		spread = max(spread, stats[i].x1-stats[i].x0)
	}
	body := 0
	for i := range lastLeggy {
		body = max(body, stats[i].maxRun)
	}
	return float64(body) < standBodyOfSpread*float64(spread)
}

// ellipseMatch is the IoU of the mask with the ellipse inscribed in its bounding box.
func ellipseMatch(seg *segment.Segmentation) float64 {
	b := seg.Bbox
	cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
	ax, ay := float64(b.Dx())/2, float64(b.Dy())/2
	inter, union := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		dy := (float64(y) + 0.5 - cy) / ay
		for x := b.Min.X; x < b.Max.X; x++ {
			dx := (float64(x) + 0.5 - cx) / ax
			in, m := dx*dx+dy*dy <= 1, seg.Alpha[y*seg.W+x] >= 128
			if in && m {
				inter++
			}
			if in || m {
				union++
			}
		}
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// stats2extent returns the per-row extents (rightmost minus leftmost pixel) from the
// top of the bounding box down.
func stats2extent(stats []rowStat) []int {
	out := make([]int, len(stats))
	for i, s := range stats {
		out[i] = s.x1 - s.x0
	}
	return out
}

// legWidth is the median width of the runs in rows y0..y1 (the legs band).
func legWidth(seg *segment.Segmentation, y0, y1 int) float64 {
	var w []float64
	for y := y0; y <= y1; y++ {
		for _, r := range rowRuns(seg, y) {
			w = append(w, float64(r[1]-r[0]))
		}
	}
	if len(w) == 0 {
		return 1
	}
	slices.Sort(w)
	return w[len(w)/2]
}

// furnitureClass lays out a piece of furniture: legs below legTop (rows relative to
// the bounding box top, y0), a seat or top above them as deep as the furniture, and
// above the seat, where the outline narrows (a sofa's arms end) or a chair's seat
// ends, a backrest at the rear.
func furnitureClass(stats []rowStat, y0, legTop, bottom int, W, H, legW, density float64) SilClass {
	extent := stats2extent(stats)
	out := SilClass{Class: ShapeClassFurniture, legTop: y0 + legTop, BackFrom: -1, top: y0}
	out.Depth = min(furnitureDepthOfWidth*W, furnitureDepthOfHeight*H)
	out.legHalf = max(1, legW/2)
	legFrac := float64(bottom-legTop+1) / H
	// The seat's width: the widest extent just above the legs.
	seatW := 0
	for i := legTop; i >= max(0, legTop-int(0.15*H)); i-- {
		seatW = max(seatW, extent[i])
	}
	// Going up from the seat, the first row clearly narrower than the seat starts
	// the backrest (a sofa's arms, a chair's seat corners).
	drop := -1
	for i := legTop - int(0.05*H); i >= int(0.08*H); i-- {
		if float64(extent[i]) < 0.85*float64(seatW) {
			drop = i
			break
		}
	}
	chair := legFrac >= 0.25
	var fallback int
	if chair {
		// A chair's seat is a thin board: above it (and the top of the seat seen from
		// a little above) is the back. A table's top is the last band; no back.
		fallback = legTop - int(0.15*H)
		out.BackThick = chairBackOfDepth * out.Depth
	} else {
		// A sofa's seat cushion is at about 45 % of its height.
		fallback = int(0.55 * H)
		out.BackThick = sofaBackOfDepth * out.Depth
	}
	from := fallback
	if drop >= 0 {
		from = min(drop, fallback)
		if !chair {
			from = drop
		}
	}
	// A backrest is only laid out for low furniture (sofas, armchairs), whose back
	// shows above the arms. Above tall legs the silhouette does not tell a chair's
	// thin back from a solid body (a camera on a tripod, a cabinet on legs), and a
	// full-depth body is the smaller error for both, unless the back stands on
	// posts: backdrop seen between the seat and a wide back.
	if !chair && from > int(0.05*H) {
		out.BackFrom = y0 + from
	}
	if chair {
		if posts, ok := backPosts(stats, legTop, W, H); ok {
			out.BackFrom = y0 + posts + 1
		}
	}
	// Confidence: clear, dense leg rows over a tall enough band.
	out.Confidence = segment.Clamp01(0.5 + 0.3*density + 0.5*min(legFrac, 0.4))
	return out
}

// depth returns the depth function of the class: centre and half-thickness of the
// body at each pixel. Every class caps the half-thickness by slabRound·√u so the rim
// is rounded and thin parts (legs, straps) stay as thin as they look.
func (c SilClass) DepthFn(front bool) depthFn {
	half := c.Depth / 2
	switch c.Class {
	case ShapeClassFurniture:
		legC := half - c.legHalf
		if !front {
			legC = -legC
		}
		backC := -half + c.BackThick/2
		// The body (seat, top, and a chair's back) is a slab as deep as the piece,
		// rounded only near its outline. With the bare slabRound·√u it was a pillow:
		// √u grows with the distance to the outline, so a seat band a fifth of the
		// width tall (more than half of it the seat's top seen from above) came out
		// a third as deep as the legs stand apart. The rounding reaches the full
		// depth furnitureRoundIn of the way into a band half the body's height
		// (rounding by the seat band's own height, when a backrest is found, made
		// the real SheenChair's seat, whose band is mostly its top seen from above,
		// too thick: F@5 0.59 → 0.51).
		r := slabRounding(half, float64(c.legTop-c.top)/2)
		return func(px, py, u float64) (float64, float64) {
			h := r * math.Sqrt(u)
			switch {
			case int(py) >= c.legTop:
				return legC, min(h, c.legHalf*1.2)
			case c.BackFrom >= 0 && int(py) < c.BackFrom:
				return backC, min(h, c.BackThick/2)
			}
			return 0, min(h, half)
		}
	case ShapeClassFlat:
		return func(px, py, u float64) (float64, float64) {
			return 0, min(inflateDepth*math.Sqrt(u), half)
		}
	}
	r := slabRound
	if c.slabHalf > 0 {
		r = slabRounding(half, c.slabHalf)
	}
	return func(px, py, u float64) (float64, float64) {
		return 0, min(r*math.Sqrt(u), half)
	}
}

// slabRounding is the factor on √u that makes a body of half-depth half and
// half-height bodyHalf (pixels) a slab rounded only near its outline: full depth
// furnitureRoundIn of the way in. For a band of half-height a, u at distance d from
// its edge is 2(2ad − d²), so √u there is a·√(2t(2−t)) with t = d/a.
func slabRounding(half, bodyHalf float64) float64 {
	bodyHalf = max(4, bodyHalf)
	return max(slabRound, half/(math.Sqrt(2*furnitureRoundIn*(2-furnitureRoundIn))*bodyHalf))
}

// roundBodyFill is the share of its bounding box that a body under a handle loop
// fills at most to be read as round: an ellipse fills π/4 ≈ 0.79, a bag's panel
// (a rectangle, a trapezoid narrowing to 0.8 of its width at the top, or either with
// its bottom edge slanted by the view) 0.88–1.
const roundBodyFill = 0.83

// roundBodySides is the curvature of its sides (the RMS distance of each side's edge
// from its best straight line, over the upper three quarters of the body, as a share
// of the body's width, averaged over both sides) from which a body under a handle loop
// is read as round whatever its fill. A disc shows 0.044; a bag's panel, trapezoid or
// not, under 0.003. It matters when the photo is taken from above: the loop's hole
// then ends at the top of a round body, and a disc cut off above its middle fills
// more of its box (0.85 at a third of the way down, the real set's boom box seen from
// 25°) than a whole one, as much as a panel with a slanted bottom edge.
const roundBodySides = 0.01

// bodyBelow measures the mask under row y (working pixels; the bottom of a handle
// loop's hole): its bounding box's width, the share of that box it fills (1 when
// there is no body), and how curved its sides are (see roundBodySides).
func bodyBelow(seg *segment.Segmentation, y int) (w, fill, sides float64) {
	type row struct{ x0, x1, cover int }
	var rows []row
	x0, x1, area := seg.W, -1, 0
	for yy := max(0, y+1); yy < seg.Bbox.Max.Y; yy++ {
		runs := rowRuns(seg, yy)
		if len(runs) == 0 {
			continue
		}
		r := row{x0: runs[0][0], x1: runs[len(runs)-1][1]}
		for _, run := range runs {
			r.cover += run[1] - run[0]
		}
		rows = append(rows, r)
		x0, x1, area = min(x0, r.x0), max(x1, r.x1), area+r.cover
	}
	if x1 < 0 {
		return 0, 1, 0
	}
	w = float64(x1 - x0)
	// The sides over the upper three quarters: a bag's bottom corners (rounded, or one
	// raised by a slanted bottom edge) are left out.
	lo, hi := len(rows)*5/100, len(rows)*75/100
	edge := func(at func(r row) int) float64 {
		if hi-lo < 3 {
			return 0
		}
		xs := make([]float64, 0, hi-lo)
		ys := make([]float64, 0, hi-lo)
		for i := lo; i < hi; i++ {
			xs, ys = append(xs, float64(i)), append(ys, float64(at(rows[i])))
		}
		return lineRMS(xs, ys) / w
	}
	sides = (edge(func(r row) int { return r.x0 }) + edge(func(r row) int { return r.x1 })) / 2
	return w, float64(area) / (w * float64(len(rows))), sides
}

// lineRMS is the RMS distance of ys from the least-squares line through (xs, ys).
func lineRMS(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy = sx+xs[i], sy+ys[i]
		sxx, sxy = sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	b := (n*sxy - sx*sy) / den
	a := (sy - b*sx) / n
	var ss float64
	for i := range xs {
		d := ys[i] - (a + b*xs[i])
		ss += d * d
	}
	return math.Sqrt(ss / n)
}

// centralLoop reports whether the silhouette encloses a hole of backdrop (at least 2 %
// of the object's area; smaller ones were filled by the segmenter) whose centre lies
// in the middle fifth of the width and the upper half of the height: the handles of a
// bag. bottom is the hole's lowest row (working pixels).
func centralLoop(seg *segment.Segmentation) (bottom int, ok bool) {
	b := seg.Bbox
	w, h := b.Dx(), b.Dy()
	seen := make([]bool, w*h)
	queue := make([]int32, 0, 1024)
	inside := func(x, y int) bool { return seg.Alpha[(b.Min.Y+y)*seg.W+b.Min.X+x] >= 128 }
	for i := range seen {
		x, y := i%w, i/w
		if seen[i] || inside(x, y) {
			continue
		}
		seen[i] = true
		queue = append(queue[:0], int32(i))
		touches := false
		sx, sy, maxY := 0, 0, 0
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			cx, cy := c%w, c/w
			sx += cx
			sy += cy
			maxY = max(maxY, cy)
			if cx == 0 || cy == 0 || cx == w-1 || cy == h-1 {
				touches = true
			}
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				xx, yy := cx+d[0], cy+d[1]
				if xx < 0 || yy < 0 || xx >= w || yy >= h {
					continue
				}
				j := yy*w + xx
				if !seen[j] && !inside(xx, yy) {
					seen[j] = true
					queue = append(queue, int32(j))
				}
			}
		}
		n := len(queue)
		if touches || n*50 < seg.Area {
			continue
		}
		mx, my := float64(sx)/float64(n), float64(sy)/float64(n)
		if math.Abs(mx-float64(w)/2) <= 0.1*float64(w) && my < 0.5*float64(h) {
			return b.Min.Y + maxY, true
		}
	}
	return 0, false
}

// squareOnShare is the share of a fitted box's projected width below which its
// narrower visible face is too thin to measure the box's depth by.
const squareOnShare = 0.05

// SquareOn reports whether the box was seen (nearly) square on: its narrower visible
// face is a sliver, so its depth was not measured but assumed (a picture frame turned
// a little fits a deep box as well as a thin one).
func (c CuboidFit) SquareOn() bool {
	a := c.Wr * math.Abs(math.Cos(c.Yaw))
	b := c.Dr * math.Abs(math.Sin(c.Yaw))
	return min(a, b) < squareOnShare*(a+b)
}

// FlatClass is the flat-good class for seg with the given confidence.
func FlatClass(seg *segment.Segmentation, confidence float64) SilClass {
	return SilClass{Class: ShapeClassFlat, Confidence: confidence, legTop: -1, BackFrom: -1,
		Depth: flatDepthOfWidth * float64(seg.Bbox.Dx())}
}

// backPosts finds a chair's back standing on posts: going up from the seat (rows just
// above the legs band, wide and solid), a band of rows made of two or more narrow
// runs spread across the width (the posts, backdrop between them), then wide rows
// again (the back). It returns the lowest post row.
func backPosts(stats []rowStat, legTop int, W, H float64) (int, bool) {
	i := legTop - 1
	// The seat: wide rows.
	seat := 0
	for ; i >= 0 && float64(stats[i].cover) >= 0.6*W; i-- {
		seat++
	}
	if seat < max(2, int(0.03*H)) {
		return 0, false
	}
	lowest := i
	posts := 0
	for ; i >= 0; i-- {
		st := stats[i]
		if st.runs >= 2 && float64(st.maxRun) <= 0.25*W && float64(st.x1-st.x0) >= 0.3*W {
			posts++
			continue
		}
		break
	}
	if posts < max(2, int(0.04*H)) {
		return 0, false
	}
	back := 0
	for ; i >= 0 && float64(stats[i].cover) >= 0.4*W; i-- {
		back++
	}
	if back < max(2, int(0.08*H)) {
		return 0, false
	}
	return lowest, true
}
