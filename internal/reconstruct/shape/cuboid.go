package shape

import (
	"cmp"
	"context"
	"image"
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// Boxes and cartons. A front view cannot tell a box from a can, but a box seen from
// a little above and at an angle has a silhouette made of straight edges: the convex
// hull of a cuboid's eight corners. FitCuboid searches the cuboid (yaw, camera
// elevation, depth over width) whose orthographic silhouette, scaled to the mask's
// bounding box, best overlaps the mask; when the overlap is near perfect the model is
// that cuboid, with the right proportions and flat faces, instead of a cushion.

type CuboidFit struct {
	Ok        bool
	iou       float64
	Yaw, Elev float64 // box yaw; elevation of the view ray to the box's centre
	Wr, Dr    float64 // width and depth over height
	Dist, F   float64 // camera distance (box heights) and focal length (pixels)
	scale     float64 // image placement of the projected hull
	x0, y0    float64
}

// cuboidMinIoU is the silhouette overlap above which a mask is taken for a box.
const cuboidMinIoU = 0.95

// view returns the camera-plane position (X right, up) of a box point (x, y, z in
// box heights, y up, origin at the base centre) seen through a pinhole f pixels deep
// at distance dist, aimed at the box's centre from elevation elev.
func (c CuboidFit) view(x, y, z float64) (float64, float64) {
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	X := x*cy + z*sy
	Z := -x*sy + z*cy
	ce, se := math.Cos(c.Elev), math.Sin(c.Elev)
	// Relative to the camera at (0, ½ + dist·se, dist·ce), looking at (0, ½, 0).
	dy, dz := y-0.5-c.Dist*se, Z-c.Dist*ce
	depth := -(dy*se + dz*ce)
	up := dy*ce - dz*se
	return c.F * X / depth, c.F * up / depth
}

// project returns the image position of a box point.
func (c CuboidFit) project(x, y, z float64) (float64, float64) {
	X, up := c.view(x, y, z)
	return c.x0 + c.scale*X, c.y0 - c.scale*up
}

// Hull returns the 2-D convex hull of the box's eight corners in the camera plane.
func (c CuboidFit) Hull() [][2]float64 {
	pts := make([][2]float64, 0, 8)
	for k := range 8 {
		X, up := c.view((float64(k&1)-0.5)*c.Wr, float64(k>>1&1), (float64(k>>2&1)-0.5)*c.Dr)
		pts = append(pts, [2]float64{X, up})
	}
	return convexHull(pts)
}

// convexHull (monotone chain), counter-clockwise in a y-up frame.
func convexHull(p [][2]float64) [][2]float64 {
	// Insertion sort: at most 8 points.
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && (p[j][0] < p[j-1][0] || (p[j][0] == p[j-1][0] && p[j][1] < p[j-1][1])); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	cr := func(o, a, b [2]float64) float64 { return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0]) }
	h := make([][2]float64, 0, 2*len(p))
	for _, q := range p {
		for len(h) >= 2 && cr(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lower := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		for len(h) >= lower && cr(h[len(h)-2], h[len(h)-1], p[i]) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p[i])
	}
	return h[:len(h)-1]
}

// MaskSampler samples the mask on a g×g grid over its bounding box.
type MaskSampler struct {
	G      int
	In     []bool
	Bb     image.Rectangle
	inside int
	// rowIn[j*(g+1)+i] counts the mask samples of row j left of column i, so
	// score counts a row's overlap with the hull's span in O(1).
	rowIn []int32
}

func NewMaskSampler(seg *segment.Segmentation, g int) MaskSampler {
	ms := MaskSampler{G: g, In: make([]bool, g*g), Bb: seg.Bbox}
	for j := range g {
		y := seg.Bbox.Min.Y + int((float64(j)+0.5)*float64(seg.Bbox.Dy())/float64(g))
		for i := range g {
			x := seg.Bbox.Min.X + int((float64(i)+0.5)*float64(seg.Bbox.Dx())/float64(g))
			if seg.Alpha[y*seg.W+x] >= 128 {
				ms.In[j*g+i] = true
				ms.inside++
			}
		}
	}
	ms.rowIn = make([]int32, g*(g+1))
	for j := range g {
		row := ms.rowIn[j*(g+1):]
		for i := range g {
			row[i+1] = row[i]
			if ms.In[j*g+i] {
				row[i+1]++
			}
		}
	}
	return ms
}

