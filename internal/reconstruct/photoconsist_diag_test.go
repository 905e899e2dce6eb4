package reconstruct

import (
	"context"
	"math"
)

// Photo-consistency of a pose set (diagnostic, test only): how much the views
// that see a point of the carved hull's surface disagree about its colour. A
// wrong pose puts the views' pixels of different parts of the product on one
// point; the true cameras put the same part there. Printed at our poses and at
// the true cameras with PHOTO3D_ORACLE=cam,consist (docs/reconstruction.md,
// "Where the four-photo gap is").

// colourDisagreement is the mean, over the vertices of the hull carved on a
// 64-voxel grid over pose's box that at least two views see (the texturing's
// depth buffer) well inside their masks, of the views' largest pairwise CIELAB
// difference there, lightness counted half (the sides of a product are lit
// differently).
func colourDisagreement(vs []*mvView, pose poseResult) float64 {
	m := 2 * pose.voxel
	g := gridFor([3]float64{pose.lo[0] - m, pose.lo[1] - m, pose.lo[2] - m},
		[3]float64{pose.hi[0] + m, pose.hi[1] + m, pose.hi[2] + m}, 64)
	f, _, err := hullField(context.Background(), vs, g)
	if err != nil {
		return math.NaN()
	}
	hull := surfaceNets(f, g)
	if hull.triangles() == 0 {
		return math.NaN()
	}
	proj := make([][][3]float64, len(vs))
	zbs := make([]*mvZBuffer, len(vs))
	for vi, v := range vs {
		proj[vi] = make([][3]float64, len(hull.pos))
		for i, p := range hull.pos {
			u, w, z := v.cam.project([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			proj[vi][i] = [3]float64{u, w, z}
		}
		zbs[vi] = zbufferFor(v, hull, proj[vi])
	}
	table := srgbLinearTable()
	cols := make([]lab, len(vs))
	sum, n := 0.0, 0
	for i := range hull.pos {
		k := 0
		for vi, v := range vs {
			u, w, z := proj[vi][i][0], proj[vi][i][1], proj[vi][i][2]
			if z <= 0 || v.alphaAt(u, w) < 0.9 || !zbs[vi].visible(u, w, z, 1.5*g.s) {
				continue
			}
			cols[k] = photoLab(v.p, table, u, w)
			k++
		}
		if k < 2 {
			continue
		}
		worst := 0.0
		for a := range k {
			for b := a + 1; b < k; b++ {
				dl := 0.5 * float64(cols[a].L-cols[b].L)
				da, db := float64(cols[a].A-cols[b].A), float64(cols[a].B-cols[b].B)
				worst = max(worst, math.Sqrt(dl*dl+da*da+db*db))
			}
		}
		sum += worst
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// photoLab is the CIELAB colour of the view's working photo around (u, w): the
// mean of the 3×3 pixels there.
func photoLab(p *photo, table *[256]float32, u, w float64) lab {
	x0, y0 := int(u)-1, int(w)-1
	var r, g, b, n int
	for y := y0; y < y0+3; y++ {
		for x := x0; x < x0+3; x++ {
			if x < 0 || y < 0 || x >= p.w || y >= p.h {
				continue
			}
			o := p.img.PixOffset(x, y)
			r += int(p.img.Pix[o])
			g += int(p.img.Pix[o+1])
			b += int(p.img.Pix[o+2])
			n++
		}
	}
	if n == 0 {
		return lab{}
	}
	return toLab(table, uint8(r/n), uint8(g/n), uint8(b/n))
}
