package multiview

import (
	"context"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// Texturing a multi-view model. Every view's photo crop (the same filled crop a
// single photo's atlas is, texture.BuildAtlas) is placed in one atlas grid. Each triangle
// takes its texture from the view that sees it best: facing the camera most
// squarely among the views where it is not hidden (a z-buffer of the hull per view).
// The choice is smoothed over neighbouring triangles so the seams between views
// are few and long rather than speckled, and each view's colours are matched to the
// front photo's on the surface both see, so exposure differences between photos do
// not show as patches.

// ZBuffer is one view's depth map of the mesh at coarse resolution.
type ZBuffer struct {
	cell float64
	w, h int
	z    []float32
}

func ZBufferFor(v *View, m *geom.Mesh, proj [][3]float64) *ZBuffer {
	zb := &ZBuffer{cell: math.Max(1, float64(max(v.Seg.Bbox.Dx(), v.Seg.Bbox.Dy()))/256)}
	zb.w, zb.h = int(float64(v.Seg.W)/zb.cell)+1, int(float64(v.Seg.H)/zb.cell)+1
	zb.z = make([]float32, zb.w*zb.h)
	for i := range zb.z {
		zb.z[i] = float32(math.Inf(1))
	}
	for t := 0; t < len(m.Idx); t += 3 {
		var x, y, z [3]float64
		for c := range 3 {
			p := proj[m.Idx[t+c]]
			x[c], y[c], z[c] = p[0]/zb.cell, p[1]/zb.cell, p[2]
		}
		area := (x[1]-x[0])*(y[2]-y[0]) - (x[2]-x[0])*(y[1]-y[0])
		if math.Abs(area) < 1e-12 {
			continue
		}
		x0, x1 := max(0, int(math.Floor(min(x[0], x[1], x[2])))), min(zb.w-1, int(math.Ceil(max(x[0], x[1], x[2]))))
		y0, y1 := max(0, int(math.Floor(min(y[0], y[1], y[2])))), min(zb.h-1, int(math.Ceil(max(y[0], y[1], y[2]))))
		for py := y0; py <= y1; py++ {
			fy := float64(py) + 0.5
			for px := x0; px <= x1; px++ {
				fx := float64(px) + 0.5
				w0 := ((x[1]-fx)*(y[2]-fy) - (x[2]-fx)*(y[1]-fy)) / area
				w1 := ((x[2]-fx)*(y[0]-fy) - (x[0]-fx)*(y[2]-fy)) / area
				w2 := 1 - w0 - w1
				if w0 < 0 || w1 < 0 || w2 < 0 {
					continue
				}
				d := float32(w0*z[0] + w1*z[1] + w2*z[2])
				k := py*zb.w + px
				if d < zb.z[k] {
					zb.z[k] = d
				}
			}
		}
	}
	return zb
}

// Visible says whether a point at pixel (u, w) and depth z is not behind the surface.
func (zb *ZBuffer) Visible(u, w, z, tol float64) bool {
	x, y := int(u/zb.cell), int(w/zb.cell)
	if x < 0 || y < 0 || x >= zb.w || y >= zb.h {
		return false
	}
	best := float32(math.Inf(1))
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			xx, yy := x+dx, y+dy
			if xx >= 0 && yy >= 0 && xx < zb.w && yy < zb.h {
				best = min(best, zb.z[yy*zb.w+xx])
			}
		}
	}
	return z <= float64(best)+tol
}

// Sight is how squarely each view sees each triangle of a mesh, hidden ones
// marked. TextureViews works it out to pick each triangle's photo; the spin
// set's colour check (SurfaceDisagreement) reads it again instead of
// projecting the mesh into every photo and building its depth maps twice.
// Triangles keep their order when TextureViews re-indexes the mesh.
type Sight struct {
	nv int
	// score[t*nv+vi]: the cosine between triangle t's normal and the direction
	// to view vi's camera when vi sees it unhidden; cosine − 1 when the mesh
	// hides it there; −2 for a degenerate triangle.
	score []float32
}

// SeesSquarely says whether view vi sees triangle t unhidden at a facing
// cosine of at least facing.
func (s *Sight) SeesSquarely(t, vi int, facing float32) bool {
	return s.score[t*s.nv+vi] >= facing
}

