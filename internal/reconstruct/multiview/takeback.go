package multiview

import (
	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Taking back what one view lost (issue 34 §3). The segmenter forgives anything
// that looks like the backdrop darkened by a shadow, so a grey or off-white part in
// shade (a lamp's base seen from its dark side, a shoe's sole, a candle holder's
// foot) is cut from that view's mask; carving then removes it from the model for
// good, although the other views show it. One photo cannot tell such a part from
// a contact shadow. Several can:
//   - a contact shadow lies on the floor around the base, where the other views
//     see backdrop, so the hull carved from the other views mostly does not reach
//     it; a product part does;
//   - photo-consistency: a product part seen from the opposite side has the same
//     colour (lightness aside, since the sides are lit differently), while a
//     shadow taken back in one view lies, as the opposite view sees it, in front
//     of or behind the product, on a pixel of the product's colour.
// So a point of space rejected by exactly one view is kept when that view's loose
// mask (every cell unlike the fitted backdrop, shadow-like or not, except what a
// row's mask encloses: growMask, LooseCells) keeps it, every other view's mask
// keeps it, and the view facing the rejecting one sees it well inside its mask in
// the same chromaticity; only above the ground the taken-back hull stands on.
//
// On by default for the carve (UseTakeBack), with the poses EstimatePoses chose,
// unless the poses disagree with the masks (choose.go: the taken-back hull leaves
// more than mvTakeBackMiss of the masks uncovered). With 1.3.3's masks that guard
// was what kept IridescenceLamp from losing 0.12 (its poses, fitted to strict masks
// that had lost its base in one view, bent to explain it); with 1.3.4's masks (the
// tint test keeps that base) see the history of docs/reconstruction.md (git log -p) ("The take-back carve is
// on"). With the exact cameras the take-back raises the mean 0.611 → 0.726. The
// pose search also searches with it (PoseTakeBack): a second search on the
// take-back's objective, compared with the strict one after two rounds
// (EstimatePoses); with the ground prior the real set's four-photo mean is 0.602
// → 0.622 for 0.4 CPU-s more per model; the history of docs/reconstruction.md (git log -p).

const (
	// mvTakeBackViews is the fewest carving views for the take-back: with two,
	// "the other views" is one photo, whose cone alone reaches far past the
	// product.
	mvTakeBackViews = 3
)

// UseTakeBack switches the take-back on (off: loose masks are not made and the
// carve is the plain hull).
var UseTakeBack = true

// looseAt is the bilinear loose alpha (0–1) at working pixel (u, w); the strict
// alpha where the view has no loose mask.
func (v *View) looseAt(u, w float64) float32 {
	if v.Loose == nil {
		return v.AlphaAt(u, w)
	}
	return bilinearAlpha(v.Loose, v.Seg.W, v.Seg.H, u, w)
}

// takeBackValue is the soft occupancy of a point whose views' alphas are a and
// loose alphas l: the best, over the views r, of r's loose alpha against every
// other view's strict alpha (at least min(a), the plain hull).
func takeBackValue(a, l []float32) float32 {
	best := float32(0)
	for r := range a {
		o := l[r]
		for j, x := range a {
			if j != r {
				o = min(o, x)
			}
		}
		best = max(best, o)
	}
	return best
}

// mergeTakeBack puts the take-back field fl into f above the ground layer fl
// stands on (groundLayer; not f's: a hull that lost a lamp's base would put the
// ground at the base's top). Below it the strict hull is kept: there the views'
// loose masks, contact shadow around the base, fill the wedge under the base.
func mergeTakeBack(f, fl []float32, g geom.VoxGrid) {
	if fl == nil {
		return
	}
	nx, ny, nz := g.Nx+1, g.Ny+1, g.Nz+1
	cut := groundLayer(fl, g)
	for k := range nz {
		for j := cut; j < ny; j++ {
			copy(f[(k*ny+j)*nx:(k*ny+j+1)*nx], fl[(k*ny+j)*nx:(k*ny+j+1)*nx])
		}
	}
}

// PoseTakeBack lets the pose search carve with the take-back too (with
// UseTakeBack; off: the poses come from the strict masks alone). See the file
// comment and EstimatePoses.
var PoseTakeBack = true

// supported reports whether the point p, rejected by one view of vs (alpha a
// below ½) and kept by the others, looks the same in the rejecting view and in
// the view facing it (photo-consistency): a part of the product seen from two
// sides has one colour, while a contact shadow taken back in one view lies, as
// seen from the other side, in front of or behind the product and so on a pixel
// of another colour. Lightness may differ (the two sides are lit differently),
// chromaticity may not.
func supported(vs []*View, a []float32, p [3]float64) bool {
	r := -1
	for vi := range vs {
		if a[vi] < geom.HullIso {
			r = vi
		}
	}
	if r < 0 {
		return true
	}
	return ConsistentAt(vs[r], vs[OppositeView(vs, r)], p)
}

// OppositeView is the view of vs whose camera looks most nearly against view r's
// (the one whose silhouette bounds the same directions).
func OppositeView(vs []*View, r int) int {
	opp, best := -1, 2.0
	for vi, v := range vs {
		if vi == r {
			continue
		}
		d := 0.0
		for c := range 3 {
			d += v.Cam.R[2][c] * vs[r].Cam.R[2][c]
		}
		if d < best {
			opp, best = vi, d
		}
	}
	return opp
}

// ConsistentAt reports whether views vr and vj see p in colours of the same
// chromaticity, vj from well inside its mask.
func ConsistentAt(vr, vj *View, p [3]float64) bool {
	// Only where vj sees p well inside its outline: on its edge the cell's colour
	// is as much the floor beside the product as the product.
	if u, w, z := vj.Cam.Project(p); z <= 0 || vj.AlphaAt(u, w) < mvConsistInside {
		return false
	}
	cj, okj := vj.cellColour(p)
	cr, okr := vr.cellColour(p)
	if !okj || !okr {
		return false
	}
	if cr.L > cj.L {
		cr, cj = cj, cr
	}
	return segment.ShadowChromaDev(cr, [3]float64{float64(cj.L), float64(cj.A), float64(cj.B)}) <= mvConsistChroma
}

// mvConsistChroma is the largest chromaticity difference (CIELAB units, after
// scaling the lighter colour to the darker one's lightness) between two views'
// colours of a point taken back.
const mvConsistChroma = 6.0

// mvConsistInside is the alpha from which the facing view's colour at a point
// is the product's.
const mvConsistInside = 0.9

// cellColour is the view's segmentation-grid colour where p projects.
func (v *View) cellColour(p [3]float64) (segment.Lab, bool) {
	u, w, z := v.Cam.Project(p)
	if z <= 0 || u < 0 || w < 0 {
		return segment.Lab{}, false
	}
	x, y := int(u)/v.Seg.F, int(w)/v.Seg.F
	if x >= v.Seg.Sw || y >= v.Seg.Sh || len(v.Seg.Slab) != v.Seg.Sw*v.Seg.Sh {
		return segment.Lab{}, false
	}
	return v.Seg.Slab[y*v.Seg.Sw+x], true
}
