package glbio

import (
	"github.com/qmuntal/gltf"
)

func Identity() [16]float64 { return [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

// LocalMatrix returns a node's column-major local transform.
func LocalMatrix(n *gltf.Node) [16]float64 {
	if n.Matrix != [16]float64{} && n.Matrix != Identity() {
		return n.Matrix
	}
	t := n.TranslationOrDefault()
	q := n.RotationOrDefault()
	s := n.ScaleOrDefault()
	x, y, z, w := q[0], q[1], q[2], q[3]
	r := [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w),
		2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w),
		2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y),
	}
	return [16]float64{
		r[0] * s[0], r[1] * s[0], r[2] * s[0], 0,
		r[3] * s[1], r[4] * s[1], r[5] * s[1], 0,
		r[6] * s[2], r[7] * s[2], r[8] * s[2], 0,
		t[0], t[1], t[2], 1,
	}
}

func Mul4(a, b [16]float64) [16]float64 {
	var out [16]float64
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

func Apply4(m [16]float64, v [3]float32) [3]float64 {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	return [3]float64{
		m[0]*x + m[4]*y + m[8]*z + m[12],
		m[1]*x + m[5]*y + m[9]*z + m[13],
		m[2]*x + m[6]*y + m[10]*z + m[14],
	}
}
