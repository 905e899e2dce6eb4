package glbtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
)

// Grid builds the model of security review 3's item H1 (its appendix A,
// biggrid.py): an n×n grid of vertices, 2·(n−1)² triangles, one material,
// positions and 32-bit indices in one buffer. Grid(1000) is 35,952,736
// bytes with 1,996,002 triangles: an own model within the upload rules that
// costs real CPU and memory to convert.
func Grid(n int) []byte {
	var pos, idx bytes.Buffer
	pos.Grow(n * n * 12)
	idx.Grow((n - 1) * (n - 1) * 24)
	f := func(v float64) { _ = binary.Write(&pos, binary.LittleEndian, math.Float32bits(float32(v))) }
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			f(float64(i) / float64(n-1))
			f(float64(j) / float64(n-1))
			f(float64((i*7+j*13)%17) / 170.0)
		}
	}
	u := func(v int) { _ = binary.Write(&idx, binary.LittleEndian, uint32(v)) }
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			a := j*n + i
			b, c := a+1, a+n
			d := c + 1
			u(a)
			u(c)
			u(b)
			u(b)
			u(c)
			u(d)
		}
	}
	pb, ib := pos.Len(), idx.Len()
	doc := map[string]any{
		"asset":   map[string]any{"version": "2.0"},
		"buffers": []any{map[string]any{"byteLength": pb + ib}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteLength": pb, "target": 34962},
			map[string]any{"buffer": 0, "byteOffset": pb, "byteLength": ib, "target": 34963},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": n * n, "type": "VEC3", "min": []float64{0, 0, 0}, "max": []float64{1, 1, 0.1}},
			map[string]any{"bufferView": 1, "componentType": 5125, "count": 6 * (n - 1) * (n - 1), "type": "SCALAR"},
		},
		"materials": []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorFactor": []float64{0.8, 0.5, 0.3, 1}}}},
		"meshes":    []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0}, "indices": 1, "material": 0}}}},
		"nodes":     []any{map[string]any{"mesh": 0}},
		"scenes":    []any{map[string]any{"nodes": []int{0}}},
		"scene":     0,
	}
	js, _ := json.Marshal(doc)
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	var out bytes.Buffer
	out.Grow(28 + len(js) + pb + ib)
	w := func(v uint32) { _ = binary.Write(&out, binary.LittleEndian, v) }
	w(0x46546C67)
	w(2)
	w(uint32(28 + len(js) + pb + ib))
	w(uint32(len(js)))
	w(0x4E4F534A)
	out.Write(js)
	w(uint32(pb + ib))
	w(0x004E4942)
	out.Write(pos.Bytes())
	out.Write(idx.Bytes())
	return out.Bytes()
}