// TextureViews picks a view per triangle, duplicates vertices where views meet and
// returns the atlas (the views' crops in a grid) and what each view sees of the
// mesh. m.nrm must be set; uvs are set.
func TextureViews(ctx context.Context, vs []*View, m *geom.Mesh) (*texture.AtlasSource, *Sight, error) {
	nv, nt := len(vs), len(m.Idx)/3
	// Projections of every vertex into every view.
	proj := make([][][3]float64, nv)
	for vi, v := range vs {
		proj[vi] = make([][3]float64, len(m.Pos))
		for i, p := range m.Pos {
			u, w, z := v.Cam.Project([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			proj[vi][i] = [3]float64{u, w, z}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// score[t*nv+vi]: how squarely view vi sees triangle t (negative: not at all).
	score := make([]float32, nt*nv)
	centres := make([][3]float64, nv)
	for vi, v := range vs {
		centres[vi] = v.Cam.centre()
	}
	lo, hi := m.Bounds()
	tol := 0.02 * float64(hi[1]-lo[1])
	for vi, v := range vs {
		zb := ZBufferFor(v, m, proj[vi])
		for t := range nt {
			a, b, c := m.Idx[3*t], m.Idx[3*t+1], m.Idx[3*t+2]
			pa, pb, pc := m.Pos[a], m.Pos[b], m.Pos[c]
			var ctr [3]float64
			for k := range 3 {
				ctr[k] = (float64(pa[k]) + float64(pb[k]) + float64(pc[k])) / 3
			}
			n := geom.Cross([3]float64{float64(pb[0] - pa[0]), float64(pb[1] - pa[1]), float64(pb[2] - pa[2])},
				[3]float64{float64(pc[0] - pa[0]), float64(pc[1] - pa[1]), float64(pc[2] - pa[2])})
			d := [3]float64{centres[vi][0] - ctr[0], centres[vi][1] - ctr[1], centres[vi][2] - ctr[2]}
			ln, ld := math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]), math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])
			if ln == 0 || ld == 0 {
				score[t*nv+vi] = -2
				continue
			}
			cos := (n[0]*d[0] + n[1]*d[1] + n[2]*d[2]) / (ln * ld)
			u, w, z := v.Cam.Project(ctr)
			if cos > 0 && !zb.Visible(u, w, z, tol) {
				cos = -1 + cos // hidden: only chosen when no view sees it
			}
			score[t*nv+vi] = float32(cos)
		}
	}
	label := make([]uint8, nt)
	for t := range nt {
		best := 0
		for vi := 1; vi < nv; vi++ {
			if score[t*nv+vi] > score[t*nv+best] {
				best = vi
			}
		}
		label[t] = uint8(best)
	}
	smoothLabels(m, label, score, nv)

	// Atlas: the views' crops in a grid.
	cols := int(math.Ceil(math.Sqrt(float64(nv))))
	rows := (nv + cols - 1) / cols
	srcs := make([]*texture.AtlasSource, nv)
	uvms := make([]texture.UVMapper, nv)
	cw, ch := 0, 0
	for vi, v := range vs {
		s, u, err := texture.BuildAtlas(ctx, v.P, v.Seg)
		if err != nil {
			return nil, nil, err
		}
		srcs[vi], uvms[vi] = s, u
		cw, ch = max(cw, s.W), max(ch, s.H)
	}
	matchColours(vs, m, srcs, uvms)
	at := &texture.AtlasSource{W: cw * cols, H: ch * rows}
	at.Col = make([][3]float32, at.W*at.H)
	for vi, s := range srcs {
		ox, oy := (vi%cols)*cw, (vi/cols)*ch
		for y := range ch {
			sy := min(y, s.H-1)
			for x := range cw {
				at.Col[(oy+y)*at.W+ox+x] = s.Col[sy*s.W+min(x, s.W-1)]
			}
		}
	}

	// Re-index: one vertex per (vertex, view) pair in use.
	key := make(map[uint64]uint32, len(m.Pos)+len(m.Pos)/4)
	out := &geom.Mesh{Idx: make([]uint32, 0, len(m.Idx))}
	for t := range nt {
		vi := int(label[t])
		s := srcs[vi]
		ox, oy := float64((vi%cols)*cw), float64((vi/cols)*ch)
		for c := range 3 {
			a := m.Idx[3*t+c]
			k := uint64(a)<<8 | uint64(vi)
			id, ok := key[k]
			if !ok {
				p := proj[vi][a]
				lu, lv := uvms[vi].At(p[0], p[1])
				lu, lv = min(max(lu, 0), 1), min(max(lv, 0), 1)
				u := (ox + float64(lu)*float64(s.W)) / float64(at.W)
				v := (oy + float64(lv)*float64(s.H)) / float64(at.H)
				id = uint32(len(out.Pos))
				out.Pos = append(out.Pos, m.Pos[a])
				out.Nrm = append(out.Nrm, m.Nrm[a])
				out.Uv = append(out.Uv, [2]float32{float32(u), float32(v)})
				key[k] = id
			}
			out.Idx = append(out.Idx, id)
		}
	}
	*m = *out
	return at, &Sight{nv: nv, score: score}, nil
}