// Score places the hull in the mask's bounding box (uniform scale from the height)
// and returns the IoU on the sample grid, with the hull's placement.
//
// The hull is convex, so each grid row meets it in one run of columns: score
// finds that run from the hull's edges (checking the run's ends with the exact
// per-sample test, so the count equals testing every sample) and counts the
// mask inside it with the row's prefix sums. The box fit calls score thousands
// of times; testing every sample against every edge was most of a box's
// reconstruction time.
func (ms MaskSampler) Score(hull [][2]float64) (iou, scale, x0, y0 float64) {
	lo, hi := HullBounds(hull)
	scale = float64(ms.Bb.Dy()) / (hi[1] - lo[1])
	// Centre horizontally, top aligned: image = (x0 + s·X, y0 − s·up).
	x0 = float64(ms.Bb.Min.X+ms.Bb.Max.X)/2 - scale*(lo[0]+hi[0])/2
	y0 = float64(ms.Bb.Min.Y) + scale*hi[1]
	g := float64(ms.G)
	n := len(hull)
	colX := func(i int) float64 {
		px := float64(ms.Bb.Min.X) + (float64(i)+0.5)*float64(ms.Bb.Dx())/g
		return (px - x0) / scale
	}
	inside := func(X, up float64) bool {
		for k := range n {
			a, b := hull[k], hull[(k+1)%n]
			if (b[0]-a[0])*(up-a[1])-(b[1]-a[1])*(X-a[0]) < 0 {
				return false
			}
		}
		return true
	}
	// Column of X: colX inverted (columns are evenly spaced).
	colOf := func(X float64) float64 {
		px := X*scale + x0
		return (px-float64(ms.Bb.Min.X))*g/float64(ms.Bb.Dx()) - 0.5
	}
	inter, union := 0, 0
	for j := range ms.G {
		py := float64(ms.Bb.Min.Y) + (float64(j)+0.5)*float64(ms.Bb.Dy())/g
		up := (y0 - py) / scale
		rowMask := int(ms.rowIn[j*(ms.G+1)+ms.G])
		// The row's span of the hull: the intersection of every edge's half-plane.
		xl, xr := math.Inf(-1), math.Inf(1)
		empty := false
		for k := range n {
			a, b := hull[k], hull[(k+1)%n]
			dx, dy := b[0]-a[0], b[1]-a[1]
			rhs := dx * (up - a[1]) // inside: dy·(X − a0) ≤ rhs
			switch {
			case dy > 0:
				xr = min(xr, a[0]+rhs/dy)
			case dy < 0:
				xl = max(xl, a[0]+rhs/dy)
			case rhs < 0:
				empty = true
			}
		}
		i0, i1 := 0, -1 // columns i0..i1 are inside
		if !empty && xl <= xr {
			i0 = max(0, int(math.Ceil(colOf(xl))))
			i1 = min(ms.G-1, int(math.Floor(colOf(xr))))
			// Settle the ends with the exact test the span was derived from.
			for i0 <= i1 && !inside(colX(i0), up) {
				i0++
			}
			for i0 > 0 && inside(colX(i0-1), up) {
				i0--
			}
			for i1 >= i0 && !inside(colX(i1), up) {
				i1--
			}
			for i1 < ms.G-1 && i1 >= i0 && inside(colX(i1+1), up) {
				i1++
			}
		}
		in := 0
		if i1 >= i0 {
			row := ms.rowIn[j*(ms.G+1):]
			in = int(row[i1+1] - row[i0])
			inter += in
		}
		union += max(0, i1-i0+1) + rowMask - in
	}
	return float64(inter) / float64(max(1, union)), scale, x0, y0
}

