package reconstruct

import (
	"context"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Photo-consistency of a pose set (diagnostic, test only): how much the views
// that see a point of the carved hull's surface disagree about its colour. A
// wrong pose puts the views' pixels of different parts of the product on one
// point; the true cameras put the same part there. Printed at our poses and at
// the true cameras with PHOTO3D_ORACLE=cam,consist (the history of docs/reconstruction.md (git log -p),
// "Where the four-photo gap is").

// colourDisagreement is the mean, over the vertices of the hull carved on a
// 64-voxel grid over pose's box that at least two views see (the texturing's
// depth buffer) well inside their masks, of the views' largest pairwise CIELAB
// difference there, lightness counted half (the sides of a product are lit
// differently).
func colourDisagreement(vs []*multiview.View, pose multiview.PoseResult) float64 {
	m := 2 * pose.Voxel
	g := multiview.GridFor([3]float64{pose.Lo[0] - m, pose.Lo[1] - m, pose.Lo[2] - m},
		[3]float64{pose.Hi[0] + m, pose.Hi[1] + m, pose.Hi[2] + m}, 64)
	f, _, err := multiview.HullField(context.Background(), vs, g)
	if err != nil {
		return math.NaN()
	}
	hull := geom.SurfaceNets(f, g)
	if hull.Triangles() == 0 {
		return math.NaN()
	}
	proj := make([][][3]float64, len(vs))
	zbs := make([]*multiview.ZBuffer, len(vs))
	for vi, v := range vs {
		proj[vi] = make([][3]float64, len(hull.Pos))
		for i, p := range hull.Pos {
			u, w, z := v.Cam.Project([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			proj[vi][i] = [3]float64{u, w, z}
		}
		zbs[vi] = multiview.ZBufferFor(v, hull, proj[vi])
	}
	table := segment.SrgbLinearTable()
	cols := make([]segment.Lab, len(vs))
	sum, n := 0.0, 0
	for i := range hull.Pos {
		k := 0
		for vi, v := range vs {
			u, w, z := proj[vi][i][0], proj[vi][i][1], proj[vi][i][2]
			if z <= 0 || v.AlphaAt(u, w) < 0.9 || !zbs[vi].Visible(u, w, z, 1.5*g.S) {
				continue
			}
			cols[k] = photoLab(v.P, table, u, w)
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
func photoLab(p *segment.Photo, table *[256]float32, u, w float64) segment.Lab {
	x0, y0 := int(u)-1, int(w)-1
	var r, g, b, n int
	for y := y0; y < y0+3; y++ {
		for x := x0; x < x0+3; x++ {
			if x < 0 || y < 0 || x >= p.W || y >= p.H {
				continue
			}
			o := p.Img.PixOffset(x, y)
			r += int(p.Img.Pix[o])
			g += int(p.Img.Pix[o+1])
			b += int(p.Img.Pix[o+2])
			n++
		}
	}
	if n == 0 {
		return segment.Lab{}
	}
	return segment.ToLab(table, uint8(r/n), uint8(g/n), uint8(b/n))
}