// smoothLabels lets each triangle take the view most of its neighbours use when
// that view sees it nearly as well, twice over.
func smoothLabels(m *geom.Mesh, label []uint8, score []float32, nv int) {
	nt := len(label)
	// Triangles around each vertex.
	start := make([]int32, len(m.Pos)+1)
	for _, v := range m.Idx {
		start[v+1]++
	}
	for i := range m.Pos {
		start[i+1] += start[i]
	}
	around := make([]int32, len(m.Idx))
	fill := make([]int32, len(m.Pos))
	for i, v := range m.Idx {
		around[start[v]+fill[v]] = int32(i / 3)
		fill[v]++
	}
	votes := make([]float32, nv)
	next := make([]uint8, nt)
	for range 3 {
		for t := range nt {
			clear(votes)
			for c := range 3 {
				v := m.Idx[3*t+c]
				for _, o := range around[start[v]:start[v+1]] {
					votes[label[o]]++
				}
			}
			best, bestS := label[t], float32(math.Inf(-1))
			for vi := range nv {
				s := score[t*nv+vi]
				if s <= 0 && score[t*nv+int(label[t])] > 0 {
					continue // never move a triangle to a view that cannot see it
				}
				if v := s + 0.04*votes[vi]; v > bestS {
					best, bestS = uint8(vi), v
				}
			}
			next[t] = best
		}
		copy(label, next)
	}
}

// matchColours scales each view's crop so that its colours agree with those of the
// views it meets: the mean colour, over triangles seen well by both the front and
// the other view, is compared and each channel's gain (0.7–1.4) applied to the
// other view's crop.
func matchColours(vs []*View, m *geom.Mesh, srcs []*texture.AtlasSource, uvms []texture.UVMapper) {
	front := vs[0]
	for vi := 1; vi < len(vs); vi++ {
		v := vs[vi]
		var sf, so [3]float64
		n := 0
		for t := 0; t < len(m.Idx); t += 3 {
			var ctr [3]float64
			for c := range 3 {
				p := m.Pos[m.Idx[t+c]]
				for k := range 3 {
					ctr[k] += float64(p[k]) / 3
				}
			}
			uf, wf, _ := front.Cam.Project(ctr)
			uo, wo, _ := v.Cam.Project(ctr)
			af, ao := front.AlphaAt(uf, wf), v.AlphaAt(uo, wo)
			if af < 0.99 || ao < 0.99 {
				continue
			}
			// Seen squarely enough by both: the normal within 60° of both cameras.
			nrm := m.Nrm[m.Idx[t]]
			ok := true
			for _, cam := range []*Camera{&front.Cam, &v.Cam} {
				c := cam.centre()
				d := [3]float64{c[0] - ctr[0], c[1] - ctr[1], c[2] - ctr[2]}
				l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
				if (float64(nrm[0])*d[0]+float64(nrm[1])*d[1]+float64(nrm[2])*d[2])/l < 0.5 {
					ok = false
				}
			}
			if !ok {
				continue
			}
			cf := sampleCrop(srcs[0], uvms[0], uf, wf)
			co := sampleCrop(srcs[vi], uvms[vi], uo, wo)
			for k := range 3 {
				sf[k] += float64(cf[k])
				so[k] += float64(co[k])
			}
			n++
		}
		if n < 20 {
			continue
		}
		var gain [3]float32
		for k := range 3 {
			gain[k] = float32(min(1.4, max(0.7, (sf[k]+1)/(so[k]+1))))
		}
		for i, c := range srcs[vi].Col {
			srcs[vi].Col[i] = [3]float32{min(255, c[0]*gain[0]), min(255, c[1]*gain[1]), min(255, c[2]*gain[2])}
		}
	}
}

func sampleCrop(s *texture.AtlasSource, u texture.UVMapper, px, py float64) [3]float32 {
	x, y := int(px-u.X0), int(py-u.Y0)
	x, y = min(max(x, 0), s.W-1), min(max(y, 0), s.H-1)
	return s.Col[y*s.W+x]
}