// FitCuboid searches yaw, view elevation and depth over width under a phone
// camera's perspective; width over height follows from the mask's aspect ratio.
func FitCuboid(ctx context.Context, seg *segment.Segmentation) (CuboidFit, error) {
	b := seg.Bbox
	if b.Dx() < 16 || b.Dy() < 16 {
		return CuboidFit{}, nil
	}
	if straight, _ := straightBottom(seg); !straight {
		return CuboidFit{}, nil
	}
	f := PhoneFocal35 / 43.27 * math.Hypot(float64(seg.W), float64(seg.H))
	aspect := float64(b.Dx()) / float64(b.Dy())
	eval := func(ms MaskSampler, yaw, elev, rho, near float64) (CuboidFit, bool) {
		// Orthographic guess of width over height, then one perspective correction.
		c1 := math.Abs(math.Cos(yaw)) + rho*math.Abs(math.Sin(yaw))
		c2 := math.Abs(math.Sin(yaw)) + rho*math.Abs(math.Cos(yaw))
		den := c1 - aspect*c2*math.Sin(elev)
		if den <= 1e-3 {
			return CuboidFit{}, false
		}
		c := CuboidFit{Yaw: yaw, Elev: elev, F: f}
		c.Wr = aspect * math.Cos(elev) / den
		c.Dr = rho * c.Wr
		// Distance: from just outside the box (near = 0) to far (near = 1, almost
		// orthographic). The focal length is only assumed, so the keystone the photo
		// shows decides rather than the box's size in pixels.
		minD := 1.1 * math.Sqrt(0.25+(c.Wr*c.Wr+c.Dr*c.Dr)/4)
		c.Dist = minD / max(1-near, 0.05)
		for range 2 {
			lo, hi := HullBounds(c.Hull())
			got := (hi[0] - lo[0]) / (hi[1] - lo[1])
			c.Wr *= aspect / got
			c.Dr = rho * c.Wr
		}
		var iou float64
		iou, c.scale, c.x0, c.y0 = ms.Score(c.Hull())
		// A mild prior for depth ≈ width breaks ties when depth is unobservable
		// (a box seen square on and level).
		c.iou = iou - 0.002*math.Abs(math.Log(rho))
		return c, true
	}
	// Coarse grid, then local refinement from the best few distinct starts: under
	// strong perspective the silhouette has near-equivalent readings (which corner is
	// nearest) that a single start can get stuck between.
	type start struct {
		c          CuboidFit
		near, rank float64
	}
	coarse := NewMaskSampler(seg, 40)
	var starts []start
	const deg = math.Pi / 180
	for yaw := 0.0; yaw < 90; yaw += 6 {
		if err := ctx.Err(); err != nil {
			return CuboidFit{}, err
		}
		for elev := -8.0; elev <= 40; elev += 4 {
			for k := range 9 {
				rho := math.Exp(math.Log(0.25) + float64(k)*math.Log(16)/8)
				for _, near := range []float64{0.1, 0.35, 0.6, 0.85} {
					if c, ok := eval(coarse, yaw*deg, elev*deg, rho, near); ok {
						starts = append(starts, start{c: c, near: near})
					}
				}
			}
		}
	}
	if len(starts) == 0 {
		return CuboidFit{}, nil
	}
	slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(b.c.iou, a.c.iou) })
	if starts[0].c.iou < cuboidMinIoU-0.05 {
		return starts[0].c, nil
	}
	// The coarse grid is too coarse for the outline alone to tell the readings apart
	// (see the face check below): the best outlines' starts are ranked with their
	// faces' colour uniformity too, so the right reading's basin gets refined.
	cand := starts[:0:0]
	for _, s := range starts {
		if s.c.iou < starts[0].c.iou-0.05 || len(cand) == 80 {
			break
		}
		cand = append(cand, s)
	}
	spread := maskColourVariance(seg)
	for i := range cand {
		cand[i].rank = cand[i].c.iou - cuboidFaceWeight*faceResidual(seg, cand[i].c)/spread
	}
	slices.SortStableFunc(cand, func(a, b start) int { return cmp.Compare(b.rank, a.rank) })
	var picked []start
	for _, s := range cand {
		distinct := true
		for _, p := range picked {
			if math.Abs(s.c.Yaw-p.c.Yaw) < 8*deg && math.Abs(math.Log(s.c.Dr/s.c.Wr)-math.Log(p.c.Dr/p.c.Wr)) < 0.3 {
				distinct = false
			}
		}
		if distinct {
			picked = append(picked, s)
		}
		if len(picked) == cuboidStarts {
			break
		}
	}
	fine := NewMaskSampler(seg, 96)
	refined := make([]start, 0, len(picked))
	cur := CuboidFit{iou: -1}
	for _, st := range picked {
		c, near := refineCuboid(fine, st.c, st.near, eval, nil)
		refined = append(refined, start{c: c, near: near})
		if c.iou > cur.iou {
			cur = c
		}
	}
	// Readings whose outlines fit about equally well (which corner is nearest, which
	// side is the wide one) differ inside the outline: the edges between the visible
	// faces. Each face of a box is one material under one light, so the right reading
	// is the one whose faces hold the most uniform colour.
	best := math.Inf(1)
	top := cur.iou
	var chosen start
	for _, st := range refined {
		if st.c.iou < top-cuboidTieIoU {
			continue
		}
		if r := faceResidual(seg, st.c); r < best {
			best, chosen = r, st
		}
	}
	// The outline leaves a ridge of near-equal readings (wider box seen more
	// side-on, …); the faces pin it down, so the chosen reading is polished on both.
	cur = polishCuboid(fine, chosen.c, func(c CuboidFit) float64 {
		return c.iou - cuboidFaceWeight*faceResidual(seg, c)/spread
	})
	if cur.iou < top-cuboidTieIoU {
		cur = chosen.c
	}
	cur.Ok = cur.iou >= cuboidMinIoU
	return cur, nil
}

