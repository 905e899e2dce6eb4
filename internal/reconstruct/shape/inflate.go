package shape

import (
	"context"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// inflateDepth scales √u (u solves ∇²u = −4, zero on the outline) into half-thickness.
// For a disc of radius R, √u is a hemisphere of radius R; 0.7 makes objects slightly
// flatter than round, which suits most products photographed from the front.
const inflateDepth = 0.7

// lattice samples the silhouette, part labels and inflation field at the corners of a
// regular grid with spacing s working pixels. The mesh is built on this lattice.
type lattice struct {
	nx, ny int // corners
	s      float64
	x0, y0 float64   // pixel position of corner (0,0)
	g      []float32 // silhouette coverage (0..1) around each corner
	lbl    []int8    // part label of corners inside the silhouette, −1 outside
	u      []float64 // inflation potential
}

func (l *lattice) px(i, j int) (float64, float64) {
	return l.x0 + float64(i)*l.s, l.y0 + float64(j)*l.s
}

// sig is the corner's membership signature: 0 outside, else a bit per part.
func (l *lattice) sig(i int) uint16 {
	if l.g[i] < 0.5 || l.lbl[i] < 0 {
		return 0
	}
	return 1 << uint(l.lbl[i])
}

// newLattice samples seg and pm with spacing s (a whole number of pixels).
func newLattice(ctx context.Context, seg *segment.Segmentation, pm *segment.PartMap, s int) (*lattice, error) {
	b := seg.Bbox
	l := &lattice{s: float64(s)}
	l.x0 = float64(b.Min.X - 2*s)
	l.y0 = float64(b.Min.Y - 2*s)
	l.nx = (b.Dx()+4*s)/s + 2
	l.ny = (b.Dy()+4*s)/s + 2
	n := l.nx * l.ny
	l.g = make([]float32, n)
	l.lbl = make([]int8, n)
	// The coverage window is about twice the lattice spacing: wide enough that a
	// nearly binary alpha gives finely graded coverage (smooth, sub-pixel contours
	// instead of stair steps), narrow enough to keep corners.
	win := 2*s + 1
	half := win / 2
	// Summed-area table of alpha for O(1) box averages.
	w, h := seg.W, seg.H
	sat := make([]int64, (w+1)*(h+1))
	for y := range h {
		rowSum := int64(0)
		for x := range w {
			rowSum += int64(seg.Alpha[y*w+x])
			sat[(y+1)*(w+1)+x+1] = sat[y*(w+1)+x+1] + rowSum
		}
	}
	boxMean := func(x0, y0, x1, y1 int) float32 {
		x0, y0 = max(x0, 0), max(y0, 0)
		x1, y1 = min(x1, w), min(y1, h)
		if x1 <= x0 || y1 <= y0 {
			return 0
		}
		sum := sat[y1*(w+1)+x1] - sat[y0*(w+1)+x1] - sat[y1*(w+1)+x0] + sat[y0*(w+1)+x0]
		// Pixels outside the photo count as background.
		return float32(float64(sum) / 255 / float64(win*win))
	}
	for j := range l.ny {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for i := range l.nx {
			px, py := l.px(i, j)
			k := j*l.nx + i
			l.g[k] = boxMean(int(px)-half, int(py)-half, int(px)-half+win, int(py)-half+win)
			l.lbl[k] = -1
			if l.g[k] >= 0.5 {
				l.lbl[k] = labelNear(pm, px/float64(seg.F), py/float64(seg.F))
			}
		}
	}
	if err := l.solvePoisson(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// labelNear returns pm's part label at grid position (gx, gy), searching a small
// neighbourhood when the lattice corner falls just outside the grid mask.
func labelNear(pm *segment.PartMap, gx, gy float64) int8 {
	x, y := int(gx), int(gy)
	best, bd := int8(0), math.MaxFloat64
	for r := 0; r <= 3; r++ {
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				xx, yy := x+dx, y+dy
				if xx < 0 || yy < 0 || xx >= pm.W || yy >= pm.H {
					continue
				}
				if l := pm.Labels[yy*pm.W+xx]; l >= 0 {
					d := math.Hypot(float64(xx)+0.5-gx, float64(yy)+0.5-gy)
					if d < bd {
						best, bd = l, d
					}
				}
			}
		}
		if bd < math.MaxFloat64 {
			return best
		}
	}
	return 0
}

// solvePoisson solves ∇²u = −4 inside the silhouette with u = 0 outside, using a
// cascade from coarse to fine lattices (each level's solution seeds the next) and
// successive over-relaxation. √u is then a smooth, round cross-section whose
// thickness follows the local width of the shape, unlike a plain distance transform.
func (l *lattice) solvePoisson(ctx context.Context) error {
	inside := make([]bool, len(l.g))
	for i, g := range l.g {
		inside[i] = g >= 0.5
	}
	u, err := poissonCascade(ctx, inside, l.nx, l.ny, l.s)
	if err != nil {
		return err
	}
	l.u = u
	return nil
}

func poissonCascade(ctx context.Context, inside []bool, nx, ny int, s float64) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u := make([]float64, nx*ny)
	sweeps := 12
	if nx > 24 && ny > 24 {
		cnx, cny := (nx+1)/2, (ny+1)/2
		cin := make([]bool, cnx*cny)
		for j := range cny {
			for i := range cnx {
				cin[j*cnx+i] = inside[(2*j)*nx+2*i]
			}
		}
		uc, err := poissonCascade(ctx, cin, cnx, cny, 2*s)
		if err != nil {
			return nil, err
		}
		for j := range ny {
			for i := range nx {
				if !inside[j*nx+i] {
					continue
				}
				ci, cj := i/2, j/2
				ci1, cj1 := min(ci+(i&1), cnx-1), min(cj+(j&1), cny-1)
				u[j*nx+i] = (uc[cj*cnx+ci] + uc[cj*cnx+ci1] + uc[cj1*cnx+ci] + uc[cj1*cnx+ci1]) / 4
			}
		}
	} else {
		sweeps = 4 * max(nx, ny)
	}
	rhs := 4 * s * s
	const omega = 1.8
	for range sweeps {
		for j := 1; j < ny-1; j++ {
			for i := 1; i < nx-1; i++ {
				k := j*nx + i
				if !inside[k] {
					continue
				}
				gs := (u[k-1] + u[k+1] + u[k-nx] + u[k+nx] + rhs) / 4
				u[k] += omega * (gs - u[k])
			}
		}
	}
	for k := range u {
		if !inside[k] || u[k] < 0 {
			u[k] = 0
		}
	}
	return u, nil
}

