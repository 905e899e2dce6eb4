package multiview

import (
	"context"
	"encoding/binary"
	"image"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
)

// Pose estimation for multi-view reconstruction.
//
// Every view is a pinhole camera with a phone's focal length (shape.PhoneFocal35) looking
// at the product: rotation from its azimuth θ and elevation e, translation from the
// pixel (du, dv) the world origin projects to and its distance. The front view fixes
// the frame (θ = 0, its origin pixel and distance set the world's origin and unit,
// about the object's height); its elevation is free, which sets "up". Every other
// view has all five free.
//
// They are found by maximising silhouette coherence (Hernández, Schmitt & Cipolla,
// 2007): the visual hull carved from all views is projected back into each view,
// and the share of each silhouette it covers is averaged. Wrong poses carve away
// parts of the object that some photo shows, so the projection no longer fills that
// photo's silhouette. The search is coordinate descent with shrinking steps on a
// coarse voxel grid, starting from the stated azimuths.

// Camera projects world points (y up) into a working photo.
type Camera struct {
	R         [3][3]float64 // rows: right, up, forward, world → camera
	T         [3]float64
	F, Cx, Cy float64
}

func (c *Camera) Project(p [3]float64) (u, v, z float64) {
	x := c.R[0][0]*p[0] + c.R[0][1]*p[1] + c.R[0][2]*p[2] + c.T[0]
	y := c.R[1][0]*p[0] + c.R[1][1]*p[1] + c.R[1][2]*p[2] + c.T[1]
	z = c.R[2][0]*p[0] + c.R[2][1]*p[1] + c.R[2][2]*p[2] + c.T[2]
	return c.Cx + c.F*x/z, c.Cy - c.F*y/z, z
}

// centre is the camera's position in the world.
func (c *Camera) centre() [3]float64 {
	var o [3]float64
	for k := range 3 {
		o[k] = -(c.R[0][k]*c.T[0] + c.R[1][k]*c.T[1] + c.R[2][k]*c.T[2])
	}
	return o
}

// rotAzEl is the rotation of a camera at azimuth az (about +Y, from +Z towards +X)
// and elevation el, looking at the world's vertical axis.
func rotAzEl(az, el float64) [3][3]float64 {
	sa, ca := math.Sincos(az)
	se, ce := math.Sincos(el)
	fwd := [3]float64{-sa * ce, -se, -ca * ce}
	right := [3]float64{ca, 0, -sa}
	up := geom.Cross(right, fwd)
	return [3][3]float64{right, up, fwd}
}

// NewView measures the silhouette and sets the starting pose: the stated azimuth,
// 10° above, the distance at which the object is about one unit tall, and the world
// origin on the silhouette's bounding-box centre.
func NewView(p *segment.Photo, seg *segment.Segmentation, az float64) *View {
	v := &View{P: p, Seg: seg, Az: az, az0: az, El: 10 * math.Pi / 180}
	if Grow {
		v.growMask()
	} else {
		v.measureShadow()
	}
	v.Measure()
	return v
}

// Measure sets what the pose search reads from the view's masks (v.alpha and
// v.loose): the silhouette's box, the starting camera and the coverage grids.
func (v *View) Measure() {
	p, seg := v.P, v.Seg
	b := AlphaBounds(v.Alpha, p.W, p.H, seg.Bbox)
	v.bbox = [4]float64{float64(b.Min.X), float64(b.Min.Y), float64(b.Max.X), float64(b.Max.Y)}
	v.F0 = shape.PhoneFocal35 / 43.27 * math.Hypot(float64(p.W), float64(p.H))
	v.Cam = Camera{F: v.F0, Cx: float64(p.W) / 2, Cy: float64(p.H) / 2}
	v.BaseZ = v.F0 / math.Max(1, float64(b.Dy()))
	v.Du, v.Dv = (v.bbox[0]+v.bbox[2])/2, (v.bbox[1]+v.bbox[3])/2
	// Coverage grid: the object about 112 cells across.
	v.Lcell = math.Max(1, float64(max(b.Dx(), b.Dy()))/112)
	v.Lw, v.Lh = int(float64(p.W)/v.Lcell)+1, int(float64(p.H)/v.Lcell)+1
	v.Lcov = v.Coverage(v.Alpha, b)
	if v.Loose != nil {
		v.LcovLoose = v.Coverage(v.Loose, b.Union(AlphaBounds(v.Loose, p.W, p.H, b)))
	}
	v.Update()
}

// Coverage is alpha's share of each coverage-grid cell (pixels outside b count
// as 0).
func (v *View) Coverage(alpha []uint8, b image.Rectangle) []float32 {
	p := v.P
	cov := make([]float32, v.Lw*v.Lh)
	// Each pixel column's and row's cell, once (the same divisions as per pixel).
	colCell := make([]int, p.W)
	for x := range colCell {
		colCell[x] = int(float64(x) / v.Lcell)
	}
	rowCell := make([]int, p.H)
	for y := range rowCell {
		rowCell[y] = int(float64(y) / v.Lcell)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := cov[rowCell[y]*v.Lw:]
		alpha := alpha[y*p.W:]
		for x := b.Min.X; x < b.Max.X; x++ {
			row[colCell[x]] += float32(alpha[x]) / 255
		}
	}
	// Normalise by the cell's pixel count (cells on the bbox edge are partly outside,
	// which only matters for the outermost cells): the count of pixel rows in its
	// row of cells times that of columns in its column (exact in float32: at most
	// the photo's pixel count).
	rows, cols := make([]int, v.Lh), make([]int, v.Lw)
	for _, c := range rowCell {
		rows[c]++
	}
	for _, c := range colCell {
		cols[c]++
	}
	cnt := make([]float32, v.Lw*v.Lh)
	for cy, nr := range rows {
		for cx, nc := range cols {
			cnt[cy*v.Lw+cx] = float32(nr * nc)
		}
	}
	for k := range cov {
		if cnt[k] > 0 {
			cov[k] /= cnt[k]
		}
	}
	return cov
}

