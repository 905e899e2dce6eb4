package glbio

import (
	"github.com/qmuntal/gltf"

	"github.com/photo3d/photo3d/internal/glbwrite"
	"github.com/photo3d/photo3d/internal/reconstruct/geom"
)

// Material variants offered in the configurator (spec: matte-black, snow-white,
// leather-tan, fabric-grey) plus "Original", the photo texture. They are stored with
// KHR_materials_variants so model-viewer can switch them without reloading the model.
var VariantNames = [...]string{"Original", "matte-black", "snow-white", "leather-tan", "fabric-grey"}

// variantLook is the PBR look of one non-original variant.
type variantLook struct {
	Color     [4]float64
	Roughness float64
}

func VariantLooks() [4]variantLook {
	return [4]variantLook{
		{[4]float64{0.02, 0.02, 0.02, 1}, 0.9},  // matte-black
		{[4]float64{0.92, 0.92, 0.9, 1}, 0.65},  // snow-white
		{[4]float64{0.55, 0.33, 0.17, 1}, 0.55}, // leather-tan
		{[4]float64{0.42, 0.42, 0.43, 1}, 0.95}, // fabric-grey
	}
}

const (
	ExtVariants = "KHR_materials_variants"
	// ExplodeAnimation is the name of the animation that moves parts apart, which the
	// viewer's "Exploded View" toggle plays.
	ExplodeAnimation = "Explode"
	ExplodeSeconds   = 1.0
)

// Part is one part ready for encoding (positions already in metres).
type Part struct {
	Name      string
	Mesh      *geom.Mesh
	Roughness float64
	Offset    [3]float64 // exploded-view translation
}

// EncodeGLB writes parts, the atlas, the variants and the Explode animation as one
// self-contained glTF 2.0 binary.
func EncodeGLB(parts []Part, atlasJPEG []byte, generator string, mainPart int) ([]byte, error) {
	doc := &gltf.Document{
		Asset:  gltf.Asset{Version: "2.0", Generator: generator},
		Scene:  gltf.Index(0),
		Scenes: []*gltf.Scene{{Name: "Product", Nodes: []int{0}}},
	}
	bw := glbwrite.New(doc)
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "Product"})
	imgView := bw.View(atlasJPEG, gltf.TargetNone)
	doc.Images = []*gltf.Image{{Name: "atlas", MimeType: "image/jpeg", BufferView: gltf.Index(imgView)}}
	doc.Samplers = []*gltf.Sampler{{
		MagFilter: gltf.MagLinear, MinFilter: gltf.MinLinearMipMapLinear,
		WrapS: gltf.WrapClampToEdge, WrapT: gltf.WrapClampToEdge,
	}}
	doc.Textures = []*gltf.Texture{{Sampler: gltf.Index(0), Source: gltf.Index(0)}}

	// Variant materials come first after the part materials are known; collect
	// part materials now.
	for _, p := range parts {
		doc.Materials = append(doc.Materials, &gltf.Material{
			Name: p.Name,
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorTexture: &gltf.TextureInfo{Index: 0},
				MetallicFactor:   gltf.Float(0),
				RoughnessFactor:  gltf.Float(p.Roughness),
			},
		})
	}
	variantMat := make([]int, 0, 4)
	for i, look := range VariantLooks() {
		c := look.Color
		doc.Materials = append(doc.Materials, &gltf.Material{
			Name: VariantNames[i+1],
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &c,
				MetallicFactor:  gltf.Float(0),
				RoughnessFactor: gltf.Float(look.Roughness),
			},
		})
		variantMat = append(variantMat, len(doc.Materials)-1)
	}

	anim := &gltf.Animation{Name: ExplodeAnimation}
	times := bw.View(glbwrite.Float32s([]float32{0, ExplodeSeconds}), gltf.TargetNone)
	timeAcc := bw.Accessor(times, gltf.ComponentFloat, gltf.AccessorScalar, 2, []float64{0}, []float64{ExplodeSeconds})

	for pi, p := range parts {
		m := p.Mesh
		nv := len(m.Pos)
		flat := make([]float32, 0, 3*nv)
		lo, hi := m.Bounds()
		for _, v := range m.Pos {
			flat = append(flat, v[0], v[1], v[2])
		}
		posAcc := bw.Accessor(bw.View(glbwrite.Float32s(flat), gltf.TargetArrayBuffer), gltf.ComponentFloat, gltf.AccessorVec3, nv,
			[]float64{float64(lo[0]), float64(lo[1]), float64(lo[2])},
			[]float64{float64(hi[0]), float64(hi[1]), float64(hi[2])})
		flat = flat[:0]
		for _, v := range m.Nrm {
			flat = append(flat, v[0], v[1], v[2])
		}
		nrmAcc := bw.Accessor(bw.View(glbwrite.Float32s(flat), gltf.TargetArrayBuffer), gltf.ComponentFloat, gltf.AccessorVec3, nv, nil, nil)
		flat = flat[:0]
		for _, v := range m.Uv {
			flat = append(flat, v[0], v[1])
		}
		uvAcc := bw.Accessor(bw.View(glbwrite.Float32s(flat), gltf.TargetArrayBuffer), gltf.ComponentFloat, gltf.AccessorVec2, nv, nil, nil)
		idxAcc := bw.Indices(m.Idx, nv)
		prim := &gltf.Primitive{
			Attributes: gltf.PrimitiveAttributes{
				gltf.POSITION: posAcc, gltf.NORMAL: nrmAcc, gltf.TEXCOORD_0: uvAcc,
			},
			Indices:  gltf.Index(idxAcc),
			Material: gltf.Index(pi),
		}
		if pi == mainPart {
			mappings := []map[string]any{{"material": pi, "variants": []int{0}}}
			for vi, mat := range variantMat {
				mappings = append(mappings, map[string]any{"material": mat, "variants": []int{vi + 1}})
			}
			prim.Extensions = gltf.Extensions{ExtVariants: map[string]any{"mappings": mappings}}
		}
		doc.Meshes = append(doc.Meshes, &gltf.Mesh{Name: p.Name, Primitives: []*gltf.Primitive{prim}})
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: p.Name, Mesh: gltf.Index(len(doc.Meshes) - 1)})
		node := len(doc.Nodes) - 1
		doc.Nodes[0].Children = append(doc.Nodes[0].Children, node)

		o := p.Offset
		out := bw.View(glbwrite.Float32s([]float32{0, 0, 0, float32(o[0]), float32(o[1]), float32(o[2])}), gltf.TargetNone)
		outAcc := bw.Accessor(out, gltf.ComponentFloat, gltf.AccessorVec3, 2, nil, nil)
		anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: timeAcc, Output: outAcc, Interpolation: gltf.InterpolationLinear})
		anim.Channels = append(anim.Channels, &gltf.AnimationChannel{
			Sampler: len(anim.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: gltf.TRSTranslation},
		})
	}
	doc.Animations = []*gltf.Animation{anim}
	AddVariantsExtension(doc)
	return bw.Encode()
}

// AddVariantsExtension declares the variant names at the document level.
func AddVariantsExtension(doc *gltf.Document) {
	vs := make([]map[string]string, 0, len(VariantNames))
	for _, n := range VariantNames {
		vs = append(vs, map[string]string{"name": n})
	}
	if doc.Extensions == nil {
		doc.Extensions = gltf.Extensions{}
	}
	doc.Extensions[ExtVariants] = map[string]any{"variants": vs}
	for _, e := range doc.ExtensionsUsed {
		if e == ExtVariants {
			return
		}
	}
	doc.ExtensionsUsed = append(doc.ExtensionsUsed, ExtVariants)
}