// quadtree leaf: lattice-cell origin (ci, cj) and level (size 2^level cells).
type leaf struct{ ci, cj, level int }

// buildQuadtree covers the silhouette with square cells that are one lattice cell
// wide wherever the outline or a part boundary passes and grow with the distance to
// the outline inside, so triangles concentrate at the rim where the inflated surface
// curves most. Leaves are 2:1 balanced so neighbours differ by at most one level.
func (l *lattice) buildQuadtree() (leaves []leaf, levelOf []int8) {
	cw, ch := l.nx-1, l.ny-1
	nc := cw * ch
	feature := make([]bool, nc)
	inside := make([]bool, nc)
	for j := range ch {
		for i := range cw {
			k := j*l.nx + i
			s0, s1, s2, s3 := l.sig(k), l.sig(k+1), l.sig(k+l.nx), l.sig(k+l.nx+1)
			c := j*cw + i
			feature[c] = s0 != s1 || s0 != s2 || s0 != s3
			inside[c] = !feature[c] && s0 != 0
		}
	}
	// Chessboard distance (in cells) from feature cells, two passes.
	const far = 1 << 20
	dist := make([]int32, nc)
	for c := range dist {
		if feature[c] {
			dist[c] = 0
		} else {
			dist[c] = far
		}
	}
	for j := range ch {
		for i := range cw {
			c := j*cw + i
			for _, d := range [][2]int{{-1, 0}, {0, -1}, {-1, -1}, {1, -1}} {
				ii, jj := i+d[0], j+d[1]
				if ii >= 0 && jj >= 0 && ii < cw {
					dist[c] = min(dist[c], dist[jj*cw+ii]+1)
				}
			}
		}
	}
	for j := ch - 1; j >= 0; j-- {
		for i := cw - 1; i >= 0; i-- {
			c := j*cw + i
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {-1, 1}} {
				ii, jj := i+d[0], j+d[1]
				if ii >= 0 && jj < ch && ii < cw {
					dist[c] = min(dist[c], dist[jj*cw+ii]+1)
				}
			}
		}
	}
	// Summed-area tables of "feature" and "inside" for O(1) leaf tests.
	satF := make([]int32, (cw+1)*(ch+1))
	satI := make([]int32, (cw+1)*(ch+1))
	for j := range ch {
		var rf, ri int32
		for i := range cw {
			if feature[j*cw+i] {
				rf++
			}
			if inside[j*cw+i] {
				ri++
			}
			satF[(j+1)*(cw+1)+i+1] = satF[j*(cw+1)+i+1] + rf
			satI[(j+1)*(cw+1)+i+1] = satI[j*(cw+1)+i+1] + ri
		}
	}
	count := func(sat []int32, i0, j0, n int) int32 {
		i1, j1 := min(i0+n, cw), min(j0+n, ch)
		if i1 <= i0 || j1 <= j0 {
			return 0
		}
		return sat[j1*(cw+1)+i1] - sat[j0*(cw+1)+i1] - sat[j1*(cw+1)+i0] + sat[j0*(cw+1)+i0]
	}
	levelOf = make([]int8, nc)
	for c := range levelOf {
		levelOf[c] = -1
	}
	top := 0
	for 1<<top < max(cw, ch) {
		top++
	}
	var split func(i0, j0, lev int)
	split = func(i0, j0, lev int) {
		if i0 >= cw || j0 >= ch {
			return
		}
		n := 1 << lev
		nf := count(satF, i0, j0, n)
		ni := count(satI, i0, j0, n)
		if nf == 0 && ni == 0 {
			return // entirely outside
		}
		if lev == 0 {
			leaves = append(leaves, leaf{i0, j0, 0})
			levelOf[j0*cw+i0] = 0
			return
		}
		fits := i0+n <= cw && j0+n <= ch && nf == 0 && int(ni) == n*n
		if fits {
			ci, cj := min(i0+n/2, cw-1), min(j0+n/2, ch-1)
			if float64(dist[cj*cw+ci])-float64(n)/2 >= float64(n) {
				leaves = append(leaves, leaf{i0, j0, lev})
				for jj := j0; jj < j0+n; jj++ {
					for ii := i0; ii < i0+n; ii++ {
						levelOf[jj*cw+ii] = int8(lev)
					}
				}
				return
			}
		}
		h := n / 2
		split(i0, j0, lev-1)
		split(i0+h, j0, lev-1)
		split(i0, j0+h, lev-1)
		split(i0+h, j0+h, lev-1)
	}
	split(0, 0, top)
	// 2:1 balance.
	for changed := true; changed; {
		changed = false
		next := leaves[:0:0]
		for _, lf := range leaves {
			if lf.level >= 2 && l.unbalanced(lf, levelOf, cw, ch) {
				changed = true
				h := 1 << (lf.level - 1)
				for _, o := range [][2]int{{0, 0}, {h, 0}, {0, h}, {h, h}} {
					c := leaf{lf.ci + o[0], lf.cj + o[1], lf.level - 1}
					next = append(next, c)
					for jj := c.cj; jj < c.cj+h; jj++ {
						for ii := c.ci; ii < c.ci+h; ii++ {
							levelOf[jj*cw+ii] = int8(c.level)
						}
					}
				}
				continue
			}
			next = append(next, lf)
		}
		leaves = next
	}
	return leaves, levelOf
}

