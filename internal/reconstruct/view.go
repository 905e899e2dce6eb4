package reconstruct

import "math"

// Camera model for solids of revolution. A phone photo is taken a little above the
// object, so its bottom rim shows as the lower half of an ellipse and its top as the
// upper half of one; perspective also narrows the farther (lower) part. Taking image
// rows as heights therefore makes the object too tall for its width. latheView
// estimates the camera pitch from the bottom rim's ellipse (its depth b over its
// half-width R is the sine of the viewing angle there) and a phone focal length, and
// maps each silhouette row to a true height and radius by intersecting the row's
// viewing ray with the object's vertical axis.

// phoneFocal35 is the 35 mm-equivalent focal length assumed for photos: phone main
// cameras are 23–28 mm.
const phoneFocal35 = 26.0

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
func newLatheView(seg *segmentation, sr *silhouetteRows, radius []float64, axis float64) latheView {
	n := len(radius)
	v := latheView{f: phoneFocal35 / 43.27 * math.Hypot(float64(seg.w), float64(seg.h)),
		cx: float64(seg.w) / 2, cy: float64(seg.h) / 2, axisX: axis}
	if n < 16 {
		return v
	}
	// Fit the bottom ellipse depth b: half-widths in the last rows follow
	// R·√(1−(1−t/b)²) for t < b (t = rows above the lowest edge) and R above.
	hw := func(t int) float64 { return radius[max(0, n-1-t)] }
	best, bestB := math.Inf(1), 0.0
	maxB := min(n/4, int(0.7*hw(n/8))+1)
	for b := 0; b <= maxB; b++ {
		R := hw(b + 2)
		if R <= 1 {
			continue
		}
		err, cnt := 0.0, 0
		for t := 0; t < b+4 && t < n; t++ {
			want := R
			if tt := (float64(t) + 0.5) / float64(max(b, 1)); t < b {
				want = R * math.Sqrt(max(0, 1-(1-tt)*(1-tt)))
			}
			d := hw(t) - want
			err += d * d
			cnt++
		}
		// Favour the flat-bottom reading slightly: a chamfered base is not a rim.
		err = err/float64(cnt) + 0.02*float64(b)
		if err < best {
			best, bestB = err, float64(b)
		}
	}
	R := hw(int(bestB) + 2)
	sinB := min(bestB/max(R, 1), 0.6)
	yLow := float64(sr.bottom + 1)
	v.bBot = bestB
	eBottom := math.Asin(sinB)
	v.pitch = eBottom - math.Atan((yLow-bestB-v.cy)/v.f)
	v.pitch = min(max(v.pitch, -0.1), 0.7)
	v.yBot = yLow - bestB
	v.placeRims(sr, radius, false)
	return v
}

// placeRims finds the top rim's centre row from the pitch (the top's ellipse depth is
// its radius times the sine of the viewing angle there) and places the base centre.
// fromBelow: a top above the camera shows the near half of its ellipse above the rim
// (only trusted where the focal length was measured, not assumed).
func (v *latheView) placeRims(sr *silhouetteRows, radius []float64, fromBelow bool) {
	n := len(radius)
	v.ok = false
	// Top rim: depth = radius there × sine of the viewing angle at that row.
	yHigh := float64(sr.top)
	bt := 0.0
	for range 4 {
		e := v.pitch + math.Atan((yHigh+bt-v.cy)/v.f)
		bt = radiusAt(radius, sr.top, yHigh+bt+1) * math.Sin(e)
		if fromBelow {
			bt = math.Abs(bt)
		}
		bt = max(0, bt)
	}
	bt = min(bt, float64(n)/4)
	v.bTop = bt
	v.yTop = yHigh + bt
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
