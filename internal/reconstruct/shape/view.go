package shape

import (
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Camera model for solids of revolution. A phone photo is taken a little above the
// object, so its bottom rim shows as the lower half of an ellipse and its top as the
// upper half of one; perspective also narrows the farther (lower) part. Taking image
// rows as heights therefore makes the object too tall for its width. latheView
// estimates the camera pitch from the bottom rim's ellipse (its depth b over its
// half-width R is the sine of the viewing angle there) and a phone focal length, and
// maps each silhouette row to a true height and radius by intersecting the row's
// viewing ray with the object's vertical axis.

// PhoneFocal35 is the 35 mm-equivalent focal length assumed for photos: phone main
// cameras are 23–28 mm.
const PhoneFocal35 = 26.0

type latheView struct {
	ok          bool
	f           float64 // focal length, working pixels
	cx, cy      float64 // principal point
	pitch       float64 // camera pitch below horizontal, radians
	yTop, yBot  float64 // rows (pixel-edge) of the top and bottom rim centres
	c0y, c0z    float64 // base centre in camera coordinates (y up, z forward)
	sinE, cosE  float64
	bBot, bTop  float64 // ellipse depths in pixels
	axisX       float64
	heightTotal float64 // true height, same units as geo's output
}

// newLatheView estimates the view from the silhouette rows and the fitted axis.
func newLatheView(seg *segment.Segmentation, sr *SilhouetteRows, radius []float64, axis float64) latheView {
	n := len(radius)
	v := latheView{f: PhoneFocal35 / 43.27 * math.Hypot(float64(seg.W), float64(seg.H)),
		cx: float64(seg.W) / 2, cy: float64(seg.H) / 2, axisX: axis}
	if n < 16 {
		return v
	}
	// The bottom rim's ellipse: its depth b and half-width R in pixels.
	bestB, R := FitBottomRim(func(t int) float64 { return radius[max(0, n-1-t)] }, n)
	// At most 37° from above: a bevel blended into the rim's ellipse reads deeper than
	// the rim (see below), and the cap keeps that from overstating the angle.
	sinB := min(bestB/max(R, 1), 0.6)
	yLow := float64(sr.bottom + 1)
	v.bBot = bestB
	eBottom := math.Asin(sinB)
	v.yBot = yLow - bestB
	// Top rim: its depth is measured on the outline like the bottom's, not predicted
	// from the pitch (that needs the focal length, which is unknown: a 50 mm photo
	// sees the top from nearly the same angle as the bottom). A camera below the rim
	// (a tall object shot from its middle) sees it from underneath: the outline's top is
	// then the rim's front half, whose tip lies above the rim's centre by the depth just
	// as the back half's does from above.
	yHigh := float64(sr.Top)
	bt, rt := FitRimEllipse(func(t int) float64 { return radius[min(n-1, t)] }, n)
	v.bTop = bt
	v.yTop = yHigh + bt
	v.f = focalFromRims(v.f, v.cy, eBottom, v.yBot, bt, rt, v.yTop, slices.Max(radius))
	v.pitch = eBottom - math.Atan((v.yBot-v.cy)/v.f)
	// Straight sides give a second reading of the camera: they are vertical lines, so
	// their images meet at the vertical vanishing point, f/tan(pitch) below the
	// principal point, and the outline's width shrinks linearly towards it (measured
	// within 0.5 % on the benchmark's cans and mugs). With it the top rim's angle
	// gives a focal length that does not lean on the bottom rim, whose ellipse a bevel
	// inflates (a 50 mm can read as 33 mm). Each reading is fused with the rims' one
	// (geometric mean of the focal lengths, mean of the pitches) rather than replacing
	// it: a plain cylinder's rims (a mug's) are exact, and the sides' readings alone
	// cost mugs 0.003 IoU while lifting cans.
	if k, ok := SideTaper(radius, sr.Top, v.cy, int(2*bt)+n/10, n-1-int(2*bestB)-n/10); ok {
		if rt >= 0.5*slices.Max(radius) {
			v.f = math.Sqrt(v.f * focalFromTop(v.f, k, v.cy, v.yTop, bt/rt))
		}
		v.pitch = (v.pitch + math.Atan(v.f*k)) / 2
	}
	v.pitch = min(max(v.pitch, -0.1), 0.7)
	// A rim that widens just above its edge (a can's bevel) blends with the edge's
	// ellipse into one deeper ellipse-like curve, which puts the base centre too high
	// and shortens the object. The outline's lowest rows are the bottom edge's alone:
	// their curvature gives R²/b = b/sin²e, so with the viewing angle from the
	// camera just found the depth follows without the bevel.
	// Not under an overhang: a lamp's thin base disc has no bevel, and its base is
	// fitted by overhang.go instead.
	if rho := tipCurvature(func(t int) float64 { return radius[max(0, n-1-t)] }, bestB); rho > 0 && !hasOverhang(radius[min(n, int(bt)+1):max(int(bt)+1, n-int(bestB)-1)]) {
		for range 3 {
			e := v.pitch + math.Atan((v.yBot-v.cy)/v.f)
			if e <= 0 {
				break
			}
			b := min(bestB, rho*math.Sin(e)*math.Sin(e))
			v.yBot, v.bBot = yLow-b, b
		}
	}
	v.placeBase(n)
	return v
}

// placeRims finds the top rim's centre row from the pitch (the top's ellipse depth is
// its radius times the sine of the viewing angle there) and places the base centre.
// The lamp path (overhang.go) calls it after solving focal length and pitch from the
// shade's and base's rims, where the top's depth is better predicted than measured.
// fromBelow: a top above the camera shows the near half of its ellipse above the rim
// (only trusted where the focal length was measured, not assumed).
func (v *latheView) placeRims(sr *SilhouetteRows, radius []float64, fromBelow bool) {
	n := len(radius)
	// Top rim: depth = radius there × sine of the viewing angle at that row.
	yHigh := float64(sr.Top)
	bt := 0.0
	for range 4 {
		e := v.pitch + math.Atan((yHigh+bt-v.cy)/v.f)
		bt = radiusAt(radius, sr.Top, yHigh+bt+1) * math.Sin(e)
		if fromBelow {
			bt = math.Abs(bt)
		}
		bt = max(0, bt)
	}
	bt = min(bt, float64(n)/4)
	v.bTop = bt
	v.yTop = yHigh + bt
	v.placeBase(n)
}

// placeBase places the base centre in camera coordinates from the rim rows, pitch
// and focal length already set, and the true height; ok says whether the view holds
// (the rims must be a third of the outline's n rows apart).
func (v *latheView) placeBase(n int) {
	v.ok = false
	v.sinE, v.cosE = math.Sin(v.pitch), math.Cos(v.pitch)
	if v.yBot-v.yTop < float64(n)/3 {
		return
	}
	// Base centre in camera coordinates at unit depth.
	dy0 := -(v.yBot - v.cy) / v.f
	v.c0y, v.c0z = v.dirYZ(dy0)
	yb, _, _ := v.geo(v.yTop, 0)
	v.heightTotal = yb
	v.ok = v.heightTotal > 0
}

// dirYZ returns the world-frame y and z of the viewing ray through an image row whose
// normalised up-offset is u (ray = fwd + up·u, fwd·dir = 1).
func (v latheView) dirYZ(u float64) (float64, float64) {
	// fwd = (0, −sinE, cosE) with z pointing away from the camera; up = (0, cosE, sinE).
	return -v.sinE + u*v.cosE, v.cosE + u*v.sinE
}

// geo maps a silhouette row y (pixel-edge) and its half-width r (pixels) to the true
// height above the base and radius, in units of "pixels at unit depth" (f·metres at
// the base centre's depth): both scale alike, and the model is normalised later.
func (v latheView) geo(y, r float64) (height, radius, depth float64) {
	y = min(max(y, v.yTop), v.yBot)
	dy, dz := v.dirYZ(-(y - v.cy) / v.f)
	// The ray meets the axis (vertical line through the base centre) at parameter t
	// where its world z equals the base centre's.
	t := v.c0z / dz
	height = (t*dy - v.c0y) * v.f
	return height, r * t, t
}

// project maps a point of the object (f-scaled world units as geo returns them: x
// right of the axis, height above the base, z offset from the axis away from the
// camera) to its image offset right of the axis and its row.
func (v latheView) project(x, height, z float64) (dx, row float64) {
	py, pz := v.c0y*v.f+height, v.c0z*v.f+z
	zc := -py*v.sinE + pz*v.cosE
	up := py*v.cosE + pz*v.sinE
	return v.f * x / zc, v.cy - v.f*up/zc
}

// hasOverhang says whether some row is followed, within a quarter of the height
// below it, by one under a quarter as wide: a shade over a stem. Only there does the
// lamp part prior pay (overhang.go); elsewhere it would only add noise.
func hasOverhang(radius []float64) bool {
	n := len(radius)
	for k, r := range radius {
		for j := k + 1; j < n && j <= k+n/4; j++ {
			if radius[j] < 0.25*r {
				return true
			}
		}
	}
	return false
}

// FitRimEllipse fits the half of a rim's ellipse that forms one end of the outline: hw(t)
// is the outline's half-width t rows in from that end. Below its centre row (t < b)
// the outline is R·√(1−(1−t/b)²); beyond it the object may widen slowly (a can's
// bevelled rim, a vase's belly: up to rimWiden pixels per row) but not narrow. R is fitted
// with b rather than read from the rows above: taking the widest row above the rim
// for its radius made the fit take a bevel for part of the rim (a can's depth came
// out 15–25 % too deep). A slight cost per row of depth favours the flat reading: a
// chamfered end is not a rim.
// rimWiden is the steepest widening (pixels per row) of a product's side just past a rim:
// a can's bevel widens about 0.6 px per row; an ellipse's end is far steeper.
const rimWiden = 0.6

func FitRimEllipse(hw func(t int) float64, n int) (b, r float64) {
	return fitRimEllipseFlat(hw, n, 4)
}

// FitBottomRim fits the bottom rim's ellipse. Past its centre the outline is checked
// over a fiftieth of the outline more, not four rows: a disc seen from above ends in
// a tip that the mask rounds off into a few narrow rows, and a flat (or shallow) edge
// as wide as that tip fitted them best (the real Corset on its stand, whose disc's
// front half then became a stem under a skirt). The top keeps the four rows: a
// shade's or a glass's thin rim is a flat edge there.
func FitBottomRim(hw func(t int) float64, n int) (b, r float64) {
	return fitRimEllipseFlat(hw, n, max(4, n/50))
}

// fitRimEllipseFlat is FitRimEllipse with the rows past the ellipse's centre checked
// over half its depth and flatRows more.
func fitRimEllipseFlat(hw func(t int) float64, n, flatRows int) (b, r float64) {
	maxB := min(n/4, int(0.7*hw(n/8))+1)
	best := math.Inf(1)
	for b2 := 0; b2 <= 2*maxB; b2++ {
		bb := float64(b2) / 2
		R := hw(2)
		k := int(math.Ceil(bb))
		if k > 0 {
			sg, sgg := 0.0, 0.0
			for t := range k {
				u := (float64(t) + 0.5) / bb
				g := math.Sqrt(max(0, 1-(1-u)*(1-u)))
				sg += hw(t) * g
				sgg += g * g
			}
			R = sg / sgg
		}
		if R <= 1 {
			continue
		}
		err, cnt := 0.0, 0
		for t := range k {
			u := (float64(t) + 0.5) / bb
			d := hw(t) - R*math.Sqrt(max(0, 1-(1-u)*(1-u)))
			err += d * d
			cnt++
		}
		beyond := k/2 + flatRows
		for t := k; t < k+beyond && t < n; t++ {
			d := hw(t) - R
			if d > 0 {
				d = max(0, d-rimWiden*float64(t-k+1))
			}
			err += d * d
			cnt++
		}
		err = err/float64(cnt) + 0.02*bb
		if err < best {
			best, b, r = err, bb, R
		}
	}
	return b, r
}

// focalFromRims estimates the focal length (working pixels) from the two rims: the
// angle between the viewing rays through their centres (rows yBot and yTop) is the
// difference of the angles they are seen from (the bottom from eBot above, the top
// from asin(bTop/rTop) above or below), and that angle narrows as the focal length
// grows. A top too narrow to measure (a bottle's cap) keeps the phone prior f0; a
// flat top (seen edge-on) is a measurement too: the top lies at eye level. Of two
// readings (top seen from above or from below) both in the range of phone and
// product-photo lenses, the one nearer the prior wins.
func focalFromRims(f0, cy, eBot, yBot, bTop, rTop, yTop, rMax float64) float64 {
	if rTop < 0.5*rMax || yBot-yTop < 16 {
		return f0
	}
	eTop := math.Asin(min(bTop/rTop, 0.7))
	span := func(f float64) float64 { return math.Atan((yBot-cy)/f) - math.Atan((yTop-cy)/f) }
	return focalNearPrior(f0, span, eBot-eTop, eBot+eTop)
}

// focalNearPrior solves ang(f) = want by bisection over the focal lengths of phone and
// product-photo lenses (18–80 mm equivalent; ang is monotonic there) for each wanted
// angle, and returns the solution nearest the prior f0, or f0 when none lies in range.
func focalNearPrior(f0 float64, ang func(f float64) float64, wants ...float64) float64 {
	fLo, fHi := f0*18/PhoneFocal35, f0*80/PhoneFocal35
	best, bestD := f0, math.Inf(1)
	for _, want := range wants {
		if (ang(fLo)-want)*(ang(fHi)-want) >= 0 {
			continue
		}
		lo, hi := fLo, fHi
		for range 40 {
			mid := math.Sqrt(lo * hi)
			if (ang(mid)-want)*(ang(lo)-want) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		f := math.Sqrt(lo * hi)
		if d := math.Abs(math.Log(f / f0)); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// tipCurvature returns R²/b of the ellipse whose end the outline's first rows form
// (hw(t), t rows in from the end; b the fitted depth), from the rows within a third of
// the depth, where a rim's bevel or belly does not reach; 0 when too few rows.
func tipCurvature(hw func(t int) float64, b float64) float64 {
	k := int(b / 3)
	if k < 4 {
		return 0
	}
	sy, sg := 0.0, 0.0
	for t := range k {
		tt := float64(t) + 0.5
		g := 2*tt - tt*tt/b
		h := hw(t)
		sy += h * h * g
		sg += g * g
	}
	return sy / sg
}

// SideTaper fits the outline's width over rows k0..k1 (indices into radius, whose
// first row is image row top) with a straight line w(y) and returns −w'/w at the
// principal point's row cy: the reciprocal of the distance from cy down to where the
// sides meet, which is tan(pitch)/f for vertical sides. ok only when the rows span
// a quarter of the outline and the sides are straight (a bellied vase's are not).
func SideTaper(radius []float64, top int, cy float64, k0, k1 int) (k float64, ok bool) {
	k0, k1 = max(k0, 0), min(k1, len(radius))
	if k1-k0 < len(radius)/4 || k1-k0 < 16 {
		return 0, false
	}
	sx, sy, sxx, sxy, cnt := 0.0, 0.0, 0.0, 0.0, 0.0
	for i := k0; i < k1; i++ {
		x, y := float64(top+i)+0.5-cy, 2*radius[i]
		sx, sy, sxx, sxy, cnt = sx+x, sy+y, sxx+x*x, sxy+x*y, cnt+1
	}
	slope := (cnt*sxy - sx*sy) / (cnt*sxx - sx*sx)
	at := (sy - slope*sx) / cnt // width at the principal point's row
	res := 0.0
	for i := k0; i < k1; i++ {
		x := float64(top+i) + 0.5 - cy
		d := 2*radius[i] - (at + slope*x)
		res += d * d
	}
	if at <= 0 || math.Sqrt(res/cnt) > sideStraight*at {
		return 0, false
	}
	return -slope / at, true
}

// sideStraight is the most a straight side may stray from its line (rms, as a share
// of the width): cans measure 0.1–0.2 %, a vase's belly several per cent.
const sideStraight = 0.005

// focalFromTop returns the focal length (working pixels) at which the top rim, whose
// centre shows at row yTop, is seen from the angle its ellipse says (asin sinTop,
// from above or below), given tan(pitch) = f·k from the sides: that angle,
// pitch + atan((yTop−cy)/f), grows with f. Of the two readings within 18–80 mm
// equivalent, the one nearer f0 wins; f0 when neither is.
func focalFromTop(f0, k, cy, yTop, sinTop float64) float64 {
	eTop := math.Asin(min(sinTop, 0.7))
	ang := func(f float64) float64 { return math.Atan(f*k) + math.Atan((yTop-cy)/f) }
	return focalNearPrior(f0, ang, eTop, -eTop)
}
