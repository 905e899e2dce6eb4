package multiview

import (
	"context"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
)

// A spin set's fidelity score (issue 48): how much the model depends on which
// of its photos were used. Nothing a build reads from one set of silhouettes
// tells a wrong model from a right one: on the real-product benchmark,
// coherence, every photo against the hull of the others, colour disagreement,
// mask edges and proportions under nudged poses all overlap between models at
// F@5 under 0.5 and over 0.9. What does separate them is stability. A second
// capture of the same product (its videos) landed the pose search in another
// basin exactly where the model was wrong. So the set is split into two
// interleaved halves, every other photo of each ring. Each half is searched and
// carved on its own, and the model is scored by how well both halves' shapes
// agree with it. A half that finds another shape means the photos do not pin
// the shape down. A model that both halves rebuild is stable, though not
// necessarily right: when every photo's mask errs the same way, both halves
// err with it.

// SpinAgreementTol is the distance, as a share of the model's height, within
// which two shapes' surfaces count as agreeing: the benchmark's F@5 tolerance.
const SpinAgreementTol = 0.05

// spinHalfMaxPhotos caps the photos in a ring's half: a ring of more than twice
// as many photos is split into two sparser halves (every fourth photo and so
// on), so that the two extra searches stay within a few tens of seconds.
const spinHalfMaxPhotos = 12

// spinHalfMinPhotos is the fewest photos a ring's half may have: with fewer, the
// halves disagree where the whole set does well (a chair of two rings of eight,
// halves of four: score 67 at F@5 0.956), so such a set gets no score.
const spinHalfMinPhotos = 6

// SpinHalves is a spin set split into two interleaved halves, each a spin set
// of its own with its own copies of the views (a search moves its views).
type SpinHalves struct {
	sets [2][]SpinRing
	// turn is, per half, the azimuth of its first photo in the whole set's
	// frame (radians) when the photos go forward round the product (SpinTurn):
	// each half's search puts its own first photo at 0.
	turn [2]float64
	// The halves' hulls, carved by the work Start begins (beside the whole set's search
	// once Start has run; see beside.go).
	carved spinHalvesCarved
}

// SplitSpin splits rings into two interleaved halves, or reports false when a
// ring cannot be split into two evenly spaced halves of at least
// spinHalfMinPhotos photos. Call it before the whole set's search moves the views.
func SplitSpin(rings []SpinRing) (*SpinHalves, bool) {
	h := &SpinHalves{}
	for r, ring := range rings {
		n := len(ring.Views)
		stride := spinHalfStride(n)
		if stride == 0 {
			return nil, false
		}
		for half := range 2 {
			start := half * stride / 2
			var vs []*View
			for k := start; k < n; k += stride {
				c := *ring.Views[k]
				c.Distrust = false
				vs = append(vs, &c)
			}
			h.sets[half] = append(h.sets[half], SpinRing{Views: vs, ElevDeg: ring.ElevDeg, AnyPhase: ring.AnyPhase})
			if r == 0 {
				h.turn[half] = 2 * math.Pi * float64(start) / float64(n)
			}
		}
	}
	return h, true
}

// setTurn tells both halves which way the whole set's search found the
// photos go round the product, so that each half is searched and turned onto
// the whole set's frame that way rather than finding it out again from half
// the photos.
func (h *SpinHalves) setTurn(t SpinTurn) {
	for _, rings := range h.sets {
		for r := range rings {
			rings[r].Turn = t
		}
	}
}

// spinHalfStride is the step between a half's photos in a ring of n (each
// half's photos evenly spaced, the two halves interleaved): the smallest that
// keeps a half within spinHalfMaxPhotos, else every other photo; 0 when a half
// would have fewer than spinHalfMinPhotos or the photos do not split evenly.
func spinHalfStride(n int) int {
	for stride := 2; n/stride >= spinHalfMinPhotos; stride += 2 {
		if n%stride == 0 && n/stride <= spinHalfMaxPhotos {
			return stride
		}
	}
	if n%2 == 0 && n/2 >= spinHalfMinPhotos {
		return 2
	}
	return 0
}

