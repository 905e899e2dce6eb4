package reconstruct

import (
	"fmt"
	"math"
	"os"
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
	rim    int
	end    int     // first row below the rim's ellipse (where the stem shows)
	stem   float64 // stem half-width below the rim
	shadeR float64 // rim half-width
}

// fixOverhangs rewrites the hidden rows of the profile between lo and hi (row
// indices) as described above and returns the shade rims it found, top first.
func fixOverhangs(radius []float64, lo, hi int) []overhangRim {
	n := len(radius)
	lo, hi = max(lo, 1), min(hi, n-1)
	if hi-lo < 16 {
		return nil
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
		stem := median(radius[k : z+1])
		// The thin run must be thin compared with the part below too, if one
		// follows; otherwise it is a neck (a bottle's), not a stem.
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
			for j := rim + 1; j < e; j++ {
				radius[j] = stem
			}
			rims = append(rims, overhangRim{rim: rim, end: e, stem: stem, shadeR: rimR})
		}
		if maxBelow > stem/thinRatio {
			flattenBaseTop(radius, k, z+1, hi, stem)
		}
		maxAbove = 0
		k = z
	}
	return rims
}

// flattenBaseTop finds the top rim of the wide part starting at row wide (the back
// half of its ellipse rises from the stem, whose rows start at a) and sets the rows above the rim to the
// stem: a disc's top is flat. Rim row c and ellipse depth b are the pair whose
// outline (the ellipse's back half above c, straight sides from c down to row hi)
// fits the rows from the first wide one to hi best.
func flattenBaseTop(radius []float64, a, wide, hi int, stem float64) {
	f := wide
	for f > a && radius[f-1] > 1.25*stem {
		f--
	}
	if f >= hi-2 {
		return
	}
	bestErr, bestC := math.Inf(1), -1
	for c := f + 1; c < hi; c++ {
		R := radius[c]
		if R <= 1.25*stem {
			continue
		}
		for b := c - f + 1; b <= 2*(c-f)+4; b++ {
			e := 0.0
			for j := f; j < hi; j++ {
				want := R
				if j < c {
					t := float64(c-j) / float64(b)
					want = max(stem, R*math.Sqrt(max(0, 1-t*t)))
				}
				d := radius[j] - want
				e += d * d
			}
			if e < bestErr {
				bestErr, bestC = e, c
			}
		}
	}
	if bestC < 0 {
		return
	}
	for j := a; j < bestC; j++ {
		radius[j] = min(radius[j], stem)
	}
}

// overhangs applies fixOverhangs to the rows between the rims when the profile has an
// overhang (a row followed closely by one under a quarter as wide).
func (v latheView) overhangs(radius []float64, top int) []overhangRim {
	n := len(radius)
	lo, hi := 1, n-1
	if v.ok {
		lo = max(1, int(v.yTop)-top+1)
		hi = min(n-1, int(v.yBot)-top)
	}
	if n < 16 || hi <= lo || !hasOverhang(radius[lo:hi]) {
		return nil
	}
	before := append([]float64(nil), radius...)
	r := fixOverhangs(radius, lo, hi)
	if os.Getenv("ULAMP_DEBUG") != "" {
		fmt.Printf("top %d n %d lo %d hi %d pitch %.3f yTop %.1f yBot %.1f rims %+v\n", top, n, lo, hi, v.pitch, v.yTop, v.yBot, r)
		for k := range n {
			fmt.Printf("%d %.2f %.2f\n", k, before[k], radius[k])
		}
	}
	return r
}

// rimEnds gives a band profile's end points the radius of the row on their side of a
// shade rim they lie on (interpolating across the step would put a half-wide disc
// there); it says whether the band ends at a rim.
func rimEnds(pts []profilePoint, rims []overhangRim, radius []float64, top int) (endsAtRim bool) {
	for _, r := range rims {
		edge := float64(top + r.rim + 1)
		if pts[0].y == edge {
			pts[0].r = radius[r.rim+1]
		}
		if pts[len(pts)-1].y == edge {
			pts[len(pts)-1].r = radius[r.rim]
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

// shadeShell makes a band profile that ends at a shade rim (outer side from the top
// down to the rim) into a thin open shell: it returns up the inside, a thickness in
// from the outside, to a ceiling just under the top. A lamp shade is open below; a
// flat disc closing it would be a surface the object does not have.
func shadeShell(prof []profilePoint, yTop, thick float64) []profilePoint {
	last := len(prof) - 1
	out := append([]profilePoint(nil), prof...)
	ceil := max(prof[0].y, yTop) + thick
	for i := last; i >= 0; i-- {
		p := prof[i]
		if p.y <= ceil {
			out = append(out, profilePoint{max(0, radiusOnProfile(prof, ceil)-thick), ceil})
			break
		}
		out = append(out, profilePoint{max(0, p.r-thick), p.y})
	}
	return append(out, profilePoint{0, ceil})
}

// radiusOnProfile interpolates a top-down profile's radius at row y.
func radiusOnProfile(prof []profilePoint, y float64) float64 {
	for i := 1; i < len(prof); i++ {
		a, b := prof[i-1], prof[i]
		if y <= b.y {
			if b.y <= a.y {
				return b.r
			}
			t := min(max((y-a.y)/(b.y-a.y), 0), 1)
			return a.r + (b.r-a.r)*t
		}
	}
	return prof[len(prof)-1].r
}

// appendMesh adds b's vertices and triangles to a (one part made of two pieces: a
// shade and the stem under it when both have the same colour).
func appendMesh(a, b *mesh) {
	off := uint32(len(a.pos))
	a.pos = append(a.pos, b.pos...)
	a.nrm = append(a.nrm, b.nrm...)
	a.uv = append(a.uv, b.uv...)
	for _, i := range b.idx {
		a.idx = append(a.idx, i+off)
	}
}