// cuboidTieIoU is how much less outline overlap a reading may have and still compete
// on its faces' colours.
const cuboidTieIoU = 0.02

// faceResidual is the mean squared CIELAB deviation of the photo from its face's mean
// colour over the object's pixels that fall on the visible faces of c (grid cells of
// the segmentation, every other one).
func faceResidual(seg *segment.Segmentation, c CuboidFit) float64 {
	corner := func(k int) [3]float64 {
		x, y, z := (float64(k&1)-0.5)*c.Wr, float64(k>>1&1), (float64(k>>2&1)-0.5)*c.Dr
		cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
		return [3]float64{x*cy + z*sy, y, -x*sy + z*cy}
	}
	cam := [3]float64{0, 0.5 + c.Dist*math.Sin(c.Elev), c.Dist * math.Cos(c.Elev)}
	type quad struct{ p [4][2]float64 }
	var faces []quad
	for _, f := range cuboidFaces {
		var mid [3]float64
		for _, k := range f {
			p := corner(k)
			for i := range 3 {
				mid[i] += p[i] / 4
			}
		}
		// For a box the outward normal is parallel to face centre − box centre.
		n := [3]float64{mid[0], mid[1] - 0.5, mid[2]}
		if n[0]*(cam[0]-mid[0])+n[1]*(cam[1]-mid[1])+n[2]*(cam[2]-mid[2]) <= 0 {
			continue
		}
		var q quad
		for j, k := range f {
			p := corner(k)
			// project wants box coordinates; undo the yaw corner() applied.
			q.p[j][0], q.p[j][1] = c.project((float64(k&1)-0.5)*c.Wr, p[1], (float64(k>>2&1)-0.5)*c.Dr)
		}
		faces = append(faces, q)
	}
	type acc struct {
		n     float64
		s, s2 [3]float64
	}
	sums := make([]acc, len(faces))
	ff := float64(seg.F)
	for gy := 0; gy < seg.Sh; gy += 2 {
		for gx := 0; gx < seg.Sw; gx += 2 {
			i := gy*seg.Sw + gx
			if !seg.Smask[i] {
				continue
			}
			px, py := (float64(gx)+0.5)*ff, (float64(gy)+0.5)*ff
			for fi, q := range faces {
				if !inConvexQuad(q.p, px, py) {
					continue
				}
				l := seg.Slab[i]
				for ch, v := range [3]float64{float64(l.L), float64(l.A), float64(l.B)} {
					sums[fi].s[ch] += v
					sums[fi].s2[ch] += v * v
				}
				sums[fi].n++
				break
			}
		}
	}
	ss, n := 0.0, 0.0
	for _, a := range sums {
		if a.n == 0 {
			continue
		}
		for ch := range 3 {
			ss += a.s2[ch] - a.s[ch]*a.s[ch]/a.n
		}
		n += a.n
	}
	if n == 0 {
		return math.Inf(1)
	}
	return ss / n
}

// inConvexQuad says whether (x, y) lies inside the convex quadrilateral q (either
// winding).
func inConvexQuad(q [4][2]float64, x, y float64) bool {
	pos, neg := false, false
	for k := range 4 {
		a, b := q[k], q[(k+1)%4]
		cr := (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0])
		pos = pos || cr > 0
		neg = neg || cr < 0
	}
	return !(pos && neg)
}

