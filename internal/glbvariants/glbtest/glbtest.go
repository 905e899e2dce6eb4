// Package glbtest makes small real GLBs for tests of the variant builder and
// of the product pages: a model shaped like the reconstructor's output (named
// parts, one material each, the model's own KHR_materials_variants) that the
// Khronos validator accepts.
package glbtest

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/qmuntal/gltf"
)

// Parts are the part (mesh and node) names of Model.
var Parts = []string{"Seat", "Legs"}

// Model builds a two-part GLB: "Seat" and "Legs", one triangle and one
// material each, with the reconstructor's kind of variants extension on the
// seat (which the builder must replace).
func Model(t testing.TB) []byte {
	t.Helper()
	const ext = "KHR_materials_variants"
	doc := &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "glbtest"}, Scene: gltf.Index(0),
		Scenes: []*gltf.Scene{{Nodes: []int{0, 1}}}}
	var bin bytes.Buffer
	tri := []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}
	for i, name := range Parts {
		off := bin.Len()
		for _, f := range tri {
			_ = binary.Write(&bin, binary.LittleEndian, math.Float32bits(f+float32(i)))
		}
		doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: off, ByteLength: 36, Target: gltf.TargetArrayBuffer})
		lo := float64(i)
		doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(i), ComponentType: gltf.ComponentFloat,
			Type: gltf.AccessorVec3, Count: 3, Min: []float64{lo, lo, lo}, Max: []float64{lo + 1, lo + 1, lo}})
		c := [4]float64{0.8, 0.2, 0.1, 1}
		doc.Materials = append(doc.Materials, &gltf.Material{Name: name, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &c}})
		prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: i}, Material: gltf.Index(i)}
		if i == 0 {
			prim.Extensions = gltf.Extensions{ext: map[string]any{"mappings": []map[string]any{{"material": 0, "variants": []int{0}}}}}
		}
		doc.Meshes = append(doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{prim}})
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: name, Mesh: gltf.Index(i)})
	}
	doc.Extensions = gltf.Extensions{ext: map[string]any{"variants": []map[string]string{{"name": "Original"}}}}
	doc.ExtensionsUsed = []string{ext}
	doc.Buffers = []*gltf.Buffer{{ByteLength: bin.Len(), Data: bin.Bytes()}}
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		t.Fatalf("encode test GLB: %v", err)
	}
	return out.Bytes()
}
