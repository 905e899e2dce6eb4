package shape

import (
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Overhangs: a lamp (a shade over a thin stem over a base disc) seen from a little
// above. Read row by row, its outline lies about two things:
//
//   - below the shade's bottom rim the rows show the front half of the rim's ellipse,
//     which narrows row by row down to the stem; a row-wise profile turns it into a
//     cone-shaped skirt that is not there (a shade is open underneath);
//   - above the base's top rim the rows show the back half of that rim's ellipse,
//     which widens row by row from the stem to the base; read row-wise it becomes a
//     dome on what is a flat disc.
//
// Both are hidden from the camera: any profile that keeps the visible rows explains
// the photo equally well, so the simplest one is taken: the stem runs straight up to
// the shade's rim and straight down to the base's top. Silhouette-only estimates
// (the envelope of the circles' ellipses) cannot tell a skirt from a flat bottom;
// this part prior can.

// thinRatio is how much narrower than the parts around it a run of rows must be to be
// a stem.
const thinRatio = 0.35

// overhangRim is a step in the profile: the shade's rim at row rim (index into the
// radius rows; rows up to rim are the shade, rows after it the stem).
type overhangRim struct {
	rim int
	end int // first row below the rim's ellipse (where the stem shows)
}

// RimEllipse is one rim's ellipse as the photo shows it: centre row (index into the
// radius rows), depth and half-width in pixels.
type RimEllipse struct{ Row, Depth, Radius float64 }

// fixOverhangs rewrites the hidden rows of the profile between lo and hi (row
// indices) as described above and returns the shade rims it found, top first, and
// the rim ellipses it measured on the way.
func fixOverhangs(radius []float64, lo, hi int) ([]overhangRim, []RimEllipse) {
	var ells []RimEllipse
	n := len(radius)
	lo, hi = max(lo, 1), min(hi, n-1)
	if hi-lo < 16 {
		return nil, nil
	}
	var rims []overhangRim
	maxAbove := 0.0
	for k := lo; k < hi; k++ {
		maxAbove = max(maxAbove, radius[k])
		if radius[k] >= thinRatio*maxAbove || maxAbove <= 2 {
			continue
		}
		// Rows from k on are thin; find where the thin run ends.
		z := k
		for z+1 < hi && radius[z+1] < thinRatio*maxAbove {
			z++
		}
		if z-k < 3 {
			k = z
			continue
		}
		// Widest part after the thin run, if any (the base).
		maxBelow := 0.0
		for j := z + 1; j < hi; j++ {
			maxBelow = max(maxBelow, radius[j])
		}
		stem := segment.Median(radius[k : z+1])
		// A run of empty rows is a gap, not a stem.
		if stem <= 0 {
			k = z
			continue
		}
		// Shade rim: the widest row within a quarter of the height above the thin
		// run (the lowest of near-equal ones); rows from there to the thin run are
		// the front of its ellipse.
		from := max(lo, k-n/4)
		rim, rimR := k-1, 0.0
		for j := from; j < k; j++ {
			if radius[j] >= rimR*0.998 {
				rim, rimR = j, max(rimR, radius[j])
			}
		}
		if rimR > stem/thinRatio {
			// The front of the rim's ellipse runs on past the first thin row, down
			// to where the outline is the stem's own.
			e := rim + 1
			for e <= z && radius[e] > 1.25*stem {
				e++
			}
			// The widest row is only near the rim (the ellipse is flat about its
			// middle); the ellipse fit places it.
			if c, b, ok := fitRimFront(radius, max(from, rim-n/20), rim, e, stem); ok {
				ells = append(ells, RimEllipse{float64(c), b, radius[c]})
				rim = c
			}
			for j := rim + 1; j < e; j++ {
				radius[j] = stem
			}
			rims = append(rims, overhangRim{rim: rim, end: e})
		}
		if maxBelow > stem/thinRatio {
			if c, b := flattenBaseTop(radius, k, z+1, hi, stem); c > 0 {
				ells = append(ells, RimEllipse{float64(c), b, radius[c]})
			}
		}
		maxAbove = 0
		k = z
	}
	return rims, ells
}

// fitRimFront fits the front half of a shade rim's ellipse: centre row c in [c0, c1],
// depth b, half-width radius[c], the rows below narrowing to the stem at row end.
func fitRimFront(radius []float64, c0, c1, end int, stem float64) (int, float64, bool) {
	bestErr, bestC, bestB := math.Inf(1), -1, 0.0
	for c := c0; c <= c1; c++ {
		R := radius[c]
		d := end - c
		if d < 2 || R <= stem {
			continue
		}
		for b := max(2, d*7/10); b <= d*13/10+2; b++ {
			e := 0.0
			for j := c; j < min(end+3, len(radius)); j++ {
				t := float64(j-c) / float64(b)
				d := radius[j] - max(stem, R*math.Sqrt(max(0, 1-t*t)))
				e += d * d
			}
			if e < bestErr {
				bestErr, bestC, bestB = e, c, float64(b)
			}
		}
	}
	return bestC, bestB, bestC >= 0
}

// flattenBaseTop finds the top rim of the wide part starting at row wide (the back
// half of its ellipse rises from the stem, whose rows start at a) and sets the rows
// above the rim to the stem: a disc's top is flat. Rim row c and ellipse depth b are
// the pair whose outline (the ellipse's back half above c, straight sides from c
// down to row hi) fits the rows from the first wide one to hi best; b is searched
// coarsely for every c, then to the row about the best pair.
func flattenBaseTop(radius []float64, a, wide, hi int, stem float64) (int, float64) {
	f := wide
	for f > a && radius[f-1] > 1.25*stem {
		f--
	}
	if f >= hi-2 {
		return -1, 0
	}
	misfit := func(c, b int) float64 {
		R, e := radius[c], 0.0
		for j := f; j < hi; j++ {
			want := R
			if j < c {
				t := float64(c-j) / float64(b)
				want = max(stem, R*math.Sqrt(max(0, 1-t*t)))
			}
			d := radius[j] - want
			e += d * d
		}
		return e
	}
	bestErr, bestC, bestB, bestStep := math.Inf(1), -1, 0, 1
	for c := f + 1; c < hi; c++ {
		if radius[c] <= 1.25*stem {
			continue
		}
		step := max(1, (c-f)/16)
		for b := c - f + 1; b <= 2*(c-f)+4; b += step {
			if e := misfit(c, b); e < bestErr {
				bestErr, bestC, bestB, bestStep = e, c, b, step
			}
		}
	}
	if bestC < 0 {
		return -1, 0
	}
	for b := max(bestC-f+1, bestB-bestStep); b <= bestB+bestStep; b++ {
		if e := misfit(bestC, b); e < bestErr {
			bestErr, bestB = e, b
		}
	}
	for j := a; j < bestC; j++ {
		radius[j] = min(radius[j], stem)
	}
	return bestC, float64(bestB)
}

// overhangs applies fixOverhangs to the rows between the rims when the profile has an
// overhang (a row followed closely by one under a quarter as wide). A lamp shows rim
// ellipses at rows far apart (the shade's rim in the middle of the photo, the base's
// top near its bottom): their depths give the viewing angle at each row, which pins
// down the focal length and the pitch together, so the view is re-placed with them.
// (The base's bottom ellipse is left out: newLatheView caps its depth at 0.7 of the
// radius and favours flat bottoms, which made the solve give up on steep views.)
func (v *latheView) overhangs(sr *SilhouetteRows, radius []float64, top int) []overhangRim {
	n := len(radius)
	lo, hi := 1, n-1
	if v.ok {
		lo = max(1, int(v.yTop)-top+1)
		hi = min(n-1, int(v.yBot)-top)
	}
	if n < 16 || hi <= lo || !hasOverhang(radius[lo:hi]) {
		return nil
	}
	rims, ells := fixOverhangs(radius, lo, hi)
	if v.ok && len(rims) > 0 && len(ells) >= 2 {
		if f, pitch, ok := SolveCamera(ells, float64(top)+0.5-v.cy, v.f/PhoneFocal35); ok {
			v.f, v.pitch = f, pitch
			v.placeRims(sr, radius, true)
		}
	}
	return rims
}

// SolveCamera finds the focal length (pixels) and pitch under which each ellipse's
// depth over half-width is the sine of the viewing angle at its row,
// |pitch + atan((row+off)/f)|, once the off-axis stretch is taken out: a row φ off
// the optical axis images vertical extents 1/cos φ taller than horizontal ones
// (3.5 % at 15°, enough to read a base 2° too steep). perMM converts a 35 mm-
// equivalent focal length to pixels. It declines when the rows do not span enough
// of the photo to tell focal length from pitch, or when no camera explains the
// ellipses.
func SolveCamera(ells []RimEllipse, off, perMM float64) (f, pitch float64, ok bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	ratio := make([]float64, len(ells))
	for i, e := range ells {
		lo, hi = min(lo, e.Row), max(hi, e.Row)
		ratio[i] = e.Depth / max(e.Radius, 1)
	}
	if hi-lo < 0.2*perMM*PhoneFocal35 {
		return 0, 0, false
	}
	best := math.Inf(1)
	at := make([]float64, len(ells))
	want := make([]float64, len(ells))
	for mm := 16.0; mm <= 90; mm += 0.25 {
		fp := mm * perMM
		for i, e := range ells {
			at[i] = math.Atan((e.Row + off) / fp)
			want[i] = math.Asin(min(ratio[i]*math.Cos(at[i]), 0.95))
		}
		for p := -0.2; p <= 0.8; p += 0.002 {
			err := 0.0
			for i := range ells {
				d := want[i] - math.Abs(p+at[i])
				err += d * d
			}
			if err < best {
				best, f, pitch = err, fp, p
			}
		}
	}
	rms := math.Sqrt(best / float64(len(ells)))
	mm := f / perMM
	return f, pitch, rms < 0.03 && mm > 16.5 && mm < 89.5
}

// rimEnds gives a band profile's end points the radius of the row on their side of a
// shade rim they lie on (interpolating across the step would put a half-wide disc
// there); it says whether the band ends at a rim.
func rimEnds(pts []ProfilePoint, rims []overhangRim, radius []float64, top int) (endsAtRim bool) {
	for _, r := range rims {
		edge := float64(top + r.rim + 1)
		if pts[0].Y == edge {
			pts[0].R = radius[r.rim+1]
		}
		if pts[len(pts)-1].Y == edge {
			pts[len(pts)-1].R = radius[r.rim]
			endsAtRim = true
		}
	}
	return endsAtRim
}

// rimEdges returns the image rows (pixel edges) just below each shade rim: a lathe's
// bands are cut there, so the shade ends at its rim and the stem starts under it.
func rimEdges(rims []overhangRim, top int) []float64 {
	out := make([]float64, len(rims))
	for i, r := range rims {
		out[i] = float64(top + r.rim + 1)
	}
	return out
}

// snapToRim moves a band boundary that lies in the front of a shade rim's ellipse (the
// colour change between shade and stem shows where the ellipse ends, below the rim)
// up to the rim.
func snapToRim(rims []overhangRim, top int, y float64) float64 {
	for _, r := range rims {
		if y >= float64(top+r.rim-2) && y <= float64(top+r.end+2) {
			return float64(top + r.rim + 1)
		}
	}
	return y
}

// ShadeShell makes a band profile that ends at a shade rim (outer side from the top
// down to the rim) into a thin open shell: it returns up the inside, a thickness in
// from the outside, to a ceiling just under the top. A lamp shade is open below; a
// flat disc closing it would be a surface the object does not have.
func ShadeShell(prof []ProfilePoint, yTop, thick float64) []ProfilePoint {
	last := len(prof) - 1
	ceil := max(prof[0].Y, yTop) + thick
	if prof[last].Y < ceil+thick {
		return prof // too short to hollow: keep it closed
	}
	out := append([]ProfilePoint(nil), prof...)
	for i := last; i >= 0; i-- {
		p := prof[i]
		if p.Y <= ceil {
			out = append(out, ProfilePoint{max(0, radiusOnProfile(prof, ceil)-thick), ceil})
			break
		}
		out = append(out, ProfilePoint{max(0, p.R-thick), p.Y})
	}
	return append(out, ProfilePoint{0, ceil})
}

// radiusOnProfile interpolates a top-down profile's radius at row y.
func radiusOnProfile(prof []ProfilePoint, y float64) float64 {
	for i := 1; i < len(prof); i++ {
		a, b := prof[i-1], prof[i]
		if y <= b.Y {
			if b.Y <= a.Y {
				return b.R
			}
			t := min(max((y-a.Y)/(b.Y-a.Y), 0), 1)
			return a.R + (b.R-a.R)*t
		}
	}
	return prof[len(prof)-1].R
}

// appendMesh adds b's vertices and triangles to a (one part made of two pieces: a
// shade and the stem under it when both have the same colour).
func appendMesh(a, b *geom.Mesh) {
	off := uint32(len(a.Pos))
	a.Pos = append(a.Pos, b.Pos...)
	a.Nrm = append(a.Nrm, b.Nrm...)
	a.Uv = append(a.Uv, b.Uv...)
	for _, i := range b.Idx {
		a.Idx = append(a.Idx, i+off)
	}
}

// Base discs. A body standing on a wider disc (a dress form on its stand, a lamp
// column on its foot, a cake stand) shows, just above the bottom rim's centre, the
// back half of the disc's top ellipse: read row by row it is a flared skirt from the
// body out to the disc (the real Corset seen from 10°: a cone a ninth of its height,
// F@5 0.69 against 0.72 without the disc in its mask). The back half's outline is the
// ellipse's upper half, as deep as the front half that FitRimEllipse measured, give
// or take perspective; where the rows follow it up from the rim to a kink, the body
// above the kink goes straight down to a flat disc.
const (
	// baseDiscStep: the body at the kink is at most this share of the disc's radius
	// (a can's sides above its bottom rim are the rim's own width: no disc).
	baseDiscStep = 0.9
	// baseDiscFollow: the rows must follow the ellipse for at least this share of
	// its depth (an outline merely narrowing upwards, a bell's, is not a disc).
	baseDiscFollow = 0.4
)

// FlattenBaseDisc applies the base-disc reading to radius (rows from the outline's
// top) below the bottom rim's centre row c (index) with front-half depth b: it
// returns the kink's row, or -1 when the rows do not show a disc.
func FlattenBaseDisc(radius []float64, c int, b float64) int {
	n := len(radius)
	if b < 4 || c < 2 || c >= n {
		return -1
	}
	// The rim's widest row near its centre.
	cw, R := c, radius[c]
	for j := max(0, c-int(b/2)); j <= min(n-1, c+int(b/4)); j++ {
		if radius[j] > R {
			cw, R = j, radius[j]
		}
	}
	tol := 2 + 0.03*R
	bestRun, bestKink := 0.0, -1
	for k := 0.7; k <= 1.05; k += 0.05 {
		bu := k * b
		kink := -1
		for j := cw - 1; j >= 0 && float64(cw-j) < bu; j-- {
			s := float64(cw-j) / bu
			e := R * math.Sqrt(max(0, 1-s*s))
			if radius[j] > e+tol {
				kink = j
				break
			}
			if radius[j] < e-tol {
				break // narrower than the disc's own outline: not a disc
			}
		}
		if kink < 0 {
			continue
		}
		run := float64(cw-kink-1) / bu
		if run >= baseDiscFollow && radius[kink] <= baseDiscStep*R && run > bestRun {
			bestRun, bestKink = run, kink
		}
	}
	if bestKink < 0 {
		return -1
	}
	body := radius[bestKink]
	for j := bestKink + 1; j < cw; j++ {
		radius[j] = min(radius[j], body)
	}
	return bestKink
}