// unbalanced reports whether a neighbour across any edge is two or more levels finer.
func (l *lattice) unbalanced(lf leaf, levelOf []int8, cw, ch int) bool {
	n := 1 << lf.level
	check := func(i, j int) bool {
		if i < 0 || j < 0 || i >= cw || j >= ch {
			return false
		}
		v := levelOf[j*cw+i]
		return v >= 0 && int(v) < lf.level-1
	}
	for k := range n {
		if check(lf.ci+k, lf.cj-1) || check(lf.ci+k, lf.cj+n) || check(lf.ci-1, lf.cj+k) || check(lf.ci+n, lf.cj+k) {
			return true
		}
	}
	return false
}

// partBuilder accumulates one part's closed mesh over the lattice.
type partBuilder struct {
	l    *lattice
	part int
	m    *geom.Mesh
	uvm  texture.UVMapper
	base float64 // Y of the object's base (pixels) for the Y-up frame
	cx   float64 // X of the object's centre line
	// lattice point → front/back vertex; lattice edge → contour vertices
	latF, latB   []int32
	edgeF, edgeB []int32
	wallF, wallB []int32
	touchedLat   []int32
	touchedEdge  []int32
	wallTris     [][4]int32 // contour segment a_f, b_f, b_b, a_b (shared rim: a_f==a_b)
	depth        depthFn    // nil: the symmetric inflation inflateDepth·√u
}