// Update sets the camera from the pose parameters.
func (v *View) Update() {
	v.Cam.R = rotAzEl(v.Az, v.El)
	// A longer lens (lf > 0) sees the same image from proportionally farther away.
	v.Cam.F = v.F0 * math.Exp(v.Lf)
	tz := v.BaseZ * math.Exp(v.Ls+v.Lf)
	v.Cam.T = [3]float64{(v.Du - v.Cam.Cx) * tz / v.Cam.F, -(v.Dv - v.Cam.Cy) * tz / v.Cam.F, tz}
}

// CoverAt is the bilinear coverage at working pixel (u, v); 0 outside the frame.
func (v *View) CoverAt(u, w float64) float32 {
	return v.CoverCell(u/v.Lcell-0.5, w/v.Lcell-0.5)
}

// CoverCell is coverAt at (x, y) in coverage-cell units (u/lcell − ½, w/lcell − ½).
func (v *View) CoverCell(x, y float64) float32 { return v.coverGrid(v.Lcov, x, y) }

// CoverOf is the bilinear value of the coverage grid cov at working pixel (u, w).
func (v *View) CoverOf(cov []float32, u, w float64) float32 {
	return v.coverGrid(cov, u/v.Lcell-0.5, w/v.Lcell-0.5)
}

// coverGrid is the bilinear value of cov at (x, y) in coverage-cell units.
func (v *View) coverGrid(cov []float32, x, y float64) float32 {
	if x < 0 || y < 0 || x >= float64(v.Lw-1) || y >= float64(v.Lh-1) {
		return 0
	}
	ix, iy := int(x), int(y)
	fx, fy := float32(x-float64(ix)), float32(y-float64(iy))
	k := iy*v.Lw + ix
	a := cov[k]*(1-fx) + cov[k+1]*fx
	b := cov[k+v.Lw]*(1-fx) + cov[k+v.Lw+1]*fx
	return a*(1-fy) + b*fy
}

// GridFor spans [lo, hi] with about n voxels along its longest side.
func GridFor(lo, hi [3]float64, n int) geom.VoxGrid {
	s := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]) / float64(n)
	g := geom.VoxGrid{Lo: lo, S: s}
	g.Nx = max(1, int(math.Ceil((hi[0]-lo[0])/s)))
	g.Ny = max(1, int(math.Ceil((hi[1]-lo[1])/s)))
	g.Nz = max(1, int(math.Ceil((hi[2]-lo[2])/s)))
	return g
}

// coherenceEval holds the buffers of repeated coherence evaluations.
//
// The pose search changes one view's camera at a time (or, for the shared
// elevation and lens, all of them) and mostly puts it back, so each view keeps
// the verdicts of its last few cameras: per voxel whether that camera keeps it
// and, if so, the coarse cells its projection covers. A voxel some view's cached
// camera rejects costs one lookup; only the changed view projects anything. The
// result is the one a full evaluation gives, bit for bit: every verdict and
// footprint is computed by the same expressions, and the hull (an AND over the
// views), its bounds (min/max) and the covered cells (counted, see cover) do
// not depend on the order in which they are found.
type coherenceEval struct {
	vs []*View
	g  geom.VoxGrid
	// cover[vi] counts, per coverage cell of view vi, the kept voxels whose
	// footprint (in painted[vi], the memo of the camera it was painted with)
	// covers it: the hull's projection is where it is above 0. Between two
	// evaluations the search mostly moves one view's camera, and the hull
	// changes by a thin shell: the views whose camera stayed only add and
	// take away the footprints of the voxels that joined or left it, where
	// painting every kept voxel again cost a solid tray's search a quarter of
	// its time. Counts add up the same whatever the order, so the cells
	// covered are those a full painting covers, bit for bit.
	cover   [][]int32
	painted []paintedWith
	// hull bounds of the last evaluation (voxels with occupancy ≥ ½)
	Lo, Hi [3]float64
	// voxel centres along each axis (g.centre's values)
	cx, cy, cz []float64
	caches     [][]*camVerdicts // per view, up to camCacheSlots cameras
	calls      int
	// lit[vi] counts view vi's coverage cells above LitCover (a summed-area
	// table, (lw+1)×(lh+1)); bnx, bny, bnz are the grid's size in blocks of
	// cullBlock³ voxels.
	lit           [][]int32
	full          [][]int32 // the same for cells at or above FullCover
	bnx, bny, bnz int
	// takeBack forgives one view's rejection where its loose mask keeps the
	// voxel, as the carve does (takeback.go): the memo then also remembers
	// "kept only by the loose mask" (verdictLoose), and the colour check against
	// the facing view, which reads two cameras, is made for those voxels alone.
	takeBack bool
	// kept is the last evaluation's kept voxels in grid order (the hull the
	// counts in cover hold); left holds the one before it, its buffer reused.
	kept, left []int32
	// gen numbers the cameras the memos were filled for (camVerdicts.gen).
	gen uint64
	// keptWhole counts the blocks found inside a silhouette whole (blockIn).
	keptWhole int
}

