package reconstruct

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Visual hull → closed mesh. The hull is sampled as a soft field on a grid (each
// grid point's value is the least, over the views, of the photo's alpha at its
// projection, bilinear at working resolution), so the surface sits where the
// silhouettes' anti-aliased edges cross ½ rather than on voxel steps. The surface is
// extracted with Surface Nets (one vertex per cell the surface crosses, one quad per
// grid edge it crosses: closed whenever the field is zero on the grid's border),
// Taubin-smoothed, and the grid is coarsened until the triangle budget holds.

// alphaAt is the bilinear alpha (0–1) of the view's photo at working pixel (u, w).
func (v *mvView) alphaAt(u, w float64) float32 { return bilinearAlpha(v.alpha, v.seg.w, v.seg.h, u, w) }

// bilinearAlpha is the bilinear value (0–1) of the W×H alpha plane at working
// pixel (u, w), 0 outside it.
func bilinearAlpha(alpha []uint8, W, H int, u, w float64) float32 {
	x, y := u-0.5, w-0.5
	if !(x >= 0 && y >= 0 && x < float64(W-1) && y < float64(H-1)) {
		return 0
	}
	ix, iy := int(x), int(y)
	fx, fy := float32(x-float64(ix)), float32(y-float64(iy))
	a := alpha[iy*W+ix:]
	b := alpha[(iy+1)*W+ix:]
	top := float32(a[0])*(1-fx) + float32(a[1])*fx
	bot := float32(b[0])*(1-fx) + float32(b[1])*fx
	return (top*(1-fy) + bot*fy) / 255
}

// hullField samples the soft hull at the corners of g's voxels (distrusted views
// do not carve); the outermost layer is forced to zero so the surface is closed.
// The second field is the hull with what one view lost taken back (mvconsist.go);
// nil when no view has a loose mask.
func hullField(ctx context.Context, vs []*mvView, g voxGrid) ([]float32, []float32, error) {
	nx, ny, nz := g.nx+1, g.ny+1, g.nz+1
	f := make([]float32, nx*ny*nz)
	var fl []float32
	var use []*mvView
	hasLoose := false
	for _, v := range vs {
		if !v.distrust {
			use = append(use, v)
			hasLoose = hasLoose || v.loose != nil
		}
	}
	if !hasLoose || len(use) < mvTakeBackViews {
		hasLoose = false
	} else {
		fl = make([]float32, len(f))
	}
	a := make([]float32, len(use))
	l := make([]float32, len(use))
	for k := 1; k < nz-1; k++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for j := 1; j < ny-1; j++ {
			for i := 1; i < nx-1; i++ {
				p := [3]float64{g.lo[0] + float64(i)*g.s, g.lo[1] + float64(j)*g.s, g.lo[2] + float64(k)*g.s}
				o := float32(1)
				nrej := 0 // views with alpha < ½
				for vi, v := range use {
					u, w, z := v.cam.project(p)
					if z <= 0 {
						o, nrej = 0, len(use)
						break
					}
					a[vi] = v.alphaAt(u, w)
					o = min(o, a[vi])
					if a[vi] < hullIso {
						nrej++
					}
					if hasLoose && nrej <= 1 {
						l[vi] = v.looseAt(u, w)
					}
					if o == 0 && (!hasLoose || nrej > 1) {
						break
					}
				}
				idx := (k*ny+j)*nx + i
				f[idx] = o
				if hasLoose {
					switch {
					case nrej > 1:
						fl[idx] = o
					case nrej == 0:
						fl[idx] = takeBackValue(a, l)
					default:
						fl[idx] = o
						if supported(use, a, p) {
							fl[idx] = takeBackValue(a, l)
						}
					}
				}
			}
		}
	}
	return f, fl, nil
}

const hullIso = 0.5

// removeContactShadow switches measureShadow's shadow removal on. Off: on the
// real-product benchmark it cut grey product parts near the ground (BoomBox F@5
// 0.43 → 0.31) more often than it removed floor; on synthetic furniture it removes
// the slab of floor carved between a sofa's or table's legs.
const removeContactShadow = false

// measureShadow sets v.alpha: the mask without the pixels in the lower part of the
// object's box that look like the backdrop in shade (darker than the fitted
// backdrop by a factor a shadow gives, neither black nor of another hue). The
// segmenter keeps some contact shadow (the floor between a sofa's legs); carved
// from several views, that shadow becomes a slab of floor under the product.
// Known limit: a neutral grey product part in the lowest 30 % of its photo, of the
// backdrop's own hue, is taken for shadow too.
func (v *mvView) measureShadow() {
	seg, p := v.seg, v.p
	bg := fitBackground(seg.slab, seg.sw, seg.sh)
	b := seg.bbox
	y0 := b.Max.Y - int(0.3*float64(b.Dy()))
	v.alpha = slices.Clone(seg.alpha)
	if !removeContactShadow {
		return
	}
	table := srgbLinearTable()
	inv := 1 / float64(seg.f)
	for y := max(0, y0); y < b.Max.Y; y++ {
		row := p.img.Pix[y*p.img.Stride:]
		gy := (float64(y)+0.5)*inv - 0.5
		for x := b.Min.X; x < b.Max.X; x++ {
			i := y*seg.w + x
			if seg.alpha[i] < 128 {
				continue
			}
			c := toLab(table, row[4*x], row[4*x+1], row[4*x+2])
			q := bg.at((float64(x)+0.5)*inv-0.5, gy)
			if q.L <= 1 {
				continue
			}
			ratio := float64(c.L / q.L)
			chroma := math.Hypot(float64(c.A-q.A), float64(c.B-q.B))
			hue := clamp01(2 - chroma/4) // full below ΔC 4, none above 8
			// Full between 45 % and 92 % of the backdrop's lightness.
			k := clamp01(min((ratio-0.35)/0.1, (0.97-ratio)/0.05))
			v.alpha[i] = uint8(float64(v.alpha[i]) * (1 - hue*k))
		}
	}
}