// depthFn gives the front and back surfaces at working pixel (px, py), where the
// inflation potential is u: the surfaces lie at centre ± half. A shape class (a sofa's
// seat and back, a bag's thin slab) uses it to replace the pillow-like inflation with
// the depth its class has (depthprior.go); half must be 0 where u is 0 so the rim
// stays welded.
type depthFn func(px, py, u float64) (centre, half float64)

// surface returns the centre and half-thickness at (px, py) with potential u.
func (pb *partBuilder) surface(px, py, u float64) (float64, float64) {
	if pb.depth == nil {
		return 0, inflateDepth * math.Sqrt(u)
	}
	return pb.depth(px, py, u)
}

func (pb *partBuilder) vertex(px, py, z float64) uint32 {
	u, v := pb.uvm.At(px, py)
	return pb.m.AddVertex(px-pb.cx, pb.base-py, z, u, v)
}

// latVertex returns the front and back vertices of lattice point k.
func (pb *partBuilder) latVertex(k int) (int32, int32) {
	if pb.latF[k] < 0 {
		px, py := pb.l.px(k%pb.l.nx, k/pb.l.nx)
		c, h := pb.surface(px, py, pb.l.u[k])
		pb.latF[k] = int32(pb.vertex(px, py, c+h))
		pb.latB[k] = int32(pb.vertex(px, py, c-h))
		pb.touchedLat = append(pb.touchedLat, int32(k))
	}
	return pb.latF[k], pb.latB[k]
}

// edgeVertex returns the contour vertex on the lattice edge from inside corner a to
// outside corner b. On the silhouette it is a single vertex shared by front and back
// (the rim weld); on a boundary with another part it has a front and a back copy.
func (pb *partBuilder) edgeVertex(a, b int) (int32, int32) {
	l := pb.l
	lo, hi := min(a, b), max(a, b)
	key := 2 * lo
	if hi-lo != 1 {
		key++
	}
	if pb.edgeF[key] >= 0 {
		return pb.edgeF[key], pb.edgeB[key]
	}
	ax, ay := l.px(a%l.nx, a/l.nx)
	bx, by := l.px(b%l.nx, b/l.nx)
	if l.g[b] < 0.5 {
		t := float64((l.g[a] - 0.5) / (l.g[a] - l.g[b]))
		t = min(max(t, 0.05), 0.95)
		x, y := ax+(bx-ax)*t, ay+(by-ay)*t
		c, _ := pb.surface(x, y, 0)
		v := int32(pb.vertex(x, y, c))
		pb.edgeF[key], pb.edgeB[key] = v, v
	} else {
		mx, my := (ax+bx)/2, (ay+by)/2
		c, h := pb.surface(mx, my, (l.u[a]+l.u[b])/2)
		pb.edgeF[key] = int32(pb.vertex(mx, my, c+h))
		pb.edgeB[key] = int32(pb.vertex(mx, my, c-h))
	}
	pb.touchedEdge = append(pb.touchedEdge, int32(key))
	return pb.edgeF[key], pb.edgeB[key]
}

