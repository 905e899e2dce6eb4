package multiview

import "github.com/photo3d/photo3d/internal/reconstruct/geom"

// Whether to trust the take-back (takeback.go) with the estimated poses. The
// take-back places the part one view lost where the other views' cones and that
// view's loose cone meet, so it is only as right as the cameras. Where the poses
// are off, the hull shows it: the cones do not agree, and the hull (with the
// take-back) re-projected into the photos leaves part of their masks uncovered.
// On the real-product set IridescenceLamp's poses, bent to explain the base one
// view lost, leave 10.7 % of the masks uncovered, every other model 4.9 % or less;
// there the taken-back base lands in the wrong place (F@5 0.660 → 0.540), so the
// strict hull is kept. A hull that takes a lost part back correctly covers the
// masks of the views that showed it, so a lost part alone does not refuse it.

// mvTakeBackMiss is the largest share of the carving views' mask cells the hull
// with the take-back may leave uncovered for the take-back to be used.
const mvTakeBackMiss = 0.08

// TakeBackDiag, when set (tests), receives each carve's uncovered share and
// whether the take-back was used.
var TakeBackDiag func(miss float64, used bool)

// maskMissShare is the share of the non-distrusted views' mask cells (coverage
// grid coarsened 2×2 so that the projected grid points leave no holes; a cell is
// mask when half its area is) that no point of the hull f projects into.
func maskMissShare(vs []*View, f []float32, g geom.VoxGrid) float64 {
	var use []*View
	for _, v := range vs {
		if !v.Distrust {
			use = append(use, v)
		}
	}
	hit := make([][]bool, len(use))
	for vi, v := range use {
		hit[vi] = make([]bool, (v.Lw/2+1)*(v.Lh/2+1))
	}
	nx, ny, nz := g.Nx+1, g.Ny+1, g.Nz+1
	for k := range nz {
		for j := range ny {
			row := f[(k*ny+j)*nx:]
			for i := range nx {
				if row[i] < geom.HullIso {
					continue
				}
				p := [3]float64{g.Lo[0] + float64(i)*g.S, g.Lo[1] + float64(j)*g.S, g.Lo[2] + float64(k)*g.S}
				for vi, v := range use {
					u, w, z := v.Cam.Project(p)
					if z <= 0 || u < 0 || w < 0 {
						continue
					}
					x, y := int(u/v.Lcell)/2, int(w/v.Lcell)/2
					if cw := v.Lw/2 + 1; x < cw && y < v.Lh/2+1 {
						hit[vi][y*cw+x] = true
					}
				}
			}
		}
	}
	mask, miss := 0, 0
	for vi, v := range use {
		cw := v.Lw/2 + 1
		for c, h := range hit[vi] {
			if coarseCover(v, c%cw, c/cw) >= 0.5 {
				mask++
				if !h {
					miss++
				}
			}
		}
	}
	if mask == 0 {
		return 0
	}
	return float64(miss) / float64(mask)
}

// coarseCover is the mean mask coverage of the 2×2 coverage cells of coarse cell
// (x, y).
func coarseCover(v *View, x, y int) float32 {
	s, n := float32(0), 0
	for dy := range 2 {
		for dx := range 2 {
			if cx, cy := 2*x+dx, 2*y+dy; cx < v.Lw && cy < v.Lh {
				s += v.Lcov[cy*v.Lw+cx]
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return s / float32(n)
}
