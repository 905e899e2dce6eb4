package samples

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

const (
	// ExplodeAnimation names the animation that moves parts from assembled to
	// exploded; it matches the name the reconstruction pipeline uses, so the viewer's
	// exploded-view control works the same on samples and on customer models.
	ExplodeAnimation = "Explode"
	explodeSeconds   = 1.2
	explodeKeys      = 9 // keyframes of the eased motion (linear between them)
	generatorName    = "Photo3D samples generator"
)

// glbWriter accumulates the binary chunk with 4-byte aligned buffer views. It is our
// own small copy of the idea in internal/reconstruct, which we must not couple to:
// that writer bakes in the photo texture and the material variants.
type glbWriter struct {
	doc *gltf.Document
	buf bytes.Buffer
}

func (w *glbWriter) view(data []byte, target gltf.Target) int {
	for w.buf.Len()%4 != 0 {
		w.buf.WriteByte(0)
	}
	off := w.buf.Len()
	w.buf.Write(data)
	w.doc.BufferViews = append(w.doc.BufferViews, &gltf.BufferView{
		Buffer: 0, ByteOffset: off, ByteLength: len(data), Target: target,
	})
	return len(w.doc.BufferViews) - 1
}

func (w *glbWriter) accessor(data []byte, target gltf.Target, ct gltf.ComponentType, at gltf.AccessorType, count int, lo, hi []float64) int {
	v := w.view(data, target)
	w.doc.Accessors = append(w.doc.Accessors, &gltf.Accessor{
		BufferView: gltf.Index(v), ComponentType: ct, Type: at, Count: count, Min: lo, Max: hi,
	})
	return len(w.doc.Accessors) - 1
}

// vec3Data packs vectors as float32 and returns the per-component bounds of the
// packed values (the validator compares min/max with the stored floats exactly).
func vec3Data(vs []vec3) ([]byte, []float64, []float64) {
	out := make([]byte, 12*len(vs))
	lo := []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, v := range vs {
		for c := range 3 {
			f := float32(v[c])
			binary.LittleEndian.PutUint32(out[12*i+4*c:], math.Float32bits(f))
			lo[c] = min(lo[c], float64(f))
			hi[c] = max(hi[c], float64(f))
		}
	}
	return out, lo, hi
}

// encodeGLB writes the model as one self-contained glTF 2.0 binary: a root node named
// after the model with one child node (and mesh) per part, one primitive per piece.
func encodeGLB(m *model) ([]byte, error) {
	doc := &gltf.Document{
		Asset:  gltf.Asset{Version: "2.0", Generator: generatorName},
		Scene:  gltf.Index(0),
		Scenes: []*gltf.Scene{{Name: m.name, Nodes: []int{0}}},
		Nodes:  []*gltf.Node{{Name: m.name}},
	}
	w := &glbWriter{doc: doc}
	for _, mt := range m.materials {
		c := [4]float64{srgbToLinear(mt.color[0]), srgbToLinear(mt.color[1]), srgbToLinear(mt.color[2]), mt.alpha}
		gm := &gltf.Material{
			Name: mt.name,
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &c,
				MetallicFactor:  gltf.Float(mt.metallic),
				RoughnessFactor: gltf.Float(mt.roughness),
			},
		}
		if mt.alpha < 1 {
			gm.AlphaMode = gltf.AlphaBlend
		}
		doc.Materials = append(doc.Materials, gm)
	}

	var anim *gltf.Animation
	var timeAcc int
	ease := make([]float64, explodeKeys)
	if m.exploded {
		anim = &gltf.Animation{Name: ExplodeAnimation}
		times := make([]byte, 4*explodeKeys)
		for k := range explodeKeys {
			t := float64(k) / float64(explodeKeys-1)
			ease[k] = t * t * (3 - 2*t) // smoothstep: parts start and stop gently
			binary.LittleEndian.PutUint32(times[4*k:], math.Float32bits(float32(t*explodeSeconds)))
		}
		timeAcc = w.accessor(times, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorScalar, explodeKeys,
			[]float64{0}, []float64{float64(float32(explodeSeconds))})
	}

	for _, p := range m.parts {
		gmesh := &gltf.Mesh{Name: p.name}
		for _, pc := range p.pieces {
			if len(pc.mesh.pos) > math.MaxUint16+1 {
				return nil, fmt.Errorf("part %s: %d vertices exceed 16-bit indices", p.name, len(pc.mesh.pos))
			}
			data, lo, hi := vec3Data(pc.mesh.pos)
			posAcc := w.accessor(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(pc.mesh.pos), lo, hi)
			data, _, _ = vec3Data(pc.mesh.nrm)
			nrmAcc := w.accessor(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(pc.mesh.nrm), nil, nil)
			idx := make([]byte, 2*len(pc.mesh.idx))
			for i, v := range pc.mesh.idx {
				binary.LittleEndian.PutUint16(idx[2*i:], uint16(v))
			}
			idxAcc := w.accessor(idx, gltf.TargetElementArrayBuffer, gltf.ComponentUshort, gltf.AccessorScalar, len(pc.mesh.idx), nil, nil)
			gmesh.Primitives = append(gmesh.Primitives, &gltf.Primitive{
				Attributes: gltf.PrimitiveAttributes{gltf.POSITION: posAcc, gltf.NORMAL: nrmAcc},
				Indices:    gltf.Index(idxAcc),
				Material:   gltf.Index(pc.mat),
			})
		}
		doc.Meshes = append(doc.Meshes, gmesh)
		t := m.translation(p)
		doc.Nodes = append(doc.Nodes, &gltf.Node{
			Name: p.name, Mesh: gltf.Index(len(doc.Meshes) - 1),
			Translation: [3]float64(t),
		})
		node := len(doc.Nodes) - 1
		doc.Nodes[0].Children = append(doc.Nodes[0].Children, node)

		if anim == nil || p.explode == (vec3{}) {
			continue
		}
		keys := make([]vec3, explodeKeys)
		for k, e := range ease {
			keys[k] = p.explode.scale(e)
		}
		data, _, _ := vec3Data(keys)
		out := w.accessor(data, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorVec3, explodeKeys, nil, nil)
		anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: timeAcc, Output: out, Interpolation: gltf.InterpolationLinear})
		anim.Channels = append(anim.Channels, &gltf.AnimationChannel{
			Sampler: len(anim.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: gltf.TRSTranslation},
		})
	}
	if anim != nil {
		doc.Animations = []*gltf.Animation{anim}
	}
	for w.buf.Len()%4 != 0 {
		w.buf.WriteByte(0)
	}
	doc.Buffers = []*gltf.Buffer{{ByteLength: w.buf.Len(), Data: w.buf.Bytes()}}
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode %s glb: %w", m.name, err)
	}
	return out.Bytes(), nil
}