// polyVert is a polygon corner from marching squares: a lattice point or a crossing.
type polyVert struct {
	f, b     int32
	crossing bool
}

// emitPolygon triangulates a convex polygon given in clockwise (image) order as a fan
// on the front and the mirrored fan on the back, and queues wall segments for
// consecutive crossing vertices.
func (pb *partBuilder) emitPolygon(poly []polyVert) {
	for k := 1; k+1 < len(poly); k++ {
		pb.m.Tri(uint32(poly[0].f), uint32(poly[k+1].f), uint32(poly[k].f))
		pb.m.Tri(uint32(poly[0].b), uint32(poly[k].b), uint32(poly[k+1].b))
	}
	for k := range poly {
		a, b := poly[k], poly[(k+1)%len(poly)]
		if a.crossing && b.crossing && (a.f != a.b || b.f != b.b) {
			pb.wallTris = append(pb.wallTris, [4]int32{a.f, b.f, b.b, a.b})
		}
	}
}

// cell emits the part's surface inside one finest-level lattice cell (marching
// squares on part membership, with the silhouette crossing interpolated from alpha).
func (pb *partBuilder) cell(i, j int) {
	l := pb.l
	k := [4]int{j*l.nx + i, j*l.nx + i + 1, (j+1)*l.nx + i + 1, (j+1)*l.nx + i} // TL TR BR BL
	want := uint16(1) << uint(pb.part)
	in := [4]bool{}
	nIn := 0
	for c := range 4 {
		in[c] = l.sig(k[c]) == want
		if in[c] {
			nIn++
		}
	}
	if nIn == 0 {
		return
	}
	corner := func(c int) polyVert {
		f, b := pb.latVertex(k[c])
		return polyVert{f: f, b: b}
	}
	cross := func(c0, c1 int) polyVert {
		a, b := k[c0], k[c1]
		if !in[c0] {
			a, b = b, a
		}
		f, bb := pb.edgeVertex(a, b)
		return polyVert{f: f, b: bb, crossing: true}
	}
	if nIn == 4 {
		pb.emitPolygon([]polyVert{corner(0), corner(1), corner(2), corner(3)})
		return
	}
	var walk []polyVert
	for c := range 4 {
		n := (c + 1) % 4
		if in[c] {
			walk = append(walk, corner(c))
		}
		if in[c] != in[n] {
			walk = append(walk, cross(c, n))
		}
	}
	saddle := nIn == 2 && in[0] == in[2]
	if !saddle || pb.saddleConnected(k, in) {
		pb.emitPolygon(walk)
		return
	}
	// Two separate corners: the walk is [c, x, x, c', x, x] rotated; split it.
	if in[0] {
		// walk: TL, xTop, xRight, BR, xBottom, xLeft
		pb.emitPolygon([]polyVert{walk[5], walk[0], walk[1]})
		pb.emitPolygon([]polyVert{walk[2], walk[3], walk[4]})
	} else {
		// walk: xTop, TR, xRight, xBottom, BL, xLeft
		pb.emitPolygon([]polyVert{walk[0], walk[1], walk[2]})
		pb.emitPolygon([]polyVert{walk[3], walk[4], walk[5]})
	}
}

// saddleConnected resolves the ambiguous marching-squares case the same way for
// every part, so neighbouring parts neither overlap nor leave a hole: against the
// background the cell centre's coverage decides; against another part the lower part
// index takes the centre.
func (pb *partBuilder) saddleConnected(k [4]int, in [4]bool) bool {
	l := pb.l
	other := -1
	for c := range 4 {
		if !in[c] && l.sig(k[c]) != 0 {
			lb := int(l.lbl[k[c]])
			if other < 0 || lb < other {
				other = lb
			}
		}
	}
	if other >= 0 {
		return pb.part < other
	}
	mean := (l.g[k[0]] + l.g[k[1]] + l.g[k[2]] + l.g[k[3]]) / 4
	return mean >= 0.5
}

