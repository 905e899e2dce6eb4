package usdz

import "github.com/qmuntal/gltf"

// mat4 is a column-major 4×4 matrix, as glTF stores node matrices.
type mat4 [16]float64

func identity() mat4 { return mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

// local is a node's transform: its matrix, else translation × rotation × scale.
func local(n *gltf.Node) mat4 {
	if n.Matrix != [16]float64{} && mat4(n.Matrix) != identity() {
		return mat4(n.Matrix)
	}
	t, q, s := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	x, y, z, w := q[0], q[1], q[2], q[3]
	return mat4{
		(1 - 2*(y*y+z*z)) * s[0], 2 * (x*y + z*w) * s[0], 2 * (x*z - y*w) * s[0], 0,
		2 * (x*y - z*w) * s[1], (1 - 2*(x*x+z*z)) * s[1], 2 * (y*z + x*w) * s[1], 0,
		2 * (x*z + y*w) * s[2], 2 * (y*z - x*w) * s[2], (1 - 2*(x*x+y*y)) * s[2], 0,
		t[0], t[1], t[2], 1,
	}
}

func (a mat4) mul(b mat4) mat4 {
	var out mat4
	for c := range 4 {
		for r := range 4 {
			s := 0.0
			for k := range 4 {
				s += a[k*4+r] * b[c*4+k]
			}
			out[c*4+r] = s
		}
	}
	return out
}

// apply transforms v as a point (w=1) or a direction (w=0).
func (a mat4) apply(v [3]float64, w float64) [3]float64 {
	return [3]float64{
		a[0]*v[0] + a[4]*v[1] + a[8]*v[2] + a[12]*w,
		a[1]*v[0] + a[5]*v[1] + a[9]*v[2] + a[13]*w,
		a[2]*v[0] + a[6]*v[1] + a[10]*v[2] + a[14]*w,
	}
}

// det is the determinant of the upper 3×3 (negative: the transform mirrors).
func (a mat4) det() float64 {
	return a[0]*(a[5]*a[10]-a[9]*a[6]) - a[4]*(a[1]*a[10]-a[9]*a[2]) + a[8]*(a[1]*a[6]-a[5]*a[2])
}

// normalMatrix is the inverse transpose of the upper 3×3 (directions only),
// so normals stay perpendicular under non-uniform scale; identity when the
// matrix is singular.
func (a mat4) normalMatrix() mat4 {
	d := a.det()
	if d == 0 {
		return identity()
	}
	// m = upper 3×3 with m[r][c] = a[c*4+r]; inverse transpose = cofactor / det.
	m := func(r, c int) float64 { return a[c*4+r] }
	cof := func(r, c int) float64 {
		r1, r2 := (r+1)%3, (r+2)%3
		c1, c2 := (c+1)%3, (c+2)%3
		return m(r1, c1)*m(r2, c2) - m(r1, c2)*m(r2, c1)
	}
	var out mat4
	for r := range 3 {
		for c := range 3 {
			out[c*4+r] = cof(r, c) / d
		}
	}
	out[15] = 1
	return out
}