// Agreement returns the lower of the two halves' agreement with full, the
// whole set's mesh (any frame that differs from the search's only by a move
// and a uniform scale): the F-score of their surfaces at SpinAgreementTol of
// the height, each shape stood on its base and scaled to height 1, the half
// turned onto the whole set's frame (within ±2°, the turntable's slip of the
// half's first photo). It waits for the halves Start began searching and
// carving.
func (h *SpinHalves) Agreement(ctx context.Context, full *geom.Mesh) (float64, error) {
	meshes, errs, err := h.wait(ctx)
	if err != nil {
		return 0, err
	}
	ref := normalisedPoints(meshPoints(full, 0))
	worst := 1.0
	for half, rings := range h.sets {
		m := meshes[half]
		if errs[half] != nil {
			return 0, nil // a half that finds no shape at all agrees with nothing
		}
		best := 0.0
		first := h.turn[half]
		if rings[0].Turn == TurnBackward {
			first = -first // the half's first photo, seen the other way round
		}
		for d := -2.0; d <= 2; d++ {
			turn := first + d*math.Pi/180
			best = max(best, SurfaceAgreement(normalisedPoints(meshPoints(m, turn)), ref, SpinAgreementTol))
		}
		worst = min(worst, best)
	}
	return worst, nil
}

// carve searches one half's poses and carves its hull.
func (h *SpinHalves) carve(ctx context.Context, rings []SpinRing) (*geom.Mesh, error) {
	pose, _, err := SearchTurntable(ctx, rings, nil)
	if err != nil {
		return nil, err
	}
	var vs []*View
	for _, r := range rings {
		vs = append(vs, r.Views...)
	}
	return CarveMesh(ctx, vs, pose, spinHalfTriangles, GroundByFootprint) // as the build stands
}

// spinHalfTriangles is the triangle budget of a half's hull: its surface is
// only compared, never shown, and at 40 000 triangles its vertices lie a
// fraction of SpinAgreementTol apart.
const spinHalfTriangles = 40000

// meshPoints are the mesh's vertices and triangle centres, turned by turn
// radians about +Y (the turntable's axis through the origin).
func meshPoints(m *geom.Mesh, turn float64) [][3]float64 {
	c, s := math.Cos(turn), math.Sin(turn)
	at := func(i uint32) [3]float64 {
		p := m.Pos[i]
		x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
		return [3]float64{c*x + s*z, y, -s*x + c*z}
	}
	pts := make([][3]float64, 0, len(m.Pos)+len(m.Idx)/3)
	for i := range m.Pos {
		pts = append(pts, at(uint32(i)))
	}
	for k := 0; k+2 < len(m.Idx); k += 3 {
		a, b, d := at(m.Idx[k]), at(m.Idx[k+1]), at(m.Idx[k+2])
		pts = append(pts, [3]float64{(a[0] + b[0] + d[0]) / 3, (a[1] + b[1] + d[1]) / 3, (a[2] + b[2] + d[2]) / 3})
	}
	return pts
}

// normalisedPoints stands pts on their base (lowest point at y = 0, box centred
// on the axis) and scales them to height 1, as placeMultiView places a model.
func normalisedPoints(pts [][3]float64) [][3]float64 {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
		}
	}
	s := 1 / math.Max(1e-9, hi[1]-lo[1])
	off := [3]float64{(lo[0] + hi[0]) / 2, lo[1], (lo[2] + hi[2]) / 2}
	out := make([][3]float64, len(pts))
	for i, p := range pts {
		out[i] = [3]float64{(p[0] - off[0]) * s, (p[1] - off[1]) * s, (p[2] - off[2]) * s}
	}
	return out
}

// SurfaceAgreement is the F-score of two surfaces sampled as points: precision
// is the share of a's points within tol of one of b's, recall the share of b's
// within tol of one of a's. Points are filed in cells of side tol, so each
// point searches only the 27 cells around its own.
func SurfaceAgreement(a, b [][3]float64, tol float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prec, rec := nearShare(a, b, tol), nearShare(b, a, tol)
	if prec+rec == 0 {
		return 0
	}
	return 2 * prec * rec / (prec + rec)
}

// nearShare is the share of pts within tol of some point of to.
func nearShare(pts, to [][3]float64, tol float64) float64 {
	type cell [3]int
	at := func(p [3]float64) cell {
		return cell{int(math.Floor(p[0] / tol)), int(math.Floor(p[1] / tol)), int(math.Floor(p[2] / tol))}
	}
	cells := make(map[cell][]int32, len(to))
	for i, p := range to {
		k := at(p)
		cells[k] = append(cells[k], int32(i))
	}
	near := 0
	for _, p := range pts {
		k := at(p)
	search:
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for dz := -1; dz <= 1; dz++ {
					for _, j := range cells[cell{k[0] + dx, k[1] + dy, k[2] + dz}] {
						q := to[j]
						if (p[0]-q[0])*(p[0]-q[0])+(p[1]-q[1])*(p[1]-q[1])+(p[2]-q[2])*(p[2]-q[2]) <= tol*tol {
							near++
							break search
						}
					}
				}
			}
		}
	}
	return float64(near) / float64(len(pts))
}