// BlocksKeptWhole is how many blocks the evaluations so far found inside a
// view's silhouette whole, whose voxels were kept without reading the mask.
func (e *coherenceEval) BlocksKeptWhole() int { return e.keptWhole }

// cullBlock is the side, in voxels, of the blocks a view rejects whole when
// their projection only meets coverage cells at or below LitCover.
const cullBlock = 4

// LitCover: a bilinear mix of cells at or below it stays under ½ (float32
// rounding included), so coverCell < 0.5 for any point among them.
const LitCover = 0.25

// Block verdicts of one camera.
const (
	blockUnknown = iota
	blockOut     // every voxel of the block is verdictOut
	blockMixed   // its voxels are judged one by one
	blockIn      // every voxel of the block is kept: judged for its footprint alone
)

// FullCover: a bilinear mix of cells at or above it stays at or above ½, so a
// block whose projection only meets such cells is kept whole.
const FullCover = 0.75

// camCacheSlots is how many cameras each view remembers: the accepted pose and
// the two trial steps around it.
const camCacheSlots = 3

// Voxel verdicts of one camera.
const (
	verdictUnknown = 0
	verdictIn      = 1
	verdictOut     = 2
	// verdictLoose: the strict mask rejects the voxel but the loose mask keeps it
	// (take-back evaluations only). Bit 2, so the eight-at-once skip, which
	// looks for bit 1 (verdictOut) in some view, never skips it.
	verdictLoose = 4
)

// allOut8 has bit 1 of each of eight verdict bytes: the mask of verdictOut.
const allOut8 = 0x0202020202020202

// camVerdicts memoises one view's verdicts for one camera.
type camVerdicts struct {
	cam     Camera
	gen     uint64  // which camera it holds: a slot reused for another is renumbered
	used    int     // the evaluation that last used it
	verdict []uint8 // per voxel: verdictUnknown, verdictIn or verdictOut
	block   []uint8 // per block of cullBlock³ voxels: blockUnknown, blockOut, blockMixed or blockIn
	fp      []cellRect
}

// paintedWith names the memo (and its camera, by number) whose footprints a
// view's cover counts hold.
type paintedWith struct {
	m   *camVerdicts
	gen uint64
}

// cellRect is the inclusive range of coverage cells a kept voxel's projection
// covers, already clipped to the view's grid (empty when x0 > x1 or y0 > y1).
type cellRect struct{ x0, x1, y0, y1 int16 }

func NewCoherenceEval(vs []*View, g geom.VoxGrid) *coherenceEval {
	return NewCoherenceEvalTakeBack(vs, g, false)
}

// TakeBackPossible reports whether a take-back evaluation of vs can forgive
// anything: some view has a loose mask, and there are enough views.
func TakeBackPossible(vs []*View) bool {
	if len(vs) < mvTakeBackViews {
		return false
	}
	for _, v := range vs {
		if v.LcovLoose != nil {
			return true
		}
	}
	return false
}

// NewCoherenceEvalTakeBack is NewCoherenceEval with the take-back on or off.
func NewCoherenceEvalTakeBack(vs []*View, g geom.VoxGrid, takeBack bool) *coherenceEval {
	e := &coherenceEval{vs: vs, g: g, cover: make([][]int32, len(vs)), painted: make([]paintedWith, len(vs)),
		caches: make([][]*camVerdicts, len(vs)), takeBack: takeBack}
	for i, v := range vs {
		e.cover[i] = make([]int32, v.Lw*v.Lh)
	}
	e.lit = make([][]int32, len(vs))
	e.full = make([][]int32, len(vs))
	for i, v := range vs {
		sat := make([]int32, (v.Lw+1)*(v.Lh+1))
		full := make([]int32, (v.Lw+1)*(v.Lh+1))
		for y := range v.Lh {
			for x := range v.Lw {
				n := int32(0)
				c := v.Lcov[y*v.Lw+x]
				if e.takeBack && v.LcovLoose != nil {
					// A block the strict mask rejects may still be loosely kept.
					c = max(c, v.LcovLoose[y*v.Lw+x])
				}
				if c > LitCover {
					n = 1
				}
				sat[(y+1)*(v.Lw+1)+x+1] = n + sat[y*(v.Lw+1)+x+1] + sat[(y+1)*(v.Lw+1)+x] - sat[y*(v.Lw+1)+x]
				f := int32(0)
				if v.Lcov[y*v.Lw+x] >= FullCover { // the strict mask: what keeps a voxel outright
					f = 1
				}
				full[(y+1)*(v.Lw+1)+x+1] = f + full[y*(v.Lw+1)+x+1] + full[(y+1)*(v.Lw+1)+x] - full[y*(v.Lw+1)+x]
			}
		}
		e.lit[i], e.full[i] = sat, full
	}
	e.bnx, e.bny, e.bnz = (g.Nx+cullBlock-1)/cullBlock, (g.Ny+cullBlock-1)/cullBlock, (g.Nz+cullBlock-1)/cullBlock
	e.cx, e.cy, e.cz = make([]float64, g.Nx), make([]float64, g.Ny), make([]float64, g.Nz)
	for i := range g.Nx {
		e.cx[i] = g.Centre(i, 0, 0)[0]
	}
	for j := range g.Ny {
		e.cy[j] = g.Centre(0, j, 0)[1]
	}
	for k := range g.Nz {
		e.cz[k] = g.Centre(0, 0, k)[2]
	}
	return e
}

