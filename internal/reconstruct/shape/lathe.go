package shape

import (
	"math"
	"slices"
	"sort"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// SilhouetteRows holds, for each working row of the object, its left and right
// outline at sub-pixel precision (pixel-edge coordinates), how many separate runs
// of object pixels the row has, and the widest gap between them (pixels).
type SilhouetteRows struct {
	Top, bottom int // first and last object row (inclusive)
	L, R        []float64
	runs        []int
	gap         []int
}

// MeasureRows scans the soft alpha row by row.
func MeasureRows(seg *segment.Segmentation) *SilhouetteRows {
	b := seg.Bbox
	sr := &SilhouetteRows{Top: b.Min.Y, bottom: b.Max.Y - 1}
	n := b.Dy()
	sr.L = make([]float64, n)
	sr.R = make([]float64, n)
	sr.runs = make([]int, n)
	sr.gap = make([]int, n)
	w := seg.W
	for k := range n {
		y := b.Min.Y + k
		row := seg.Alpha[y*w : (y+1)*w]
		first, last := -1, -1
		runs := 0
		in := false
		for x, a := range row {
			if a >= 128 {
				if !in {
					runs++
					if last >= 0 {
						sr.gap[k] = max(sr.gap[k], x-last-1)
					}
				}
				in = true
				if first < 0 {
					first = x
				}
				last = x
			} else {
				in = false
			}
		}
		sr.runs[k] = runs
		if first < 0 {
			sr.L[k], sr.R[k] = math.NaN(), math.NaN()
			continue
		}
		// Sub-pixel: where alpha crosses one half between neighbouring pixel centres.
		sr.L[k] = float64(first) + 0.5
		if first > 0 {
			a0, a1 := float64(row[first-1]), float64(row[first])
			sr.L[k] = float64(first) - 0.5 + (127.5-a0)/(a1-a0)
		} else {
			sr.L[k] = 0
		}
		if last+1 < w {
			a0, a1 := float64(row[last]), float64(row[last+1])
			sr.R[k] = float64(last) + 0.5 + (a0-127.5)/(a0-a1)
		} else {
			sr.R[k] = float64(w)
		}
	}
	// Rows without object pixels (cannot happen inside the bbox of a connected mask,
	// but be safe) copy their neighbour.
	for k := range n {
		if math.IsNaN(sr.L[k]) {
			j := max(0, k-1)
			sr.L[k], sr.R[k] = sr.L[j], sr.R[j]
			if math.IsNaN(sr.L[k]) {
				sr.L[k], sr.R[k] = 0, 0
			}
		}
	}
	return sr
}

// LatheFit says whether the silhouette is a surface of revolution seen from the side,
// and where its axis is. Bottles, vases, cups and lamps are mirror-symmetric about a
// vertical axis, have one run of pixels per row and a profile whose width changes; a
// plain rectangle is symmetric too but carries no evidence of roundness, so it is
// left to inflation (which gives a box-like cushion rather than a cylinder), unless
// both its ends are rims' ellipses (a can seen from its middle: straight sides, but
// the bottom seen from above and the top from below).
type LatheFit struct {
	Ok        bool
	Axis      float64
	Symmetry  float64
	singleRun float64
	Variation float64
}

// latheSlitOfWidth is the widest gap (of the silhouette's width) between runs that
// still counts a row as one run for the lathe. A mug's handle hole is far wider, and a
// handle makes the outline asymmetric anyway.
const latheSlitOfWidth = 0.02

func FitLathe(sr *SilhouetteRows) LatheFit {
	n := len(sr.L)
	if n < 8 {
		return LatheFit{}
	}
	centres := make([]float64, n)
	for k := range n {
		centres[k] = (sr.L[k] + sr.R[k]) / 2
	}
	sorted := append([]float64(nil), centres...)
	sort.Float64s(sorted)
	axis := sorted[n/2]
	inter, union := 0.0, 0.0
	single := 0
	// A slit of backdrop a few pixels wide (a sleeve standing off a bottle, seen
	// through its window at the outline) does not split a row into two solids.
	slit := int(latheSlitOfWidth * (slices.Max(sr.R) - slices.Min(sr.L)))
	for k := range n {
		l, r := sr.L[k], sr.R[k]
		ml, mr := 2*axis-r, 2*axis-l
		inter += max(0, min(r, mr)-max(l, ml))
		union += max(r, mr) - min(l, ml)
		if sr.runs[k] == 1 || sr.gap[k] <= slit {
			single++
		}
	}
	lo, hi := n/20, n-n/20
	minW, maxW := math.MaxFloat64, 0.0
	for k := lo; k < hi; k++ {
		w := sr.R[k] - sr.L[k]
		minW, maxW = min(minW, w), max(maxW, w)
	}
	f := LatheFit{Axis: axis, singleRun: float64(single) / float64(n)}
	if union > 0 {
		f.Symmetry = inter / union
	}
	if maxW > 0 {
		f.Variation = (maxW - minW) / maxW
	}
	f.Ok = f.Symmetry >= 0.94 && f.singleRun >= 0.97 && (f.Variation >= 0.15 || RoundEnds(sr))
	return f
}

// ProfilePoint is one sample of the lathe profile: radius at a height (pixels).
type ProfilePoint struct{ R, Y float64 }

// radiusAt interpolates the smoothed half-width at pixel-edge height y.
func radiusAt(radius []float64, top int, y float64) float64 {
	t := y - float64(top) - 0.5
	if t <= 0 {
		return radius[0]
	}
	k := int(t)
	if k >= len(radius)-1 {
		return radius[len(radius)-1]
	}
	f := t - float64(k)
	return radius[k]*(1-f) + radius[k+1]*f
}

// simplifyProfile keeps the points needed to stay within tol pixels of the profile
// (Douglas–Peucker): flat stretches get few rings, curved shoulders many.
func simplifyProfile(pts []ProfilePoint, tol float64) []ProfilePoint {
	if len(pts) <= 2 {
		return pts
	}
	keep := make([]bool, len(pts))
	keep[0], keep[len(pts)-1] = true, true
	var rec func(a, b int)
	rec = func(a, b int) {
		if b-a < 2 {
			return
		}
		ax, ay := pts[a].R, pts[a].Y
		bx, by := pts[b].R, pts[b].Y
		dx, dy := bx-ax, by-ay
		l := math.Hypot(dx, dy)
		best, bi := -1.0, -1
		for i := a + 1; i < b; i++ {
			var d float64
			if l == 0 {
				d = math.Hypot(pts[i].R-ax, pts[i].Y-ay)
			} else {
				d = math.Abs(dy*(pts[i].R-ax)-dx*(pts[i].Y-ay)) / l
			}
			if d > best {
				best, bi = d, i
			}
		}
		if best > tol {
			keep[bi] = true
			rec(a, bi)
			rec(bi, b)
		}
	}
	rec(0, len(pts)-1)
	out := make([]ProfilePoint, 0, len(pts))
	for i, k := range keep {
		if k {
			out = append(out, pts[i])
		}
	}
	return out
}

// BuildLathe makes one closed solid of revolution per horizontal band part. Each band
// is capped with flat discs at its ends (hard edges, duplicated vertices), so each
// part mesh is watertight on its own and the stacked bands look like one object.
// Texture: every vertex takes the photo colour at its orthographic projection onto
// the image plane, so the front shows the photo, the back shows its mirror image and
// the wrap-around is seamless (u depends on sin θ, which is continuous).
//
// It also returns place, which maps an image point to the model's (X, Y) with the
// same camera correction, so attachments (a mug's handle) meet the body.
func BuildLathe(seg *segment.Segmentation, pm *segment.PartMap, fit LatheFit, sr *SilhouetteRows, uvm texture.UVMapper, maxTris int) (meshes []*geom.Mesh, place func(x, y float64) (float64, float64)) {
	n := len(sr.L)
	radius := make([]float64, n)
	for k := range n {
		// Mirror-average both sides about the axis.
		radius[k] = max(0, (sr.R[k]-sr.L[k])/2)
	}
	for range 2 {
		sm := append([]float64(nil), radius...)
		for k := 1; k+1 < n; k++ {
			sm[k] = (radius[k-1] + 2*radius[k] + radius[k+1]) / 4
		}
		radius = sm
	}
	top := sr.Top
	yEnd := float64(sr.bottom + 1)
	view := newLatheView(seg, sr, radius, fit.Axis)
	rims := view.overhangs(sr, radius, top)
	if view.ok {
		FlattenBaseDisc(radius, int(view.yBot)-top, view.bBot)
	}
	// shape maps a profile point (image row, half-width in pixels) to its true height
	// and radius; without a usable view estimate rows are taken as heights.
	shape := func(p ProfilePoint) (float64, float64) {
		if !view.ok {
			return yEnd - p.Y, p.R
		}
		h, r, _ := view.geo(p.Y, p.R)
		return h, r
	}
	place = func(x, y float64) (float64, float64) {
		Y, X := shape(ProfilePoint{R: x - fit.Axis, Y: y})
		return X, Y
	}
	// Band boundaries in working pixel rows, from the grid labels.
	type band struct {
		part   int
		y0, y1 float64
	}
	bands := make([]band, 0, len(pm.Parts))
	for pi, p := range pm.Parts {
		if p.Area == 0 {
			continue
		}
		y0 := max(float64(p.MinY*seg.F), float64(top))
		y1 := min(float64((p.MaxY+1)*seg.F), yEnd)
		bands = append(bands, band{part: pi, y0: y0, y1: y1})
	}
	sort.Slice(bands, func(i, j int) bool { return bands[i].y0 < bands[j].y0 })
	// Make bands tile [top, yEnd] exactly: shared boundaries, no gaps.
	for i := range bands {
		if i == 0 {
			bands[i].y0 = float64(top)
		} else {
			mid := snapToRim(rims, top, math.Round((bands[i-1].y1+bands[i].y0)/2))
			bands[i-1].y1, bands[i].y0 = mid, mid
		}
		if i == len(bands)-1 {
			bands[i].y1 = yEnd
		}
	}
	// A shade and its stem in one colour are one part of two pieces, cut at the rim.
	for _, e := range rimEdges(rims, top) {
		for i, b := range bands {
			if e > b.y0+2 && e < b.y1-2 {
				bands = slices.Insert(bands, i+1, band{part: b.part, y0: e, y1: b.y1})
				bands[i].y1 = e
				break
			}
		}
	}
	thick, ceilY := max(1, 0.015*(yEnd-float64(top))), float64(top)
	if view.ok {
		ceilY = view.yTop
	}
	profiles := make([][]ProfilePoint, len(bands))
	var segs int
	for tol := 0.3; ; tol *= 1.5 {
		rings := 0
		for i, b := range bands {
			pts := []ProfilePoint{{radiusAt(radius, top, b.y0), b.y0}}
			for y := math.Floor(b.y0) + 0.5; y < b.y1; y++ {
				if y > b.y0 {
					pts = append(pts, ProfilePoint{radiusAt(radius, top, y), y})
				}
			}
			pts = append(pts, ProfilePoint{radiusAt(radius, top, b.y1), b.y1})
			shade := rimEnds(pts, rims, radius, top)
			profiles[i] = simplifyProfile(pts, tol)
			if shade {
				profiles[i] = ShadeShell(profiles[i], ceilY, thick)
			}
			rings += len(profiles[i])
		}
		segs = maxTris / (2 * rings)
		if segs >= 32 || tol > 64 {
			break
		}
	}
	segs = max(8, min(segs, 128)) / 4 * 4
	meshes = make([]*geom.Mesh, len(pm.Parts))
	sinT := make([]float64, segs)
	cosT := make([]float64, segs)
	for j := range segs {
		th := 2 * math.Pi * float64(j) / float64(segs)
		sinT[j], cosT[j] = math.Sin(th), math.Cos(th)
	}
	for bi, b := range bands {
		prof := profiles[bi]
		m := &geom.Mesh{}
		// Side rings.
		ring := make([]uint32, 0, len(prof)*segs)
		for _, p := range prof {
			Y, R := shape(p)
			for j := range segs {
				u, v := uvm.At(fit.Axis+p.R*sinT[j], p.Y)
				ring = append(ring, m.AddVertex(R*sinT[j], Y, R*cosT[j], u, v))
			}
		}
		for i := 0; i+1 < len(prof); i++ {
			for j := range segs {
				j1 := (j + 1) % segs
				a := ring[i*segs+j]
				bb := ring[i*segs+j1]
				c := ring[(i+1)*segs+j1]
				d := ring[(i+1)*segs+j]
				m.Tri(a, d, c)
				m.Tri(a, c, bb)
			}
		}
		m.ComputeNormals() // side normals only: caps below get their own vertices
		// Caps: flat discs with duplicated rim vertices (hard edge).
		capDisc := func(p ProfilePoint, up bool) {
			Y, R := shape(p)
			u, v := uvm.At(fit.Axis, p.Y)
			centre := m.AddVertex(0, Y, 0, u, v)
			first := uint32(len(m.Pos))
			for j := range segs {
				u, v := uvm.At(fit.Axis+p.R*sinT[j], p.Y)
				m.AddVertex(R*sinT[j], Y, R*cosT[j], u, v)
			}
			ny := float32(-1)
			if up {
				ny = 1
			}
			for range segs + 1 {
				m.Nrm = append(m.Nrm, [3]float32{0, ny, 0})
			}
			for j := range segs {
				a := first + uint32(j)
				c := first + uint32((j+1)%segs)
				if up {
					m.Tri(centre, a, c)
				} else {
					m.Tri(centre, c, a)
				}
			}
		}
		capDisc(prof[0], true)
		capDisc(prof[len(prof)-1], false)
		m.DropDegenerate()
		if meshes[b.part] != nil {
			appendMesh(meshes[b.part], m)
			continue
		}
		meshes[b.part] = m
	}
	return meshes, place
}

// RoundEnds says whether both ends of the outline are halves of rim ellipses at
// least a tenth as deep as they are wide: a flat-ended rectangle's are not.
func RoundEnds(sr *SilhouetteRows) bool {
	n := len(sr.L)
	if n < 16 {
		return false
	}
	hw := func(k int) float64 { return max(0, (sr.R[k]-sr.L[k])/2) }
	bb, rb := FitRimEllipse(func(t int) float64 { return hw(max(0, n-1-t)) }, n)
	bt, rt := FitRimEllipse(func(t int) float64 { return hw(min(n-1, t)) }, n)
	return bb >= max(4, 0.1*rb) && bt >= max(4, 0.1*rt)
}
