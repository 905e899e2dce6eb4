package geom

import (
	"math"
)

// Mesh is one part's closed triangle mesh. Positions are first built in pixel units of
// the working photo (X right, Y up, Z towards the camera, origin at the base centre)
// and scaled to metres once at the end, so all geometry code thinks in pixels.
type Mesh struct {
	Pos [][3]float32
	Nrm [][3]float32
	Uv  [][2]float32
	Idx []uint32
}

func (m *Mesh) AddVertex(x, y, z float64, u, v float32) uint32 {
	m.Pos = append(m.Pos, [3]float32{float32(x), float32(y), float32(z)})
	m.Uv = append(m.Uv, [2]float32{u, v})
	return uint32(len(m.Pos) - 1)
}

func (m *Mesh) Tri(a, b, c uint32) { m.Idx = append(m.Idx, a, b, c) }

func (m *Mesh) Triangles() int { return len(m.Idx) / 3 }

// ComputeNormals sets smooth, area-weighted vertex normals. Vertices that are
// duplicated on purpose (hard edges at caps and walls) keep separate normals.
func (m *Mesh) ComputeNormals() {
	acc := make([][3]float64, len(m.Pos))
	for t := 0; t+2 < len(m.Idx); t += 3 {
		a, b, c := m.Pos[m.Idx[t]], m.Pos[m.Idx[t+1]], m.Pos[m.Idx[t+2]]
		e1 := [3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])}
		e2 := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
		n := Cross(e1, e2)
		for _, v := range m.Idx[t : t+3] {
			acc[v][0] += n[0]
			acc[v][1] += n[1]
			acc[v][2] += n[2]
		}
	}
	m.Nrm = make([][3]float32, len(m.Pos))
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l < 1e-12 {
			m.Nrm[i] = [3]float32{0, 1, 0}
			continue
		}
		m.Nrm[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
	}
}

func Cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// scale multiplies positions by s (s > 0 keeps orientation and normals).
func (m *Mesh) scale(s float64) {
	for i := range m.Pos {
		for c := range 3 {
			m.Pos[i][c] = float32(float64(m.Pos[i][c]) * s)
		}
	}
}

// signedVolume is positive for a closed mesh whose triangles face outwards.
func (m *Mesh) signedVolume() float64 {
	v := 0.0
	for t := 0; t+2 < len(m.Idx); t += 3 {
		a, b, c := m.Pos[m.Idx[t]], m.Pos[m.Idx[t+1]], m.Pos[m.Idx[t+2]]
		v += (float64(a[0])*(float64(b[1])*float64(c[2])-float64(b[2])*float64(c[1])) -
			float64(a[1])*(float64(b[0])*float64(c[2])-float64(b[2])*float64(c[0])) +
			float64(a[2])*(float64(b[0])*float64(c[1])-float64(b[1])*float64(c[0]))) / 6
	}
	return v
}

// DropDegenerate removes zero-area triangles (they add nothing and viewers' tools
// warn about them) while keeping the surface closed: a zero-area triangle's edges are
// collinear, so removing it cannot open a hole in a welded mesh.
func (m *Mesh) DropDegenerate() {
	out := m.Idx[:0]
	for t := 0; t+2 < len(m.Idx); t += 3 {
		a, b, c := m.Idx[t], m.Idx[t+1], m.Idx[t+2]
		if a == b || b == c || a == c || m.Pos[a] == m.Pos[b] || m.Pos[b] == m.Pos[c] || m.Pos[a] == m.Pos[c] {
			continue
		}
		out = append(out, a, b, c)
	}
	m.Idx = out
}

// Bounds returns the axis-aligned bounding box of the positions.
func (m *Mesh) Bounds() (lo, hi [3]float32) {
	lo = [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
	hi = [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	for _, p := range m.Pos {
		for c := range 3 {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	return lo, hi
}
