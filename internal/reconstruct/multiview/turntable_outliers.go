package multiview

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
)

// Photos that disagree with the rest. Silhouette coherence (the share of each
// silhouette the hull of ALL views covers) hardly moves when one photo of 24 has
// a bad mask: the cost is spread over every view. Yet that one photo carves
// away what the others show (the benchmark's boombox: one photo's mask lost a
// corner, and F@5 fell from 0.64 to 0.54). So each photo is scored against the
// hull of the OTHER photos: that hull, projected into the photo, must fill its
// silhouette and stay inside it (intersection over union on the coverage grid).
// A photo far below the rest is left out of the carve, and the report says so.
//
// Tried and left out: searching each photo's azimuth slip for the best score.
// On the boombox it moved slips to 8° where the truth is within 2°, fitting mask
// and lens errors, for no gain in F@5.

// looEval carves a grid once and remembers, per voxel, how many views reject it
// (0, 1, or 2 for two or more) and which view when exactly one does: the hull of
// every view but i is then the voxels no view rejects plus those only i rejects.
type looEval struct {
	vs   []*View
	g    geom.VoxGrid
	rej  []uint8
	who  []int16
	surf []int32 // voxels no view rejects with a neighbour some view rejects
	only [][]int32
	// scratch for one view's projection: coverage cells hit
	hit []bool
}

func newLooEval(vs []*View, g geom.VoxGrid) *looEval {
	n := g.Nx * g.Ny * g.Nz
	return &looEval{vs: vs, g: g, rej: make([]uint8, n), who: make([]int16, n), only: make([][]int32, len(vs))}
}

// inside reports whether view v keeps the point p (its coverage above one half).
func inside(v *View, p [3]float64) bool {
	u, w, z := v.Cam.Project(p)
	return z > 0 && v.CoverAt(u, w) > 0.5
}

// carve counts, for every voxel, the views that reject it (stopping at two).
func (l *looEval) carve(ctx context.Context) error {
	g := l.g
	first := 0
	for i := range l.only {
		l.only[i] = l.only[i][:0]
	}
	for k := range g.Nz {
		if err := ctx.Err(); err != nil {
			return err
		}
		for j := range g.Ny {
			for i := range g.Nx {
				n := (k*g.Ny+j)*g.Nx + i
				c := g.Centre(i, j, k)
				var r uint8
				who := int16(-1)
				for q := range l.vs {
					vi := first + q
					if vi >= len(l.vs) {
						vi -= len(l.vs)
					}
					if !inside(l.vs[vi], c) {
						r++
						if r == 1 {
							who = int16(vi)
						} else {
							first = vi
							break
						}
					}
				}
				l.rej[n], l.who[n] = r, who
				if r == 1 {
					l.only[who] = append(l.only[who], int32(n))
				}
			}
		}
	}
	l.surf = l.surf[:0]
	for k := range g.Nz {
		for j := range g.Ny {
			for i := range g.Nx {
				n := (k*g.Ny+j)*g.Nx + i
				if l.rej[n] != 0 {
					continue
				}
				if i == 0 || j == 0 || k == 0 || i == g.Nx-1 || j == g.Ny-1 || k == g.Nz-1 ||
					l.rej[n-1] != 0 || l.rej[n+1] != 0 || l.rej[n-g.Nx] != 0 || l.rej[n+g.Nx] != 0 ||
					l.rej[n-g.Nx*g.Ny] != 0 || l.rej[n+g.Nx*g.Ny] != 0 {
					l.surf = append(l.surf, int32(n))
				}
			}
		}
	}
	return nil
}

// iou scores view vi's current camera against the hull of the other views: the
// coverage cells their hull's voxels project to against the cells its silhouette
// covers more than half.
func (l *looEval) iou(vi int) float64 {
	v := l.vs[vi]
	if cap(l.hit) < v.Lw*v.Lh {
		l.hit = make([]bool, v.Lw*v.Lh)
	}
	hit := l.hit[:v.Lw*v.Lh]
	clear(hit)
	g := l.g
	splat := func(n int32) {
		i := int(n) % g.Nx
		j := int(n) / g.Nx % g.Ny
		k := int(n) / (g.Nx * g.Ny)
		u, w, z := v.Cam.Project(g.Centre(i, j, k))
		if z <= 0 {
			return
		}
		// Half the voxel's projected diagonal, in coverage cells.
		r := 0.87 * g.S * v.Cam.F / z / v.Lcell
		x0, x1 := int(math.Floor(u/v.Lcell-r)), int(math.Floor(u/v.Lcell+r))
		y0, y1 := int(math.Floor(w/v.Lcell-r)), int(math.Floor(w/v.Lcell+r))
		for y := max(0, y0); y <= min(v.Lh-1, y1); y++ {
			row := hit[y*v.Lw:]
			for x := max(0, x0); x <= min(v.Lw-1, x1); x++ {
				row[x] = true
			}
		}
	}
	for _, n := range l.surf {
		splat(n)
	}
	for _, n := range l.only[vi] {
		splat(n)
	}
	var inter, union int
	for k, h := range hit {
		m := v.Lcov[k] > 0.5
		if h && m {
			inter++
		}
		if h || m {
			union++
		}
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// leaveOneOut is, per photo, how well the hull of the other photos matches its
// silhouette, on one carve of g.
func leaveOneOut(ctx context.Context, vs []*View, g geom.VoxGrid) ([]float64, error) {
	l := newLooEval(vs, g)
	if err := l.carve(ctx); err != nil {
		return nil, err
	}
	out := make([]float64, len(vs))
	for vi := range vs {
		out[vi] = l.iou(vi)
	}
	return out, nil
}

// distrustOutliers leaves out of the carve the photos whose silhouette disagrees
// with the hull of the others far more than the rest do (a mask that took in the
// turntable or lost a reflective part carves every other photo's view of it
// away), at most a quarter of them, and returns their indices.
func distrustOutliers(vs []*View, loo []float64) []int {
	med := median(slices.Clone(loo))
	var out []int
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(loo[a], loo[b]) })
	for _, i := range order {
		if len(out) >= len(vs)/4 || loo[i] >= min(SpinDistrustBelow, med-SpinDistrustGap) {
			break
		}
		vs[i].Distrust = true
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// SpinDebugLOO, when set, is handed each photo's leave-one-out agreement (the
// benchmark prints it).
var SpinDebugLOO func(loo []float64)

// A photo is left out of the carve when its leave-one-out agreement is under
// SpinDistrustBelow and SpinDistrustGap under the median photo's.
var (
	SpinDistrustBelow = 0.80
	SpinDistrustGap   = 0.15
)