// cuboidFaces lists each face's corners (index bits: x, y, z) in outward
// counter-clockwise order.
var cuboidFaces = [6][4]int{{4, 5, 7, 6}, {1, 0, 2, 3}, {0, 4, 6, 2}, {5, 1, 3, 7}, {6, 7, 3, 2}, {0, 1, 5, 4}}

// refineCuboid is a pattern search over yaw, elevation, log depth ratio and nearness.
// obj is the objective maximised; nil means the outline overlap alone.
func refineCuboid(fine MaskSampler, best CuboidFit, bestNear float64, eval func(MaskSampler, float64, float64, float64, float64) (CuboidFit, bool), obj func(CuboidFit) float64) (CuboidFit, float64) {
	const deg = math.Pi / 180
	if obj == nil {
		obj = func(c CuboidFit) float64 { return c.iou }
	}
	cur, _ := eval(fine, best.Yaw, best.Elev, best.Dr/best.Wr, bestNear)
	curNear, curObj := bestNear, obj(cur)
	step := [4]float64{3 * deg, 2 * deg, 0.15, 0.12}
	for range 4 {
		improved := true
		for improved {
			improved = false
			for dim := range 4 {
				for _, sgn := range []float64{-1, 1} {
					y, e, r, nr := cur.Yaw, cur.Elev, math.Log(cur.Dr/cur.Wr), curNear
					switch dim {
					case 0:
						y += sgn * step[0]
					case 1:
						e += sgn * step[1]
					case 2:
						r += sgn * step[2]
					default:
						nr = min(max(nr+sgn*step[3], 0), 0.95)
					}
					if c, ok := eval(fine, y, e, math.Exp(r), nr); ok {
						if o := obj(c); o > curObj+1e-6 {
							cur, curNear, curObj, improved = c, nr, o, true
						}
					}
				}
			}
		}
		for i := range step {
			step[i] /= 2
		}
	}
	return cur, curNear
}

func HullBounds(hull [][2]float64) (lo, hi [2]float64) {
	lo, hi = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range hull {
		lo[0], lo[1] = min(lo[0], p[0]), min(lo[1], p[1])
		hi[0], hi[1] = max(hi[0], p[0]), max(hi[1], p[1])
	}
	return lo, hi
}

// BuildCuboid makes the closed box mesh (hard edges: four vertices per face) in pixel
// units; every vertex takes the photo colour where it projects, so visible faces
// show the photo and hidden ones its mirror.
func BuildCuboid(c CuboidFit, uvm texture.UVMapper) *geom.Mesh {
	m := &geom.Mesh{}
	wr, dr := c.Wr, c.Dr
	const unit = 1000 // box heights to mesh units (the model is normalised later)
	corner := func(k int) (x, y, z float64) {
		return (float64(k&1) - 0.5) * wr, float64(k >> 1 & 1), (float64(k>>2&1) - 0.5) * dr
	}
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	for _, f := range cuboidFaces {
		first := uint32(len(m.Pos))
		for _, k := range f {
			x, y, z := corner(k)
			px, py := c.project(x, y, z)
			u, v := uvm.At(px, py)
			X, Z := x*cy+z*sy, -x*sy+z*cy
			m.AddVertex(X*unit, y*unit, Z*unit, u, v)
		}
		m.Tri(first, first+1, first+2)
		m.Tri(first, first+2, first+3)
	}
	m.ComputeNormals()
	return m
}

