package geom

func CountCrossings(f []float32, g VoxGrid) int {
	nx, ny := g.Nx+1, g.Ny+1
	n := 0
	for k := 0; k <= g.Nz; k++ {
		for j := 0; j <= g.Ny; j++ {
			for i := 0; i <= g.Nx; i++ {
				a := f[(k*ny+j)*nx+i] >= HullIso
				if i < g.Nx && a != (f[(k*ny+j)*nx+i+1] >= HullIso) {
					n++
				}
				if j < g.Ny && a != (f[(k*ny+j+1)*nx+i] >= HullIso) {
					n++
				}
				if k < g.Nz && a != (f[((k+1)*ny+j)*nx+i] >= HullIso) {
					n++
				}
			}
		}
	}
	return n
}

// SurfaceNets extracts the iso-surface of f (values at g's voxel corners).
func SurfaceNets(f []float32, g VoxGrid) *Mesh {
	nx, ny, nz := g.Nx+1, g.Ny+1, g.Nz+1
	at := func(i, j, k int) float32 { return f[(k*ny+j)*nx+i] }
	cell := make([]int32, g.Nx*g.Ny*g.Nz)
	out := &Mesh{}
	corner := [8][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}
	edges := [12][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	for k := range g.Nz {
		for j := range g.Ny {
			for i := range g.Nx {
				var val [8]float32
				in := 0
				for c, o := range corner {
					val[c] = at(i+o[0], j+o[1], k+o[2])
					if val[c] >= HullIso {
						in++
					}
				}
				ci := (k*g.Ny+j)*g.Nx + i
				if in == 0 || in == 8 {
					cell[ci] = -1
					continue
				}
				var p [3]float64
				cnt := 0.0
				for _, e := range edges {
					a, b := val[e[0]], val[e[1]]
					if (a >= HullIso) == (b >= HullIso) {
						continue
					}
					t := float64((HullIso - a) / (b - a))
					oa, ob := corner[e[0]], corner[e[1]]
					for c := range 3 {
						p[c] += float64(oa[c]) + t*float64(ob[c]-oa[c])
					}
					cnt++
				}
				cell[ci] = int32(len(out.Pos))
				out.Pos = append(out.Pos, [3]float32{
					float32(g.Lo[0] + (float64(i)+p[0]/cnt)*g.S),
					float32(g.Lo[1] + (float64(j)+p[1]/cnt)*g.S),
					float32(g.Lo[2] + (float64(k)+p[2]/cnt)*g.S),
				})
			}
		}
	}
	cellAt := func(c [3]int) uint32 { return uint32(cell[(c[2]*g.Ny+c[1])*g.Nx+c[0]]) }
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
					inLo := at(p[0], p[1], p[2]) >= HullIso
					if inLo == (at(q[0], q[1], q[2]) >= HullIso) {
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
					out.Tri(quad[0], quad[1], quad[2])
					out.Tri(quad[0], quad[2], quad[3])
				}
			}
		}
	}
	out.Uv = make([][2]float32, len(out.Pos))
	return out
}

// Taubin smooths the mesh without shrinking it (λ|μ smoothing, Taubin 1995).
func Taubin(m *Mesh, iters int) {
	n := len(m.Pos)
	adjStart := make([]int32, n+1)
	for t := 0; t < len(m.Idx); t += 3 {
		for e := range 3 {
			adjStart[m.Idx[t+e]+1] += 2
		}
	}
	for i := range n {
		adjStart[i+1] += adjStart[i]
	}
	adj := make([]uint32, adjStart[n])
	fill := make([]int32, n)
	for t := 0; t < len(m.Idx); t += 3 {
		for e := range 3 {
			a := m.Idx[t+e]
			adj[adjStart[a]+fill[a]] = m.Idx[t+(e+1)%3]
			adj[adjStart[a]+fill[a]+1] = m.Idx[t+(e+2)%3]
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
				tmp[i] = m.Pos[i]
				continue
			}
			var s [3]float32
			for _, j := range nb {
				for c := range 3 {
					s[c] += m.Pos[j][c]
				}
			}
			inv := 1 / float32(len(nb))
			for c := range 3 {
				tmp[i][c] = m.Pos[i][c] + f*(s[c]*inv-m.Pos[i][c])
			}
		}
		m.Pos, tmp = tmp, m.Pos
	}
}

// HullIso is the level of the hull field where the surface lies: a cell at or
// above it is inside every silhouette that judged it.
const HullIso = 0.5