// coarseLeaf emits an interior leaf larger than one cell: two triangles, or a fan
// around its centre when finer neighbours put extra vertices on its edges.
func (pb *partBuilder) coarseLeaf(lf leaf, levelOf []int8, cw, ch int) {
	l := pb.l
	n := 1 << lf.level
	i0, j0 := lf.ci, lf.cj
	if l.lbl[j0*l.nx+i0] != int8(pb.part) {
		return
	}
	finer := func(i, j int) bool {
		if i < 0 || j < 0 || i >= cw || j >= ch {
			return false
		}
		v := levelOf[j*cw+i]
		return v >= 0 && int(v) < lf.level
	}
	pt := func(i, j int) polyVert {
		f, b := pb.latVertex(j*l.nx + i)
		return polyVert{f: f, b: b}
	}
	h := n / 2
	loop := []polyVert{pt(i0, j0)}
	mid := false
	if finer(i0, j0-1) || finer(i0+h, j0-1) {
		loop = append(loop, pt(i0+h, j0))
		mid = true
	}
	loop = append(loop, pt(i0+n, j0))
	if finer(i0+n, j0) || finer(i0+n, j0+h) {
		loop = append(loop, pt(i0+n, j0+h))
		mid = true
	}
	loop = append(loop, pt(i0+n, j0+n))
	if finer(i0, j0+n) || finer(i0+h, j0+n) {
		loop = append(loop, pt(i0+h, j0+n))
		mid = true
	}
	loop = append(loop, pt(i0, j0+n))
	if finer(i0-1, j0) || finer(i0-1, j0+h) {
		loop = append(loop, pt(i0, j0+h))
		mid = true
	}
	if !mid {
		pb.emitPolygon(loop)
		return
	}
	c := pt(i0+h, j0+h)
	for k := range loop {
		a, b := loop[k], loop[(k+1)%len(loop)]
		pb.emitPolygon([]polyVert{c, a, b})
	}
}

// walls closes internal part boundaries with vertical strips from front to back.
func (pb *partBuilder) walls() {
	m := pb.m
	wallVertex := func(src int32, cache []int32) int32 {
		if cache[src] >= 0 {
			return cache[src]
		}
		p, uv := m.Pos[src], m.Uv[src]
		m.Pos = append(m.Pos, p)
		m.Uv = append(m.Uv, uv)
		cache[src] = int32(len(m.Pos) - 1)
		return cache[src]
	}
	n := len(m.Pos)
	cache := make([]int32, n)
	for i := range cache {
		cache[i] = -1
	}
	for _, w := range pb.wallTris {
		af, bf, bb, ab := wallVertex(w[0], cache), wallVertex(w[1], cache), wallVertex(w[2], cache), wallVertex(w[3], cache)
		switch {
		case w[0] == w[3]: // a on the rim
			m.Tri(uint32(af), uint32(bf), uint32(bb))
		case w[1] == w[2]: // b on the rim
			m.Tri(uint32(af), uint32(bf), uint32(ab))
		default:
			m.Tri(uint32(af), uint32(bf), uint32(bb))
			m.Tri(uint32(af), uint32(bb), uint32(ab))
		}
	}
}

// BuildInflate builds one closed, inflated mesh per part. The front is a height field
// over the part's region, the back its mirror image; the two share their vertices on
// the silhouette (so the rim is welded, with no crack), and where the part meets
// another part a vertical wall closes the gap, so every part is watertight on its own
// and together the parts form the whole object. The lattice spacing grows until the
// whole model fits in maxTris.
func BuildInflate(ctx context.Context, seg *segment.Segmentation, pm *segment.PartMap, uvm texture.UVMapper, maxTris int) ([]*geom.Mesh, error) {
	return BuildShaped(ctx, seg, pm, uvm, maxTris, Shaping{})
}

// Shaping overrides BuildInflate's defaults: depth shapes the surfaces, and frame
// (when set) fixes the base and centre line so a mesh built from part of the
// silhouette (a chair's rear legs) lands in the same frame as the whole model.
type Shaping struct {
	Depth    depthFn
	frameSet bool
	base, cx float64
}