// carveMesh builds the closed hull mesh of the posed views within maxTris triangles
// (world units; uv and normals are set by the texturing step).
func carveMesh(ctx context.Context, vs []*mvView, pose poseResult, maxTris int, ground bool) (*mesh, error) {
	m := 2 * pose.voxel
	lo := [3]float64{pose.lo[0] - m, pose.lo[1] - m, pose.lo[2] - m}
	hi := [3]float64{pose.hi[0] + m, pose.hi[1] + m, pose.hi[2] + m}
	n := 128
	takeBack := 0 // 0 undecided, 1 used, -1 refused (mvchoose.go); decided on the first grid
	for range 6 {
		g := gridFor(lo, hi, n)
		f, fl, err := hullField(ctx, vs, g)
		if err != nil {
			return nil, err
		}
		if fl != nil && takeBack == 0 {
			m := slices.Clone(f)
			mergeTakeBack(m, fl, g)
			miss := maskMissShare(vs, m, g)
			takeBack = 1
			if miss > mvTakeBackMiss {
				takeBack = -1
			}
			if mvTakeBackDiag != nil {
				mvTakeBackDiag(miss, takeBack > 0)
			}
		}
		if takeBack < 0 {
			fl = nil
		}
		mergeTakeBack(f, fl, g)
		if ground {
			cutBelowGround(f, g)
		}
		if tris := 2 * countCrossings(f, g); tris > maxTris {
			n = int(float64(n) * math.Sqrt(float64(maxTris)/float64(tris)) * 0.97)
			if n >= 8 {
				continue
			}
		}
		out := surfaceNets(f, g)
		if out.triangles() == 0 {
			return nil, fmt.Errorf("carve hull: %w", ErrSubjectNotSeparated)
		}
		taubin(out, 4)
		out.computeNormals()
		return out, nil
	}
	return nil, fmt.Errorf("carve hull: no grid meets the triangle budget")
}

// cutBelowGround removes the hull's taper under the product. Cameras above the
// ground see under no product, so every silhouette's lower outline (the near
// edge of the base) lets the cones meet in a wedge below the real base, and a
// too-low elevation rounds the base off instead: either way the hull's horizontal
// section shrinks towards its bottom where the product stands flat on the ground.
// The ground is put where the section first reaches 70 % of its size a little
// higher up (6 % of the height above the lowest point); below it the field is
// cleared, so the model stands on a flat base. Legs keep their size down to the
// floor and are not cut.
func cutBelowGround(f []float32, g voxGrid) {
	nx, ny, nz := g.nx+1, g.ny+1, g.nz+1
	cut := groundLayer(f, g)
	for k := range nz {
		for j := 0; j < cut; j++ {
			clear(f[(k*ny+j)*nx : (k*ny+j+1)*nx])
		}
	}
}

// groundLayer is the grid layer cutBelowGround puts the ground at (0 when the
// hull is empty or too flat to tell).
func groundLayer(f []float32, g voxGrid) int {
	nx, ny, nz := g.nx+1, g.ny+1, g.nz+1
	area := make([]int, ny)
	for k := range nz {
		for j := range ny {
			row := f[(k*ny+j)*nx:]
			for i := range nx {
				if row[i] >= hullIso {
					area[j]++
				}
			}
		}
	}
	lo, hi := -1, -1
	for j, a := range area {
		if a > 0 {
			if lo < 0 {
				lo = j
			}
			hi = j
		}
	}
	if lo < 0 || hi-lo < 10 {
		return 0
	}
	ref := area[min(hi, lo+max(1, int(0.06*float64(hi-lo)+0.5)))]
	cut := lo
	for cut < hi && float64(area[cut]) < 0.7*float64(ref) {
		cut++
	}
	return cut
}

func countCrossings(f []float32, g voxGrid) int {
	nx, ny := g.nx+1, g.ny+1
	n := 0
	for k := 0; k <= g.nz; k++ {
		for j := 0; j <= g.ny; j++ {
			for i := 0; i <= g.nx; i++ {
				a := f[(k*ny+j)*nx+i] >= hullIso
				if i < g.nx && a != (f[(k*ny+j)*nx+i+1] >= hullIso) {
					n++
				}
				if j < g.ny && a != (f[(k*ny+j+1)*nx+i] >= hullIso) {
					n++
				}
				if k < g.nz && a != (f[((k+1)*ny+j)*nx+i] >= hullIso) {
					n++
				}
			}
		}
	}
	return n
}

