// Package glbwrite writes self-contained glTF 2.0 binaries (GLB): one binary
// chunk holding every buffer view, 4-byte aligned, under a document the
// caller builds. It is the one GLB writer of Photo3D: the reconstruction
// pipeline (internal/reconstruct: photo atlas, material variants, Explode
// animation) and the demo samples (internal/samples) both describe their
// scene with it, so alignment, accessor bounds and index widths follow the
// same rules everywhere. internal/glbvariants edits existing GLBs instead of
// writing new ones and keeps its own JSON-level reader.
package glbwrite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// Writer accumulates the binary chunk of Doc. Views and accessors are
// appended to Doc in call order, so the same calls give the same bytes.
type Writer struct {
	Doc *gltf.Document
	buf bytes.Buffer
}

// New starts a writer for doc (its scenes, nodes and materials are the
// caller's; the writer adds buffer views, accessors and the buffer).
func New(doc *gltf.Document) *Writer { return &Writer{Doc: doc} }

// View appends data as a buffer view starting on a 4-byte boundary (the
// glTF alignment rule for every component type) and returns its index.
func (w *Writer) View(data []byte, target gltf.Target) int {
	w.pad()
	off := w.buf.Len()
	w.buf.Write(data)
	w.Doc.BufferViews = append(w.Doc.BufferViews, &gltf.BufferView{
		Buffer: 0, ByteOffset: off, ByteLength: len(data), Target: target,
	})
	return len(w.Doc.BufferViews) - 1
}

// Accessor describes count elements of view; lo and hi are the bounds
// (required for POSITION and animation input; nil otherwise).
func (w *Writer) Accessor(view int, ct gltf.ComponentType, at gltf.AccessorType, count int, lo, hi []float64) int {
	w.Doc.Accessors = append(w.Doc.Accessors, &gltf.Accessor{
		BufferView: gltf.Index(view), ComponentType: ct, Type: at, Count: count, Min: lo, Max: hi,
	})
	return len(w.Doc.Accessors) - 1
}

// Data is View followed by Accessor over it: data in a view of its own.
func (w *Writer) Data(data []byte, target gltf.Target, ct gltf.ComponentType, at gltf.AccessorType, count int, lo, hi []float64) int {
	return w.Accessor(w.View(data, target), ct, at, count, lo, hi)
}

// Indices stores triangle indices into vertexCount vertices as an element
// array: unsigned shorts when every index fits below 65535 (the largest
// value of a component type is reserved for primitive restart, which glTF
// forbids in indices), unsigned ints otherwise.
func (w *Writer) Indices(idx []uint32, vertexCount int) int {
	if vertexCount <= math.MaxUint16 {
		b := make([]byte, 2*len(idx))
		for i, v := range idx {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
		return w.Data(b, gltf.TargetElementArrayBuffer, gltf.ComponentUshort, gltf.AccessorScalar, len(idx), nil, nil)
	}
	b := make([]byte, 4*len(idx))
	for i, v := range idx {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return w.Data(b, gltf.TargetElementArrayBuffer, gltf.ComponentUint, gltf.AccessorScalar, len(idx), nil, nil)
}

// Encode pads the binary chunk, attaches it as the document's one buffer and
// returns the GLB.
func (w *Writer) Encode() ([]byte, error) {
	w.pad()
	w.Doc.Buffers = []*gltf.Buffer{{ByteLength: w.buf.Len(), Data: w.buf.Bytes()}}
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(w.Doc); err != nil {
		return nil, fmt.Errorf("encode glb: %w", err)
	}
	return out.Bytes(), nil
}

func (w *Writer) pad() {
	for w.buf.Len()%4 != 0 {
		w.buf.WriteByte(0)
	}
}

// Float32s packs v little-endian, as glTF stores floats.
func Float32s(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// Vec3s packs vectors as float32 and returns the per-component bounds of the
// packed values: the validator compares an accessor's min/max with the
// stored floats exactly, so bounds of the float64 inputs would not do.
func Vec3s[V ~[3]F, F float32 | float64](vs []V) (data []byte, lo, hi []float64) {
	data = make([]byte, 12*len(vs))
	lo = []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, v := range vs {
		for c := range 3 {
			f := float32(v[c])
			binary.LittleEndian.PutUint32(data[12*i+4*c:], math.Float32bits(f))
			lo[c] = min(lo[c], float64(f))
			hi[c] = max(hi[c], float64(f))
		}
	}
	return data, lo, hi
}

// Vec2s packs 2-vectors (texture coordinates) as float32.
func Vec2s(vs [][2]float32) []byte {
	data := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(data[8*i:], math.Float32bits(v[0]))
		binary.LittleEndian.PutUint32(data[8*i+4:], math.Float32bits(v[1]))
	}
	return data
}