// BuildShaped is BuildInflate with the surfaces given by sh.
func BuildShaped(ctx context.Context, seg *segment.Segmentation, pm *segment.PartMap, uvm texture.UVMapper, maxTris int, sh Shaping) ([]*geom.Mesh, error) {
	long := max(seg.Bbox.Dx(), seg.Bbox.Dy())
	s := max(1, int(math.Round(float64(long)/200)))
	for {
		meshes, err := inflateAt(ctx, seg, pm, uvm, s, sh)
		if err != nil {
			return nil, err
		}
		total := 0
		for _, m := range meshes {
			if m != nil {
				total += m.Triangles()
			}
		}
		if total <= maxTris || s > long {
			return meshes, nil
		}
		s = max(s+1, int(math.Ceil(float64(s)*math.Sqrt(float64(total)/float64(maxTris))*1.05)))
	}
}

func inflateAt(ctx context.Context, seg *segment.Segmentation, pm *segment.PartMap, uvm texture.UVMapper, s int, sh Shaping) ([]*geom.Mesh, error) {
	l, err := newLattice(ctx, seg, pm, s)
	if err != nil {
		return nil, err
	}
	leaves, levelOf := l.buildQuadtree()
	cw, ch := l.nx-1, l.ny-1
	base := float64(seg.Bbox.Max.Y)
	cx := float64(seg.Bbox.Min.X+seg.Bbox.Max.X) / 2
	if sh.frameSet {
		base, cx = sh.base, sh.cx
	}
	nlat := l.nx * l.ny
	pb := &partBuilder{
		l: l, uvm: uvm, base: base, cx: cx, depth: sh.Depth,
		latF: fill32(nlat), latB: fill32(nlat),
		edgeF: fill32(2 * nlat), edgeB: fill32(2 * nlat),
	}
	meshes := make([]*geom.Mesh, len(pm.Parts))
	for part := range pm.Parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pb.part = part
		pb.m = &geom.Mesh{}
		pb.wallTris = pb.wallTris[:0]
		for _, lf := range leaves {
			if lf.level == 0 {
				pb.cell(lf.ci, lf.cj)
			} else {
				pb.coarseLeaf(lf, levelOf, cw, ch)
			}
		}
		pb.m.ComputeNormals()
		pb.walls()
		// Wall vertices get their own (flat-ish) normals from the wall triangles.
		wallStart := len(pb.m.Nrm)
		pb.m.Nrm = append(pb.m.Nrm, make([][3]float32, len(pb.m.Pos)-wallStart)...)
		if len(pb.m.Pos) > wallStart {
			wallNormals(pb.m, wallStart)
		}
		pb.m.DropDegenerate()
		if pb.m.Triangles() > 0 {
			meshes[part] = pb.m
		}
		for _, k := range pb.touchedLat {
			pb.latF[k], pb.latB[k] = -1, -1
		}
		for _, k := range pb.touchedEdge {
			pb.edgeF[k], pb.edgeB[k] = -1, -1
		}
		pb.touchedLat, pb.touchedEdge = pb.touchedLat[:0], pb.touchedEdge[:0]
	}
	return meshes, nil
}

// wallNormals computes normals for vertices from index start on, using only the
// triangles that reference them (the walls).
func wallNormals(m *geom.Mesh, start int) {
	acc := make([][3]float64, len(m.Pos)-start)
	for t := 0; t+2 < len(m.Idx); t += 3 {
		if int(m.Idx[t]) < start && int(m.Idx[t+1]) < start && int(m.Idx[t+2]) < start {
			continue
		}
		a, b, c := m.Pos[m.Idx[t]], m.Pos[m.Idx[t+1]], m.Pos[m.Idx[t+2]]
		n := geom.Cross(
			[3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])},
			[3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])})
		for _, v := range m.Idx[t : t+3] {
			if int(v) >= start {
				acc[int(v)-start][0] += n[0]
				acc[int(v)-start][1] += n[1]
				acc[int(v)-start][2] += n[2]
			}
		}
	}
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l < 1e-12 {
			m.Nrm[start+i] = [3]float32{1, 0, 0}
			continue
		}
		m.Nrm[start+i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
	}
}

func fill32(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}
