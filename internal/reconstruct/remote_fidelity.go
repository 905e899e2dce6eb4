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
	return score, nil
}
