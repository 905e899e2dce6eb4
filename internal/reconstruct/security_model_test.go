package reconstruct

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/qmuntal/gltf"
	"github.com/stretchr/testify/require"
)

// InstancedPointsGLTF is the issue 28 item 1 attack: a ~200 KB .gltf whose one
// POINTS mesh (an accessor without a buffer view, which the glTF library
// allocates and zero-fills) is drawn by nodes copies. Before the fix each node
// visit re-read all vertices (≈ 0.25 s and 275 MB for 12 M vertices, up to
// 100,000 visits) and points were never counted.
func InstancedPointsGLTF(t testing.TB, vertices, nodes int) []byte {
	t.Helper()
	children := make([]int, nodes) // one root listing the mesh node nodes times
	for i := range children {
		children[i] = 1
	}
	doc := map[string]any{
		"asset":     map[string]any{"version": "2.0"},
		"accessors": []any{map[string]any{"componentType": 5126, "type": "VEC3", "count": vertices, "min": []float64{0, 0, 0}, "max": []float64{1, 1, 1}}},
		"meshes":    []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0}, "mode": 0}}}},
		"nodes":     []any{map[string]any{"children": children}, map[string]any{"mesh": 0}},
		"scenes":    []any{map[string]any{"nodes": []int{0}}},
		"scene":     0,
	}
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// TestSecurityInstancedModelCostIsCapped: the cost of a model is computed
// from its declared counts over every node visit and primitive mode before
// anything is read, and refused with a clear message.
func TestSecurityInstancedModelCostIsCapped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name            string
		vertices, nodes int
		message         string
	}{
		{"the review's file: 12 M zero-filled points × 99,990 nodes", 12_000_000, 99_990, "more than 100 MB once read"},
		{"1 M points × 99,990 nodes", 1_000_000, 99_990, "once every copy (instance) of its meshes is counted"},
		{"1 M points × 13 nodes", 1_000_000, 13, "once every copy (instance) of its meshes is counted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := InstancedPointsGLTF(t, c.vertices, c.nodes)
			require.Less(t, len(file), 250_000)
			m, err := PrepareUploadedModel([]ModelFile{{Name: "points.gltf", Data: file}}, 0)
			require.Nil(t, m)
			requireModelError(t, err, "model_too_complex")
			require.Contains(t, err.Error(), c.message)
		})
	}
}