// straightBottom says whether the silhouette's lower outline is made of (at most) two
// straight edges, like a box's, rather than the elliptic arc of a round base. It
// returns the outline's sag below the chord between its ends too (0 for a flat
// bottom), in pixels.
func straightBottom(seg *segment.Segmentation) (straight bool, sag float64) {
	b := seg.Bbox
	x0, x1 := b.Min.X+b.Dx()/20, b.Max.X-b.Dx()/20
	n := x1 - x0
	if n < 8 {
		return false, 0
	}
	ys := make([]float64, n)
	for i := range n {
		x := x0 + i
		ys[i] = float64(b.Min.Y)
		for y := b.Max.Y - 1; y >= b.Min.Y; y-- {
			if seg.Alpha[y*seg.W+x] >= 128 {
				ys[i] = float64(y)
				break
			}
		}
	}
	// Seen from above, perspective makes the top wider than the bottom, so the outer
	// columns' lowest pixels lie on the slanted sides, not on the base: trim the
	// ends while the outline falls steeply (more than 2 px per px over 4 columns).
	// A round base's ellipse is steep only at its very ends, so little is trimmed there.
	const run = 4
	a, c := 0, n
	for a+run < n/3 && ys[a+run]-ys[a] > 2*run {
		a++
	}
	for c-1-run > 2*n/3 && ys[c-1-run]-ys[c-1] > 2*run {
		c--
	}
	ys = ys[a:c]
	n = len(ys)
	for i := range n {
		chord := ys[0] + (ys[n-1]-ys[0])*float64(i)/float64(n-1)
		sag = max(sag, ys[i]-chord)
	}
	// Residual of the best two-line fit.
	pre := func(from, to int) (float64, float64, float64, float64, float64, float64) {
		var a, bx, by, bxx, bxy, byy float64
		for i := from; i < to; i++ {
			x, y := float64(i), ys[i]
			a++
			bx += x
			by += y
			bxx += x * x
			bxy += x * y
			byy += y * y
		}
		return a, bx, by, bxx, bxy, byy
	}
	lineErr := func(from, to int) float64 {
		c, mx, my, mxx, mxy, myy := pre(from, to)
		if c < 2 {
			return 0
		}
		vx := mxx - mx*mx/c
		vy := myy - my*my/c
		cxy := mxy - mx*my/c
		if vx <= 0 {
			return vy
		}
		return max(0, vy-cxy*cxy/vx)
	}
	best := math.Inf(1)
	for k := 2; k < n-2; k += max(1, n/100) {
		best = min(best, lineErr(0, k)+lineErr(k, n))
	}
	rms := math.Sqrt(best / float64(n))
	return rms <= max(0.9, min(0.03*sag, 3)), sag
}

// cuboidFaceWeight weighs the faces' colour spread (relative to the whole object's)
// against outline overlap.
const cuboidFaceWeight = 0.1

// cuboidStarts is how many distinct coarse readings are refined.
const cuboidStarts = 8

// maskColourVariance is the summed CIELAB variance of the object's colours (grid
// cells, every other one), the scale faceResidual is compared on.
func maskColourVariance(seg *segment.Segmentation) float64 {
	var n float64
	var sum, sum2 [3]float64
	for gy := 0; gy < seg.Sh; gy += 2 {
		for gx := 0; gx < seg.Sw; gx += 2 {
			i := gy*seg.Sw + gx
			if !seg.Smask[i] {
				continue
			}
			l := seg.Slab[i]
			for ch, v := range [3]float64{float64(l.L), float64(l.A), float64(l.B)} {
				sum[ch] += v
				sum2[ch] += v * v
			}
			n++
		}
	}
	v := 1e-6
	for ch := range 3 {
		if n > 0 {
			v += sum2[ch]/n - (sum[ch]/n)*(sum[ch]/n)
		}
	}
	return v
}

// polishCuboid is a pattern search over all five of the box's free values (yaw,
// elevation, log width, log depth, log distance) under obj; the search of
// FitCuboid ties width to the outline's aspect ratio, which leaves it on ridges.
func polishCuboid(ms MaskSampler, c CuboidFit, obj func(CuboidFit) float64) CuboidFit {
	const deg = math.Pi / 180
	set := func(c CuboidFit) CuboidFit {
		c.iou, c.scale, c.x0, c.y0 = ms.Score(c.Hull())
		return c
	}
	cur := set(c)
	curObj := obj(cur)
	step := [5]float64{2 * deg, 1.5 * deg, 0.08, 0.08, 0.1}
	for range 4 {
		for improved := true; improved; {
			improved = false
			for dim := range 5 {
				for _, sgn := range []float64{-1, 1} {
					n := cur
					d := sgn * step[dim]
					switch dim {
					case 0:
						n.Yaw += d
					case 1:
						n.Elev += d
					case 2:
						n.Wr *= math.Exp(d)
					case 3:
						n.Dr *= math.Exp(d)
					default:
						n.Dist = max(n.Dist*math.Exp(d), 1.05*math.Sqrt(0.25+(n.Wr*n.Wr+n.Dr*n.Dr)/4))
					}
					n = set(n)
					if o := obj(n); o > curObj+1e-6 {
						cur, curObj, improved = n, o, true
					}
				}
			}
		}
		for i := range step {
			step[i] /= 2
		}
	}
	return cur
}
