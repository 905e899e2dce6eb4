package reconstruct

import (
	"bytes"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// remoteFidelity scores a remote model like a built-in one (fidelity.go): the
// normalised GLB, as stored, is re-rendered through the estimated photo camera
// and compared with the builtin segmenter's mask and the photo's colours. The
// server's mesh has its own texture layout, so each triangle is coloured once
// (its material colour times its texture at the triangle's centre) and the
// render samples a one-texel-per-triangle atlas; server meshes are finely
// tessellated, so this loses little.
//
// It returns -1 and why when the model cannot be scored: a GLB that does not
// read back, or a model that renders nothing through any camera tried.
func remoteFidelity(glb []byte, seg *segmentation, p *photo) (int, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return -1, fmt.Errorf("read the model back: %w", err)
	}
	tris, err := documentTriangles(doc)
	if err != nil {
		return -1, fmt.Errorf("read the model's triangles: %w", err)
	}
	if len(tris) == 0 {
		return -1, fmt.Errorf("the model has no triangles")
	}
	m := &mesh{pos: make([][3]float32, 0, 3*len(tris)), uv: make([][2]float32, 0, 3*len(tris)), idx: make([]uint32, 0, 3*len(tris))}
	atlas := &atlasSource{w: len(tris), h: 1, col: make([][3]float32, len(tris))}
	for i, t := range tris {
		base := t.rgb
		if t.tex != nil {
			c := texel(t.tex, float64(t.uv[0][0]+t.uv[1][0]+t.uv[2][0])/3, float64(t.uv[0][1]+t.uv[1][1]+t.uv[2][1])/3)
			base = [3]float64{base[0] * c[0], base[1] * c[1], base[2] * c[2]}
		}
		for k := range 3 {
			// The atlas holds sRGB bytes as the builtin's does.
			atlas.col[i][k] = float32(255 * math.Pow(min(1, max(0, base[k])), 1/2.2))
		}
		u := (float32(i) + 0.5) / float32(len(tris))
		for k := range 3 {
			v := t.v[k]
			m.pos = append(m.pos, [3]float32{float32(v[0]), float32(v[1]), float32(v[2])})
			m.uv = append(m.uv, [2]float32{u, 0.5})
			m.idx = append(m.idx, uint32(len(m.pos)-1))
		}
	}
	score := modelFidelity([]glbPart{{name: "Body", mesh: m}}, ShapeRemote, seg, p, atlas)
	if score < 0 {
		return -1, fmt.Errorf("the model renders nothing through the estimated camera")
	}
	return min(score, remoteShapeCap(seg, tris)), nil
}

// remoteShapeCap is the most a remote model may score for its shape. The re-render
// checks only the side the photo shows, so on its own it cannot tell a learned
// model's right guess of the hidden side from a wrong one: on the real-product set
// through a fake inference server (realset_remote_test.go), the silhouette's prism
// re-projected to fidelity 70–79 at F@5 0.17–0.48, and the true meshes to 58–82,
// uncorrelated with their F@5. So a remote shape is held to the builtin's rule
// (shapeCap): where the photo does not evidence the depth, the hidden side is a
// guess, however it was made, and the score stays under the warning threshold.
// Where the photo shows a solid of revolution (latheEvidenced), the model must
// agree with that evidence, a round footprint, to claim more.
func remoteShapeCap(seg *segmentation, tris []modelTri) int {
	if latheEvidenced(seg) && footprintRoundness(tris) >= remoteRoundFootprint {
		return 100
	}
	return shapeGuessCap(seg)
}

// remoteRoundFootprint is the least overlap of a model's footprint with the ellipse
// inscribed in its box for the model to be round as seen from above: a disc's is
// about 1, a square's π/4 ≈ 0.79 (the prism a model that only extruded the outline
// would make).
const remoteRoundFootprint = 0.9

// footprintRoundness is the IoU of the model's footprint (its triangles seen from
// above, +Y up as normalised, on a 64×64 grid over its box) with the ellipse
// inscribed in that box.
func footprintRoundness(tris []modelTri) float64 {
	const n = 64
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, t := range tris {
		for _, v := range t.v {
			lo[0], hi[0] = min(lo[0], v[0]), max(hi[0], v[0])
			lo[1], hi[1] = min(lo[1], v[2]), max(hi[1], v[2])
		}
	}
	if !(hi[0] > lo[0] && hi[1] > lo[1]) {
		return 0
	}
	sx, sz := n/(hi[0]-lo[0]), n/(hi[1]-lo[1])
	var cover [n * n]bool
	for _, t := range tris {
		var q [3][2]float64
		for k, v := range t.v {
			q[k] = [2]float64{(v[0] - lo[0]) * sx, (v[2] - lo[1]) * sz}
		}
		x0, x1 := int(min(q[0][0], q[1][0], q[2][0])), int(max(q[0][0], q[1][0], q[2][0]))
		z0, z1 := int(min(q[0][1], q[1][1], q[2][1])), int(max(q[0][1], q[1][1], q[2][1]))
		area := (q[1][0]-q[0][0])*(q[2][1]-q[0][1]) - (q[2][0]-q[0][0])*(q[1][1]-q[0][1])
		for z := max(0, z0); z <= min(n-1, z1); z++ {
			for x := max(0, x0); x <= min(n-1, x1); x++ {
				if cover[z*n+x] {
					continue
				}
				px, pz := float64(x)+0.5, float64(z)+0.5
				if area == 0 {
					continue
				}
				// Barycentric sign test (either winding).
				w0 := ((q[1][0]-px)*(q[2][1]-pz) - (q[2][0]-px)*(q[1][1]-pz)) / area
				w1 := ((q[2][0]-px)*(q[0][1]-pz) - (q[0][0]-px)*(q[2][1]-pz)) / area
				if w0 >= 0 && w1 >= 0 && w0+w1 <= 1 {
					cover[z*n+x] = true
				}
			}
		}
	}
	inter, union := 0, 0
	for z := range n {
		for x := range n {
			dx, dz := (float64(x)+0.5)/n*2-1, (float64(z)+0.5)/n*2-1
			e := dx*dx+dz*dz <= 1
			c := cover[z*n+x]
			if e && c {
				inter++
			}
			if e || c {
				union++
			}
		}
	}
	return float64(inter) / float64(union)
}