// TestSecurityInstancedTrianglesAreCounted: triangles are counted once per
// instance (a mesh drawn by 200,000 paths is refused), while a modest
// instanced model is prepared with every copy in its counts and thumbnail.
func TestSecurityInstancedTrianglesAreCounted(t *testing.T) {
	t.Parallel()
	doc, _ := boxDoc(t)
	// Twenty boxes side by side, all the same mesh.
	doc.Nodes = doc.Nodes[:0]
	var roots []int
	for i := range 20 {
		doc.Nodes = append(doc.Nodes, boxNode(float64(i)*3))
		roots = append(roots, i)
	}
	doc.Scenes[0].Nodes = roots
	m, err := PrepareUploadedModel([]ModelFile{{Name: "row.glb", Data: encodeDoc(t, doc, true)}}, 0)
	require.NoError(t, err)
	require.Equal(t, 20*12, m.Triangles)
	tris, err := ModelTriangles(m.GLB)
	require.NoError(t, err)
	require.Len(t, tris, 20*12)

	// A node graph that fans out: 7 levels of 6 children reach 6^7 ≈ 280,000
	// paths to the box although the file holds 43 nodes.
	doc, _ = boxDoc(t)
	doc.Nodes = doc.Nodes[:0]
	for level := range 8 {
		n := boxNode(0)
		if level < 7 {
			n.Mesh = nil
			n.Children = []int{level + 1, level + 1, level + 1, level + 1, level + 1, level + 1}
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	doc.Scenes[0].Nodes = []int{0}
	_, err = PrepareUploadedModel([]ModelFile{{Name: "fan.glb", Data: encodeDoc(t, doc, true)}}, 0)
	requireModelError(t, err, "model_too_complex")
	require.Contains(t, err.Error(), "counting every path to a shared node")
}

func boxNode(x float64) *gltf.Node {
	i := 0
	return &gltf.Node{Mesh: &i, Translation: [3]float64{x, 0, 0}, Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}}
}

// texturedBoxes is the box with UVs whose 16 materials use 16 image entries
// that all name one PNG of side×side pixels (issue 28 item 1: 16 entries
// naming one 4096² PNG held 1 GB), each material on its own box. distinct
// adds more images with different content (each side×side).
func texturedBoxes(t testing.TB, side, entries, distinct int) []byte {
	t.Helper()
	doc, data := boxDoc(t)
	// UVs: one per vertex.
	uv := make([]byte, 0, 8*8)
	for i := range 8 {
		for _, f := range []float32{float32(i%2) * 0.9, float32(i/4) * 0.9} {
			uv = binary.LittleEndian.AppendUint32(uv, math.Float32bits(f))
		}
	}
	pad := func(b []byte) []byte {
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	view := func(b []byte) int {
		data = pad(data)
		doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: len(data), ByteLength: len(b)})
		data = append(data, b...)
		return len(doc.BufferViews) - 1
	}
	uvView := view(uv)
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: &uvView, ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec2, Count: 8})
	uvAcc := len(doc.Accessors) - 1
	pngOf := func(c color.NRGBA) []byte {
		img := image.NewNRGBA(image.Rect(0, 0, side, side))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		var b bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		require.NoError(t, enc.Encode(&b, img))
		return b.Bytes()
	}
	shared := view(pngOf(color.NRGBA{20, 200, 40, 255}))
	var images []int
	for range entries {
		images = append(images, shared)
	}
	for i := range distinct {
		images = append(images, view(pngOf(color.NRGBA{uint8(200 - i), 30, 30, 255})))
	}
	doc.Images, doc.Textures, doc.Materials, doc.Meshes, doc.Nodes = nil, nil, nil, nil, nil
	var roots []int
	for i, v := range images {
		v := v
		doc.Images = append(doc.Images, &gltf.Image{BufferView: &v, MimeType: "image/png"})
		src := i
		doc.Textures = append(doc.Textures, &gltf.Texture{Source: &src})
		doc.Materials = append(doc.Materials, &gltf.Material{PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorTexture: &gltf.TextureInfo{Index: i}}})
		mat, pos, idx := i, 0, 1
		doc.Meshes = append(doc.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{
			Attributes: gltf.PrimitiveAttributes{"POSITION": pos, "TEXCOORD_0": uvAcc}, Indices: &idx, Material: &mat}}})
		n := boxNode(float64(i) * 3)
		mesh := i
		n.Mesh = &mesh
		doc.Nodes = append(doc.Nodes, n)
		roots = append(roots, i)
	}
	doc.Scenes[0].Nodes = roots
	data = pad(data)
	doc.Buffers[0].Data, doc.Buffers[0].ByteLength = data, len(data)
	return encodeDoc(t, doc, true)
}

// TestSecuritySharedTextureIsDecodedOnce: sixteen image entries naming one
// 4096² PNG are decoded once, kept at a reduced size, and the thumbnail still
// shows the texture; past the model's pixel budget further images are skipped
// (the thumbnail falls back to the colour factor) instead of decoded.
func TestSecuritySharedTextureIsDecodedOnce(t *testing.T) {
	t.Parallel()
	glb := texturedBoxes(t, 4096, 16, 0)
	m, err := PrepareUploadedModel([]ModelFile{{Name: "boxes.glb", Data: glb}}, 0)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(m.Thumbnail))
	require.NoError(t, err)
	var r, g, opaque uint64
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			if cr, cg, _, a := img.At(x, y).RGBA(); a > 0 {
				r, g, opaque = r+uint64(cr), g+uint64(cg), opaque+1
			}
		}
	}
	require.NotZero(t, opaque)
	require.Greater(t, g, 2*r, "the boxes are painted from the green texture")

	doc := readDoc(t, m.GLB)
	tris, texs, err := glbio.WalkTriangles(doc, true)
	require.NoError(t, err)
	require.Len(t, tris, 16*12)
	require.Equal(t, 1, texs.Decoded, "one distinct image, decoded once")
	require.LessOrEqual(t, max(tris[0].Tex.Bounds().Dx(), tris[0].Tex.Bounds().Dy()), glbio.TextureLongSide, "kept reduced")

	// Geometric checks decode nothing.
	_, texs, err = glbio.WalkTriangles(doc, false)
	require.NoError(t, err)
	require.Nil(t, texs)

	// Three distinct 4096² images: the budget (two of them) is decoded, the
	// third is skipped.
	doc = readDoc(t, texturedBoxes(t, 4096, 1, 2))
	tris, texs, err = glbio.WalkTriangles(doc, true)
	require.NoError(t, err)
	require.Equal(t, 2, texs.Decoded)
	require.Equal(t, glbio.MaxModelTexturePixels, texs.Pixels)
	require.Nil(t, tris[len(tris)-1].Tex, "the image past the budget is not decoded")
}

func readDoc(t testing.TB, glb []byte) *gltf.Document {
	t.Helper()
	doc := new(gltf.Document)
	require.NoError(t, gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc))
	return doc
}
