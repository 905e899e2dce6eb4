package glbwrite_test

import (
	"bytes"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbwrite"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
)

// grid is a flat mesh of n×n vertices (two triangles per cell).
func grid(n int) (pos [][3]float64, nrm [][3]float64, uv [][2]float32, idx []uint32) {
	for y := range n {
		for x := range n {
			pos = append(pos, [3]float64{float64(x) / float64(n-1), float64(y) / float64(n-1), 0.1})
			nrm = append(nrm, [3]float64{0, 0, 1})
			uv = append(uv, [2]float32{float32(x) / float32(n-1), float32(y) / float32(n-1)})
		}
	}
	for y := range n - 1 {
		for x := range n - 1 {
			a := uint32(y*n + x)
			idx = append(idx, a, a+1, a+uint32(n), a+1, a+uint32(n)+1, a+uint32(n))
		}
	}
	return
}

// encode writes one grid mesh the way both callers do: a UV set whose odd
// length (3 bytes of image before it) forces padding, bounds from Vec3s.
func encode(t *testing.T, n int) ([]byte, *gltf.Document) {
	t.Helper()
	pos, nrm, uv, idx := grid(n)
	doc := &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "glbwrite test"}, Scene: gltf.Index(0),
		Scenes: []*gltf.Scene{{Nodes: []int{0}}}, Nodes: []*gltf.Node{{Name: "grid", Mesh: gltf.Index(0)}}}
	w := glbwrite.New(doc)
	w.View([]byte{1, 2, 3}, gltf.TargetNone) // unaligned data before the geometry
	data, lo, hi := glbwrite.Vec3s(pos)
	p := w.Data(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(pos), lo, hi)
	data, _, _ = glbwrite.Vec3s(nrm)
	nr := w.Data(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(nrm), nil, nil)
	u := w.Data(glbwrite.Vec2s(uv), gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec2, len(uv), nil, nil)
	doc.Meshes = []*gltf.Mesh{{Name: "grid", Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: p, gltf.NORMAL: nr, gltf.TEXCOORD_0: u},
		Indices:    gltf.Index(w.Indices(idx, len(pos))),
	}}}}
	glb, err := w.Encode()
	require.NoError(t, err)
	back := &gltf.Document{}
	require.NoError(t, gltf.NewDecoder(bytes.NewReader(glb)).Decode(back))
	return glb, back
}

// The GLB opens in the Khronos validator with no errors, views sit on 4-byte
// boundaries, and the index width follows the vertex count: unsigned shorts
// up to 65,535 vertices, unsigned ints from 65,536 on (65,535 itself is the
// primitive-restart value glTF forbids as a ushort index).
func TestWritesValidGLBWithTheNarrowestIndices(t *testing.T) {
	for _, c := range []struct {
		n    int
		want gltf.ComponentType
	}{{4, gltf.ComponentUshort}, {255, gltf.ComponentUshort}, {256, gltf.ComponentUint}} {
		glb, doc := encode(t, c.n)
		rep := gltfvalidate.Validate(t, glb)
		require.Zero(t, rep.NumWarnings, "%+v", rep.Warnings)
		for _, v := range doc.BufferViews {
			require.Zero(t, v.ByteOffset%4, "view at %d is not aligned", v.ByteOffset)
		}
		prim := doc.Meshes[0].Primitives[0]
		require.Equal(t, c.want, doc.Accessors[*prim.Indices].ComponentType, "%d vertices", c.n*c.n)
		pos := doc.Accessors[prim.Attributes[gltf.POSITION]]
		require.Equal(t, []float64{0, 0, float64(float32(0.1))}, pos.Min, "bounds of the stored float32s")
		require.Equal(t, []float64{1, 1, float64(float32(0.1))}, pos.Max)
	}
}