// same reports whether c and o are bit for bit the same camera (== would take
// −0 for +0).
func (c *Camera) same(o *Camera) bool {
	a := [15]float64{c.F, c.Cx, c.Cy, c.T[0], c.T[1], c.T[2]}
	b := [15]float64{o.F, o.Cx, o.Cy, o.T[0], o.T[1], o.T[2]}
	for i := range 9 {
		a[6+i], b[6+i] = c.R[i/3][i%3], o.R[i/3][i%3]
	}
	for i := range 15 {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// verdicts returns view vi's memo for its current camera, reusing the least
// recently used slot (cleared) when the camera is new.
func (e *coherenceEval) verdicts(vi int) *camVerdicts {
	cam := e.vs[vi].Cam
	var lru *camVerdicts
	for _, c := range e.caches[vi] {
		if c.cam.same(&cam) {
			c.used = e.calls
			return c
		}
		if lru == nil || c.used < lru.used {
			lru = c
		}
	}
	if len(e.caches[vi]) < camCacheSlots {
		n := e.g.Nx * e.g.Ny * e.g.Nz
		lru = &camVerdicts{verdict: make([]uint8, n), fp: make([]cellRect, n), block: make([]uint8, e.bnx*e.bny*e.bnz)}
		e.caches[vi] = append(e.caches[vi], lru)
	} else {
		clear(lru.verdict)
		clear(lru.block)
	}
	e.gen++
	lru.cam, lru.used, lru.gen = cam, e.calls, e.gen
	return lru
}

// cull decides the block of voxel (i, j, k) for view vi's camera: when the
// projection of the box through its voxels' centres only meets coverage cells
// at or below LitCover (or none in the frame), every voxel in it is rejected,
// exactly as judge would, and marked so; otherwise its voxels are judged one by
// one. The box is in front of the camera (so its image is the hull of its
// corners' images) and a cell of margin on each side covers any rounding of
// the per-voxel projections.
func (e *coherenceEval) cull(vi int, m *camVerdicts, i, j, k int) uint8 {
	v := e.vs[vi]
	g := e.g
	i0, j0, k0 := i/cullBlock*cullBlock, j/cullBlock*cullBlock, k/cullBlock*cullBlock
	i1, j1, k1 := min(i0+cullBlock, g.Nx)-1, min(j0+cullBlock, g.Ny)-1, min(k0+cullBlock, g.Nz)-1
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for corner := range 8 {
		p := [3]float64{e.cx[i0], e.cy[j0], e.cz[k0]}
		if corner&1 != 0 {
			p[0] = e.cx[i1]
		}
		if corner&2 != 0 {
			p[1] = e.cy[j1]
		}
		if corner&4 != 0 {
			p[2] = e.cz[k1]
		}
		u, w, z := v.Cam.Project(p)
		if !(z > 1e-6) {
			return blockMixed
		}
		x, y := u/v.Lcell-0.5, w/v.Lcell-0.5
		if !(math.Abs(x) < 1e9 && math.Abs(y) < 1e9) {
			return blockMixed
		}
		xlo, xhi = min(xlo, x), max(xhi, x)
		ylo, yhi = min(ylo, y), max(yhi, y)
	}
	// coverCell reads cells floor(x) and floor(x)+1; one more on each side.
	cx0, cx1 := max(int(math.Floor(xlo))-1, 0), min(int(math.Floor(xhi))+2, v.Lw-1)
	cy0, cy1 := max(int(math.Floor(ylo))-1, 0), min(int(math.Floor(yhi))+2, v.Lh-1)
	if cx0 <= cx1 && cy0 <= cy1 {
		sat, sw := e.lit[vi], v.Lw+1
		if sat[(cy1+1)*sw+cx1+1]-sat[cy0*sw+cx1+1]-sat[(cy1+1)*sw+cx0]+sat[cy0*sw+cx0] != 0 {
			// Inside the silhouette whole: the same box unclipped, every cell
			// covered at FullCover, keeps every voxel (coverGrid reads 0 off the
			// grid, hence the unclipped box inside it). Solid products (a box, a
			// tray) are mostly such blocks.
			full := e.full[vi]
			if cx0 == int(math.Floor(xlo))-1 && cx1 == int(math.Floor(xhi))+2 && cx1 < v.Lw-1 &&
				cy0 == int(math.Floor(ylo))-1 && cy1 == int(math.Floor(yhi))+2 && cy1 < v.Lh-1 &&
				int(full[(cy1+1)*sw+cx1+1]-full[cy0*sw+cx1+1]-full[(cy1+1)*sw+cx0]+full[cy0*sw+cx0]) == (cx1-cx0+1)*(cy1-cy0+1) {
				e.keptWhole++
				return blockIn
			}
			return blockMixed
		}
	}
	for kk := k0; kk <= k1; kk++ {
		for jj := j0; jj <= j1; jj++ {
			row := (kk*g.Ny + jj) * g.Nx
			for ii := i0; ii <= i1; ii++ {
				m.verdict[row+ii] = verdictOut
			}
		}
	}
	return blockOut
}

// voxelCells is the range of coverage cells (unclipped) that a voxel of size s,
// whose centre projects to cell coordinates (cx, cy) at depth z, covers: the cells
// whose centres lie within half its projected size, or the nearest cell when it
// projects smaller than one.
func (v *View) voxelCells(cx, cy, z, s float64) (x0, x1, y0, y1 int) {
	r := v.Cam.F * s / (z * v.Lcell) * 0.5
	x0, x1 = int(math.Ceil(cx-r)), int(math.Floor(cx+r))
	y0, y1 = int(math.Ceil(cy-r)), int(math.Floor(cy+r))
	if x1 < x0 {
		x0 = int(math.Round(cx))
		x1 = x0
	}
	if y1 < y0 {
		y0 = int(math.Round(cy))
		y1 = y0
	}
	return x0, x1, y0, y1
}

// judge projects voxel n (centre c) into view v and records its verdict (kept: its
// block is inside the silhouette whole, blockIn, so only its footprint is needed): whether
// the view keeps it (verdictIn), keeps it only by its loose mask in a take-back
// evaluation (verdictLoose) or rejects it, and, when kept, which coverage cells
// it covers.
func (e *coherenceEval) judge(v *View, m *camVerdicts, n int, c [3]float64, kept bool) uint8 {
	u, w, z := v.Cam.Project(c)
	cx, cy := u/v.Lcell-0.5, w/v.Lcell-0.5
	verdict := uint8(verdictIn)
	if !kept && v.CoverCell(cx, cy) < 0.5 {
		if !e.takeBack || v.LcovLoose == nil || v.coverGrid(v.LcovLoose, cx, cy) < 0.5 {
			m.verdict[n] = verdictOut
			return verdictOut
		}
		verdict = verdictLoose
	}
	x0, x1, y0, y1 := v.voxelCells(cx, cy, z, e.g.S)
	// Clipped to the grid; the cell indices then fit an int16 (a coverage grid is
	// at most maxWorkingSize+1 cells wide: cells are at least a pixel).
	x0, x1 = max(0, x0), min(v.Lw-1, x1)
	y0, y1 = max(0, y0), min(v.Lh-1, y1)
	if x0 > x1 || y0 > y1 {
		x0, x1 = 1, 0
	}
	m.verdict[n] = verdict
	m.fp[n] = cellRect{int16(x0), int16(x1), int16(y0), int16(y1)}
	return verdict
}

// Score carves the soft hull (occupancy = the least coverage over the views) and
// returns the mean share of each view's silhouette its projection covers.
func (e *coherenceEval) Score() float64 {
	g := e.g
	e.calls++
	e.Lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	e.Hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	ms := make([]*camVerdicts, len(e.vs))
	for vi := range e.vs {
		ms[vi] = e.verdicts(vi)
	}
	// In a take-back evaluation one view's rejection is forgiven where its loose
	// mask keeps the voxel and the facing view sees the same colour there
	// (takeback.go); the colour check reads two cameras, so it is the one step
	// not remembered.
	var opp []int
	if e.takeBack {
		opp = make([]int, len(e.vs))
		for vi := range e.vs {
			opp[vi] = OppositeView(e.vs, vi)
		}
	}
	// The voxels every view keeps, painted after the pass (below).
	kept := e.left[:0]
	// Neighbouring voxels are mostly rejected by the same view, so of the views
	// that must project a voxel, the one that rejected the last is asked first.
	first := 0
	for k := range g.Nz {
		for j := range g.Ny {
			row := (k*g.Ny + j) * g.Nx
		voxel:
			for i := 0; i < g.Nx; i++ {
				n := row + i
				// Eight voxels in a row that remembered rejections settle are
				// skipped at once (a verdictOut byte has bit 1 set).
				if i+8 <= g.Nx {
					var any uint64
					for _, m := range ms {
						any |= binary.LittleEndian.Uint64(m.verdict[n:])
					}
					if any&allOut8 == allOut8 {
						i += 7
						continue
					}
				}
				// A remembered rejection settles the voxel without projecting, as do
				// two views that keep it only loosely.
				unknown := false
				loose := -1
				for vi, m := range ms {
					switch m.verdict[n] {
					case verdictOut:
						continue voxel
					case verdictUnknown:
						unknown = true
					case verdictLoose:
						if loose >= 0 {
							continue voxel
						}
						loose = vi
					}
				}
				c := [3]float64{e.cx[i], e.cy[j], e.cz[k]}
				if unknown {
					b := ((k/cullBlock)*e.bny+j/cullBlock)*e.bnx + i/cullBlock
					for q := range e.vs {
						vi := first + q
						if vi >= len(e.vs) {
							vi -= len(e.vs)
						}
						m := ms[vi]
						if m.verdict[n] != verdictUnknown {
							continue
						}
						if m.block[b] == blockUnknown {
							m.block[b] = e.cull(vi, m, i, j, k)
						}
						if m.block[b] == blockOut {
							first = vi
							continue voxel
						}
						switch e.judge(e.vs[vi], m, n, c, m.block[b] == blockIn) {
						case verdictOut:
							first = vi
							continue voxel
						case verdictLoose:
							if loose >= 0 {
								continue voxel
							}
							loose = vi
						}
					}
				}
				if loose >= 0 && !ConsistentAt(e.vs[loose], e.vs[opp[loose]], c) {
					continue voxel
				}
				for a := range 3 {
					e.Lo[a] = min(e.Lo[a], c[a]-g.S/2)
					e.Hi[a] = max(e.Hi[a], c[a]+g.S/2)
				}
				kept = append(kept, int32(n))
			}
		}
	}
	e.paint(ms, kept)
	e.kept, e.left = kept, e.kept
	return e.coherence()
}

// paint brings each view's cover counts to the hull kept (in grid order), the
// views' footprints read from ms. A view painted with the memo it has now
// takes away the footprints of the voxels that left the hull since the last
// evaluation (e.kept) and adds those of the voxels that joined it; a view whose
// camera changed, or every view when the hull changed more than it stayed, is
// painted again from nothing. Each view is painted in turn, so its footprints
// and counts stay in cache (painting every view voxel by voxel read 24
// scattered arrays per voxel: 62 of the 214 s a solid tray's spin set took,
// once).
func (e *coherenceEval) paint(ms []*camVerdicts, kept []int32) {
	old := e.kept
	var joined, left []int32
	// The two hulls in grid order, merged: what joined and what left.
	if len(old) > 0 {
		a, b := 0, 0
		for a < len(old) || b < len(kept) {
			switch {
			case b == len(kept) || (a < len(old) && old[a] < kept[b]):
				left = append(left, old[a])
				a++
			case a == len(old) || kept[b] < old[a]:
				joined = append(joined, kept[b])
				b++
			default:
				a++
				b++
			}
		}
	}
	repaint := len(old) == 0 || len(joined)+len(left) >= len(kept)
	for vi, m := range ms {
		lw := e.vs[vi].Lw
		cov := e.cover[vi]
		add := func(ns []int32, by int32) {
			for _, n := range ns {
				r := m.fp[n]
				for y := int(r.y0); y <= int(r.y1); y++ {
					row := cov[y*lw:]
					for x := int(r.x0); x <= int(r.x1); x++ {
						row[x] += by
					}
				}
			}
		}
		if repaint || e.painted[vi] != (paintedWith{m, m.gen}) {
			clear(cov)
			add(kept, 1)
			e.painted[vi] = paintedWith{m, m.gen}
			continue
		}
		add(left, -1)
		add(joined, 1)
	}
}

// coherence is the mean share of each view's silhouette cells that the hull's
// projection (the cells e.cover counts above 0) covers.
func (e *coherenceEval) coherence() float64 {
	total := 0.0
	for vi, v := range e.vs {
		var inter, sil float64
		for k, c := range v.Lcov {
			if c < 0.5 {
				continue
			}
			sil++
			if e.cover[vi][k] > 0 {
				inter++
			}
		}
		if sil > 0 {
			total += inter / sil
		}
	}
	return total / float64(len(e.vs))
}

// PoseResult is the outcome of the pose search: the coherence (0–1) and the box of
// the carved hull in world units.
type PoseResult struct {
	coherence float64
	Lo, Hi    [3]float64
	Voxel     float64
}

// EstimatePoses refines every view's pose. With PoseTakeBack it searches twice,
// once on the strict masks and once with the take-back (one view's rejection
// forgiven where its loose mask keeps the voxel and the facing view sees the
// same colour), compares the poses' take-back coherence on a common grid after
// ChooseAfter rounds, and finishes the better search only. The take-back
// search alone can end in a worse valley of its own objective than the strict
// poses give it: on the synthetic tote, whose hard contact shadow both side
// views' loose masks hold, it fitted the shadow (F@5 0.88 against 1.00).
func EstimatePoses(ctx context.Context, vs []*View) (PoseResult, error) {
	if !PoseTakeBack || !TakeBackPossible(vs) {
		pose, _, err := SearchPoses(ctx, vs, false, SearchRounds)
		return pose, err
	}
	start := SnapshotPoses(vs)
	strict, finishStrict, err := SearchPoses(ctx, vs, false, ChooseAfter)
	if err != nil {
		return PoseResult{}, err
	}
	strictPoses := SnapshotPoses(vs)
	restorePoses(vs, start)
	loose, finishLoose, err := SearchPoses(ctx, vs, true, ChooseAfter)
	if err != nil {
		return PoseResult{}, err
	}
	var lo, hi [3]float64
	for a := range 3 {
		lo[a], hi[a] = min(strict.Lo[a], loose.Lo[a]), max(strict.Hi[a], loose.Hi[a])
	}
	g := GridFor(lo, hi, 64)
	looseScore := NewCoherenceEvalTakeBack(vs, g, true).Score()
	loosePoses := SnapshotPoses(vs)
	restorePoses(vs, strictPoses)
	strictScore := NewCoherenceEvalTakeBack(vs, g, true).Score()
	if PoseChoiceDiag != nil {
		PoseChoiceDiag(strictScore, looseScore)
	}
	if looseScore > strictScore {
		restorePoses(vs, loosePoses)
		return finishLoose()
	}
	return finishStrict()
}

// ChooseAfter is the round after which the two searches are compared and only
// the better one finishes: after round 2 (the first on the fine grid) the
// four-photo benchmark costs 2.55–2.58 CPU-s per model instead of 3.42 when both
// finish, for a mean F@5 of 0.622 instead of 0.626 (the history of docs/reconstruction.md (git log -p)).
var ChooseAfter = 2

// SnapshotPoses is every view's pose parameters (azimuth, elevation, distance,
// aim and lens); restorePoses sets them back.
func SnapshotPoses(vs []*View) [][6]float64 {
	out := make([][6]float64, len(vs))
	for i, v := range vs {
		out[i] = [6]float64{v.Az, v.El, v.Ls, v.Du, v.Dv, v.Lf}
	}
	return out
}

func restorePoses(vs []*View, p [][6]float64) {
	for i, v := range vs {
		v.Az, v.El, v.Ls, v.Du, v.Dv, v.Lf = p[i][0], p[i][1], p[i][2], p[i][3], p[i][4], p[i][5]
		v.Update()
	}
}

// PoseChoiceDiag, when set (tests), receives the take-back coherence of the
// strict search's poses and of the take-back search's.
var PoseChoiceDiag func(strict, loose float64)

// SearchRounds is the number of rounds of the pose search's coordinate descent.
const SearchRounds = 5

// SearchPoses is one pose search, carving with the take-back or not, run up to
// round pause; resume runs the remaining rounds (the views' poses must be as
// SearchPoses left them).
func SearchPoses(ctx context.Context, vs []*View, takeBack bool, pause int) (PoseResult, func() (PoseResult, error), error) {
	for _, v := range vs {
		v.Update()
	}
	// Bounds: generous at first (the widest silhouette, in units of the height),
	// then the carved hull's box.
	wide := 0.0
	for _, v := range vs {
		wide = max(wide, (v.bbox[2]-v.bbox[0])/math.Max(1, v.bbox[3]-v.bbox[1]))
	}
	r := 0.6*max(1, wide) + 0.15
	lo, hi := [3]float64{-r, -0.75, -r}, [3]float64{r, 0.75, r}
	e := NewCoherenceEvalTakeBack(vs, GridFor(lo, hi, 48), takeBack)
	best := e.Score()
	if !(e.Hi[0] > e.Lo[0]) {
		return PoseResult{}, nil, segment.ErrSubjectNotSeparated
	}
	refit := func(n int) {
		m := 2 * e.g.S
		e = NewCoherenceEvalTakeBack(vs, GridFor(
			[3]float64{e.Lo[0] - m, e.Lo[1] - m, e.Lo[2] - m},
			[3]float64{e.Hi[0] + m, e.Hi[1] + m, e.Hi[2] + m}, n), takeBack)
		best = e.Score()
	}
	refit(48)

	// Elevation: one shared value first (hand-held photos are taken from about the
	// same height; a common tilt moves every cone together, which the search cannot
	// do one view at a time), then small per-view deviations, each penalised
	// (elevTie per radian²) so a noisy silhouette cannot tilt one view alone.
	deg := math.Pi / 180
	shared := vs[0].El
	dev := make([]float64, len(vs))
	// The focal length (log factor over the assumed phone lens) is one unknown for
	// all photos: the same phone took them.
	lens := 0.0
	setEl := func() {
		for i, v := range vs {
			v.El = shared + dev[i]
			v.Lf = lens
			v.Update()
		}
	}
	const elevTie = 2.0
	// Silhouettes alone hardly constrain a common elevation (a box's hull looks
	// consistent from 2° as from 20°), so a weak prior holds it near the usual
	// product shot's 12° unless the photos clearly disagree.
	const elevPrior = 0.5
	elevUsual := 12 * math.Pi / 180
	if UseGroundPrior {
		elevUsual = GroundPrior(vs, elevUsual)
	}
	objective := func() float64 {
		s := e.Score()
		for _, d := range dev {
			s -= elevTie * d * d
		}
		return s - elevPrior*(shared-elevUsual)*(shared-elevUsual)
	}
	type param struct {
		v    *View // nil: an elevation parameter
		ptr  *float64
		step float64
		lo   float64
		hi   float64
	}
	ps := []param{{nil, &shared, 4 * deg, -5 * deg, 45 * deg}, {nil, &lens, 0.1, -0.2, LensHi}}
	o := Oracle
	if o != nil && o.KnowsEl && !o.Start {
		ps[0].lo, ps[0].hi = o.El, o.El
	}
	if o != nil && o.KnowsLens && !o.Start {
		ps[1].lo, ps[1].hi = o.Lens, o.Lens
	}
	for i, v := range vs {
		if i == 0 {
			continue
		}
		h := v.bbox[3] - v.bbox[1]
		alo, ahi := v.az0-25*deg, v.az0+25*deg
		if o != nil && o.Az != nil {
			v.Az = o.Az[i]
			if !o.Start {
				alo, ahi = o.Az[i], o.Az[i]
			}
		}
		ps = append(ps,
			param{v, &v.Az, 5 * deg, alo, ahi},
			param{v, &v.Ls, 0.05, -0.5, 0.5},
			param{v, &v.Du, 0.04 * h, v.Du - h, v.Du + h},
			param{v, &v.Dv, 0.04 * h, v.Dv - h, v.Dv + h},
		)
	}
	devParams := make([]param, 0, len(vs))
	for i := 1; i < len(vs); i++ {
		devParams = append(devParams, param{nil, &dev[i], 2 * deg, -8 * deg, 8 * deg})
	}
	// The views' elevations and lens as the caller set them (oracle keepStart).
	keptEl, keptLens := make([]float64, len(vs)), vs[0].Lf
	for i, v := range vs {
		keptEl[i] = v.El
	}
	// Coarse scan of the common elevation first: coordinate descent from one start
	// can walk into the wrong valley.
	bestEl, bestLens, bestS := shared, lens, math.Inf(-1)
	for _, mm := range []float64{26, 35, 50} {
		if math.Log(mm/shape.PhoneFocal35) > LensHi {
			continue
		}
		for el := 0.0; el <= 36; el += 4 {
			shared, lens = el*deg, math.Log(mm/shape.PhoneFocal35)
			if o != nil && o.KnowsEl {
				shared = o.El
			}
			if o != nil && o.KnowsLens {
				lens = o.Lens
			}
			setEl()
			if s := objective(); s > bestS {
				bestEl, bestLens, bestS = shared, lens, s
			}
		}
	}
	shared, lens = bestEl, bestLens
	if o != nil && o.KeepStart {
		shared, lens = keptEl[0], keptLens
		for i := 1; i < len(vs); i++ {
			dev[i] = keptEl[i] - shared
		}
	}
	if o != nil && o.Start && o.KnowsEl {
		shared = o.El
	}
	if o != nil && o.Start && o.KnowsLens {
		lens = o.Lens
	}
	if o != nil && o.NoSearch {
		// The starting pose as it is: the stated azimuths, the usual elevation,
		// the phone lens (or the pose before set, with keepStart).
		if !o.KeepStart {
			shared, lens = elevUsual, 0
		}
		pause = SearchRounds
	}
	setEl()
	best = objective()
	step0 := make([]float64, len(ps))
	for i := range ps {
		step0[i] = ps[i].step
	}
	devStep := devParams[0].step
	// descend is coordinate descent over ps in rounds [from, to), each round's
	// steps half the last's; the per-view elevation deviations join at round 2.
	descend := func(from, to int) error {
		for round := from; round < to; round++ {
			if round == 2 && len(ps) == len(step0) {
				ps = append(ps, devParams...)
			}
			for i := range ps {
				if i < len(step0) {
					ps[i].step = step0[i] / float64(int(1)<<round)
				} else {
					ps[i].step = devStep / float64(int(1)<<(round-2))
				}
			}
			improved := true
			for pass := 0; improved && pass < 3; pass++ {
				improved = false
				for _, p := range ps {
					if err := ctx.Err(); err != nil {
						return err
					}
					for _, dir := range []float64{1, -1} {
						old := *p.ptr
						nv := min(p.hi, max(p.lo, old+dir*p.step))
						if nv == old {
							continue
						}
						*p.ptr = nv
						if p.v == nil {
							setEl()
						} else {
							p.v.Update()
						}
						if s := objective(); s > best+1e-5 {
							best, improved = s, true
							break
						}
						*p.ptr = old
						if p.v == nil {
							setEl()
						} else {
							p.v.Update()
						}
					}
				}
			}
			if round == 1 {
				refit(64)
				best = objective()
			}
		}
		return nil
	}
	if o != nil && o.NoSearch {
		// no rounds
	} else if err := descend(0, pause); err != nil {
		return PoseResult{}, nil, err
	}
	result := func() PoseResult {
		return PoseResult{coherence: e.Score(), Lo: e.Lo, Hi: e.Hi, Voxel: e.g.S}
	}
	paused := result()
	// The views' pose parameters are the caller's to restore before resuming; the
	// evaluation's remembered verdicts are keyed by camera, so they stay valid.
	resume := func() (PoseResult, error) {
		if o != nil && o.NoSearch {
			return result(), nil
		}
		if err := descend(pause, SearchRounds); err != nil {
			return PoseResult{}, err
		}
		return result(), nil
	}
	return paused, resume, nil
}

// PoseOracle hands the pose search parts of the true cameras (tests only): it
// measures what each unknown costs (the history of docs/reconstruction.md (git log -p), "Where the
// four-photo gap is").
type PoseOracle struct {
	KnowsEl, KnowsLens bool
	// Start: the known angles (el, lens, az) are where the search starts, not
	// fixed; noSearch: the pose stays the starting one.
	Start, NoSearch bool
	// KeepStart: the search starts from the views' poses as before set them.
	KeepStart bool
	El, Lens  float64   // the shared elevation (radians), the lens (log factor over shape.PhoneFocal35)
	Az        []float64 // per view, radians (nil: searched)
	// Before changes the views before the search: their masks (mask), their
	// starting poses (truestart); nil: nothing.
	Before func(vs []*View)
	// After replaces the searched cameras and carving box (nil: kept).
	After func(vs []*View, pose *PoseResult)
}

// Oracle is nil outside the diagnostics.
var Oracle *PoseOracle

// LensHi bounds the shared focal length from above (log factor over the assumed
// phone lens): 0.9 allows up to about 64 mm-equivalent, a phone's telephoto or a
// cropped photo. Measured narrower (PhoneLensHi, 36 mm, which also drops the 50 mm
// start of the coarse scan) on the real set and left off: the shoe and the chair
// lose (the history of docs/reconstruction.md (git log -p)); the test switch PHOTO3D_PHONELENS=1 restores it.
var LensHi = 0.9

// PhoneLensHi is the log factor of a 36 mm-equivalent lens over shape.PhoneFocal35.
var PhoneLensHi = math.Log(36 / shape.PhoneFocal35)