// surfaceNets extracts the iso-surface of f (values at g's voxel corners).
func surfaceNets(f []float32, g voxGrid) *mesh {
	nx, ny, nz := g.nx+1, g.ny+1, g.nz+1
	at := func(i, j, k int) float32 { return f[(k*ny+j)*nx+i] }
	cell := make([]int32, g.nx*g.ny*g.nz)
	out := &mesh{}
	corner := [8][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}
	edges := [12][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	for k := range g.nz {
		for j := range g.ny {
			for i := range g.nx {
				var val [8]float32
				in := 0
				for c, o := range corner {
					val[c] = at(i+o[0], j+o[1], k+o[2])
					if val[c] >= hullIso {
						in++
					}
				}
				ci := (k*g.ny+j)*g.nx + i
				if in == 0 || in == 8 {
					cell[ci] = -1
					continue
				}
				var p [3]float64
				cnt := 0.0
				for _, e := range edges {
					a, b := val[e[0]], val[e[1]]
					if (a >= hullIso) == (b >= hullIso) {
						continue
					}
					t := float64((hullIso - a) / (b - a))
					oa, ob := corner[e[0]], corner[e[1]]
					for c := range 3 {
						p[c] += float64(oa[c]) + t*float64(ob[c]-oa[c])
					}
					cnt++
				}
				cell[ci] = int32(len(out.pos))
				out.pos = append(out.pos, [3]float32{
					float32(g.lo[0] + (float64(i)+p[0]/cnt)*g.s),
					float32(g.lo[1] + (float64(j)+p[1]/cnt)*g.s),
					float32(g.lo[2] + (float64(k)+p[2]/cnt)*g.s),
				})
			}
		}
	}
	cellAt := func(c [3]int) uint32 { return uint32(cell[(c[2]*g.ny+c[1])*g.nx+c[0]]) }
	// One quad per crossed grid edge; the four cells around an edge along axis a,
	// listed counter-clockwise about +a (axes a, b, c cyclic).
	for a := range 3 {
		b, c := (a+1)%3, (a+2)%3
		dims := [3]int{nx, ny, nz}
		for k := range nz {
			for j := range ny {
				for i := range nx {
					p := [3]int{i, j, k}
					if p[a] >= dims[a]-1 || p[b] < 1 || p[c] < 1 || p[b] >= dims[b]-1 || p[c] >= dims[c]-1 {
						continue
					}
					q := p
					q[a]++
					inLo := at(p[0], p[1], p[2]) >= hullIso
					if inLo == (at(q[0], q[1], q[2]) >= hullIso) {
						continue
					}
					var quad [4]uint32
					for n, d := range [4][2]int{{-1, -1}, {0, -1}, {0, 0}, {-1, 0}} {
						cc := p
						cc[b] += d[0]
						cc[c] += d[1]
						quad[n] = cellAt(cc)
					}
					if !inLo {
						quad[1], quad[3] = quad[3], quad[1]
					}
					out.tri(quad[0], quad[1], quad[2])
					out.tri(quad[0], quad[2], quad[3])
				}
			}
		}
	}
	out.uv = make([][2]float32, len(out.pos))
	return out
}

// taubin smooths the mesh without shrinking it (λ|μ smoothing, Taubin 1995).
func taubin(m *mesh, iters int) {
	n := len(m.pos)
	adjStart := make([]int32, n+1)
	for t := 0; t < len(m.idx); t += 3 {
		for e := range 3 {
			adjStart[m.idx[t+e]+1] += 2
		}
	}
	for i := range n {
		adjStart[i+1] += adjStart[i]
	}
	adj := make([]uint32, adjStart[n])
	fill := make([]int32, n)
	for t := 0; t < len(m.idx); t += 3 {
		for e := range 3 {
			a := m.idx[t+e]
			adj[adjStart[a]+fill[a]] = m.idx[t+(e+1)%3]
			adj[adjStart[a]+fill[a]+1] = m.idx[t+(e+2)%3]
			fill[a] += 2
		}
	}
	tmp := make([][3]float32, n)
	for it := range 2 * iters {
		f := float32(0.5)
		if it%2 == 1 {
			f = -0.53
		}
		for i := range n {
			nb := adj[adjStart[i]:adjStart[i+1]]
			if len(nb) == 0 {
				tmp[i] = m.pos[i]
				continue
			}
			var s [3]float32
			for _, j := range nb {
				for c := range 3 {
					s[c] += m.pos[j][c]
				}
			}
			inv := 1 / float32(len(nb))
			for c := range 3 {
				tmp[i][c] = m.pos[i][c] + f*(s[c]*inv-m.pos[i][c])
			}
		}
		m.pos, tmp = tmp, m.pos
	}
}
