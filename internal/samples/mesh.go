package samples

import (
	"math"
)

// vec3 is a point or direction in metres; float64 while modelling, float32 only when
// written, so chains of transforms do not accumulate single-precision error.
type vec3 [3]float64

func (a vec3) add(b vec3) vec3      { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) sub(b vec3) vec3      { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) scale(s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a vec3) dot(b vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec3) length() float64      { return math.Sqrt(a.dot(a)) }

func (a vec3) cross(b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// unit returns a normalised; a zero vector stays zero so callers can detect it.
func (a vec3) unit() vec3 {
	l := a.length()
	if l == 0 {
		return a
	}
	return a.scale(1 / l)
}

// mesh is one closed surface (or several closed components) with per-vertex normals.
// Vertices are duplicated where a crease needs two normals; the surface is still
// closed once positions are welded, which is what the tests check.
type mesh struct {
	pos []vec3
	nrm []vec3
	idx []uint32
}

func (m *mesh) vertex(p, n vec3) uint32 {
	m.pos = append(m.pos, p)
	m.nrm = append(m.nrm, n.unit())
	return uint32(len(m.pos) - 1)
}

func (m *mesh) tri(a, b, c uint32) { m.idx = append(m.idx, a, b, c) }

// quad adds a, b, c, d (counter-clockwise seen from outside) as two triangles.
func (m *mesh) quad(a, b, c, d uint32) {
	m.tri(a, b, c)
	m.tri(a, c, d)
}

func (m *mesh) triangles() int { return len(m.idx) / 3 }

// append adds o's geometry to m, so several closed pieces can share one primitive.
func (m *mesh) append(o *mesh) *mesh {
	base := uint32(len(m.pos))
	m.pos = append(m.pos, o.pos...)
	m.nrm = append(m.nrm, o.nrm...)
	for _, i := range o.idx {
		m.idx = append(m.idx, base+i)
	}
	return m
}

// merge joins meshes into a new one.
func merge(ms ...*mesh) *mesh {
	out := &mesh{}
	for _, m := range ms {
		out.append(m)
	}
	return out
}

// mat3 is a row-major linear map.
type mat3 [3][3]float64

func (a mat3) apply(v vec3) vec3 {
	return vec3{
		a[0][0]*v[0] + a[0][1]*v[1] + a[0][2]*v[2],
		a[1][0]*v[0] + a[1][1]*v[1] + a[1][2]*v[2],
		a[2][0]*v[0] + a[2][1]*v[1] + a[2][2]*v[2],
	}
}

func (a mat3) mul(b mat3) mat3 {
	var r mat3
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				r[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return r
}

func (a mat3) det() float64 {
	return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) -
		a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) +
		a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
}

// normalMatrix is the inverse transpose (up to scale: the cofactor matrix), which
// keeps normals perpendicular to surfaces under non-uniform scaling.
func (a mat3) normalMatrix() mat3 {
	return mat3{
		{a[1][1]*a[2][2] - a[1][2]*a[2][1], a[1][2]*a[2][0] - a[1][0]*a[2][2], a[1][0]*a[2][1] - a[1][1]*a[2][0]},
		{a[0][2]*a[2][1] - a[0][1]*a[2][2], a[0][0]*a[2][2] - a[0][2]*a[2][0], a[0][1]*a[2][0] - a[0][0]*a[2][1]},
		{a[0][1]*a[1][2] - a[0][2]*a[1][1], a[0][2]*a[1][0] - a[0][0]*a[1][2], a[0][0]*a[1][1] - a[0][1]*a[1][0]},
	}
}

func identity() mat3 { return mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

func scaling(x, y, z float64) mat3 { return mat3{{x, 0, 0}, {0, y, 0}, {0, 0, z}} }

// rotX, rotY and rotZ rotate counter-clockwise (right-handed) by deg degrees.
func rotX(deg float64) mat3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	return mat3{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

func rotY(deg float64) mat3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	return mat3{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}
}

func rotZ(deg float64) mat3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	return mat3{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
}

// alignY returns a rotation taking +Y to the unit direction d, so shapes built along
// the Y axis (lathes, capsules) can be pointed anywhere.
func alignY(d vec3) mat3 {
	d = d.unit()
	y := vec3{0, 1, 0}
	c := y.dot(d)
	if c > 1-1e-12 {
		return identity()
	}
	if c < -1+1e-12 {
		return rotX(180)
	}
	axis := y.cross(d).unit()
	s := math.Sqrt(1 - c*c)
	x, yy, z := axis[0], axis[1], axis[2]
	t := 1 - c
	// Rodrigues' rotation formula.
	return mat3{
		{t*x*x + c, t*x*yy - s*z, t*x*z + s*yy},
		{t*x*yy + s*z, t*yy*yy + c, t*yy*z - s*x},
		{t*x*z - s*yy, t*yy*z + s*x, t*z*z + c},
	}
}

// transform applies p ↦ a·p + t to positions and the matching map to normals. A
// mirroring map reverses the winding so faces keep pointing outwards.
func (m *mesh) transform(a mat3, t vec3) *mesh {
	nm := a.normalMatrix()
	if a.det() < 0 {
		nm = mat3{
			{-nm[0][0], -nm[0][1], -nm[0][2]},
			{-nm[1][0], -nm[1][1], -nm[1][2]},
			{-nm[2][0], -nm[2][1], -nm[2][2]},
		}
		for i := 0; i+2 < len(m.idx); i += 3 {
			m.idx[i+1], m.idx[i+2] = m.idx[i+2], m.idx[i+1]
		}
	}
	for i := range m.pos {
		m.pos[i] = a.apply(m.pos[i]).add(t)
		m.nrm[i] = nm.apply(m.nrm[i]).unit()
	}
	return m
}

func (m *mesh) move(t vec3) *mesh { return m.transform(identity(), t) }

// bounds returns the axis-aligned box around the positions.
func (m *mesh) bounds() (lo, hi vec3) {
	lo = vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range m.pos {
		for c := range 3 {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	return lo, hi
}
