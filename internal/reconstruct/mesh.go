package reconstruct

import (
	"math"
)

// mesh is one part's closed triangle mesh. Positions are first built in pixel units of
// the working photo (X right, Y up, Z towards the camera, origin at the base centre)
// and scaled to metres once at the end, so all geometry code thinks in pixels.
type mesh struct {
	pos [][3]float32
	nrm [][3]float32
	uv  [][2]float32
	idx []uint32
}

func (m *mesh) addVertex(x, y, z float64, u, v float32) uint32 {
	m.pos = append(m.pos, [3]float32{float32(x), float32(y), float32(z)})
	m.uv = append(m.uv, [2]float32{u, v})
	return uint32(len(m.pos) - 1)
}

func (m *mesh) tri(a, b, c uint32) { m.idx = append(m.idx, a, b, c) }

func (m *mesh) triangles() int { return len(m.idx) / 3 }

// computeNormals sets smooth, area-weighted vertex normals. Vertices that are
// duplicated on purpose (hard edges at caps and walls) keep separate normals.
func (m *mesh) computeNormals() {
	acc := make([][3]float64, len(m.pos))
	for t := 0; t+2 < len(m.idx); t += 3 {
		a, b, c := m.pos[m.idx[t]], m.pos[m.idx[t+1]], m.pos[m.idx[t+2]]
		e1 := [3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])}
		e2 := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
		n := cross(e1, e2)
		for _, v := range m.idx[t : t+3] {
			acc[v][0] += n[0]
			acc[v][1] += n[1]
			acc[v][2] += n[2]
		}
	}
	m.nrm = make([][3]float32, len(m.pos))
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l < 1e-12 {
			m.nrm[i] = [3]float32{0, 1, 0}
			continue
		}
		m.nrm[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
	}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// scale multiplies positions by s (s > 0 keeps orientation and normals).
func (m *mesh) scale(s float64) {
	for i := range m.pos {
		for c := range 3 {
			m.pos[i][c] = float32(float64(m.pos[i][c]) * s)
		}
	}
}

// signedVolume is positive for a closed mesh whose triangles face outwards.
func (m *mesh) signedVolume() float64 {
	v := 0.0
	for t := 0; t+2 < len(m.idx); t += 3 {
		a, b, c := m.pos[m.idx[t]], m.pos[m.idx[t+1]], m.pos[m.idx[t+2]]
		v += (float64(a[0])*(float64(b[1])*float64(c[2])-float64(b[2])*float64(c[1])) -
			float64(a[1])*(float64(b[0])*float64(c[2])-float64(b[2])*float64(c[0])) +
			float64(a[2])*(float64(b[0])*float64(c[1])-float64(b[1])*float64(c[0]))) / 6
	}
	return v
}

// dropDegenerate removes zero-area triangles (they add nothing and viewers' tools
// warn about them) while keeping the surface closed: a zero-area triangle's edges are
// collinear, so removing it cannot open a hole in a welded mesh.
func (m *mesh) dropDegenerate() {
	out := m.idx[:0]
	for t := 0; t+2 < len(m.idx); t += 3 {
		a, b, c := m.idx[t], m.idx[t+1], m.idx[t+2]
		if a == b || b == c || a == c || m.pos[a] == m.pos[b] || m.pos[b] == m.pos[c] || m.pos[a] == m.pos[c] {
			continue
		}
		out = append(out, a, b, c)
	}
	m.idx = out
}

// bounds returns the axis-aligned bounding box of the positions.
func (m *mesh) bounds() (lo, hi [3]float32) {
	lo = [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
	hi = [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	for _, p := range m.pos {
		for c := range 3 {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	return lo, hi
}
