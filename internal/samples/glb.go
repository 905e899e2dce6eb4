package samples

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"

	"github.com/photo3d/photo3d/internal/glbwrite"
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

// encodeGLB writes the model as one self-contained glTF 2.0 binary: a root node named
// after the model with one child node (and mesh) per part, one primitive per piece.
func encodeGLB(m *model) ([]byte, error) {
	doc := &gltf.Document{
		Asset:  gltf.Asset{Version: "2.0", Generator: generatorName},
		Scene:  gltf.Index(0),
		Scenes: []*gltf.Scene{{Name: m.name, Nodes: []int{0}}},
		Nodes:  []*gltf.Node{{Name: m.name}},
	}
	w := glbwrite.New(doc)
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
		timeAcc = w.Data(times, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorScalar, explodeKeys,
			[]float64{0}, []float64{float64(float32(explodeSeconds))})
	}

	for _, p := range m.parts {
		gmesh := &gltf.Mesh{Name: p.name}
		for _, pc := range p.pieces {
			data, lo, hi := glbwrite.Vec3s(pc.mesh.pos)
			posAcc := w.Data(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(pc.mesh.pos), lo, hi)
			data, _, _ = glbwrite.Vec3s(pc.mesh.nrm)
			nrmAcc := w.Data(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(pc.mesh.nrm), nil, nil)
			idxAcc := w.Indices(pc.mesh.idx, len(pc.mesh.pos))
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
		data, _, _ := glbwrite.Vec3s(keys)
		out := w.Data(data, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorVec3, explodeKeys, nil, nil)
		anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: timeAcc, Output: out, Interpolation: gltf.InterpolationLinear})
		anim.Channels = append(anim.Channels, &gltf.AnimationChannel{
			Sampler: len(anim.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: gltf.TRSTranslation},
		})
	}
	if anim != nil {
		doc.Animations = []*gltf.Animation{anim}
	}
	glb, err := w.Encode()
	if err != nil {
		return nil, fmt.Errorf("sample %s: %w", m.name, err)
	}
	return glb, nil
}
