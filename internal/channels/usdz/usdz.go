// Package usdz builds, on the server, the USDZ file iOS Quick Look opens
// (issue 32, item 1): without it model-viewer converts the GLB in the
// shopper's phone at tap time, which is slow, drops materials it cannot
// map and fails on large models.
//
// FromGLB reads one of our GLBs (the product's per-variant AR GLB, whose
// default materials are the variant's look) and writes:
//
//   - one USD text layer (model.usda) as the package's first entry, its
//     root layer: metersPerUnit = 1 and upAxis = "Y" (glTF is metres, +Y up,
//     right-handed, as USD's defaults), a default prim "Root", one Mesh per
//     glTF triangle primitive with every node transform baked into its
//     points and normals (world space), st texture coordinates (V flipped:
//     glTF's origin is the image's top left, USD's its bottom left), and a
//     UsdPreviewSurface material per glTF material (base colour factor or
//     texture, metallic, roughness, opacity);
//   - the base colour textures as they are (JPEG or PNG, the two image
//     formats USDZ allows), under textures/.
//
// The zip follows the USDZ layout rules (Pixar's "Usdz File Format
// Specification"): entries stored, never compressed or encrypted, no data
// descriptors, and every file's data starting at a multiple of 64 bytes
// from the start of the archive, so a reader can map it in place. Check
// verifies exactly those rules and the text layer's structure.
package usdz

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// ContentType is the media type Quick Look expects (IANA registration).
const ContentType = "model/vnd.usdz+zip"

// RootLayer is the name of the package's first entry.
const RootLayer = "model.usda"

// Limits on what FromGLB reads, far above any model the product stores.
const (
	maxTriangles = 2_000_000
	maxNodes     = 10_000
	maxDepth     = 64
)

// ErrNotConvertible reports a GLB this builder cannot turn into USD (no
// triangles, compressed geometry it does not decode, a broken hierarchy).
var ErrNotConvertible = errors.New("model cannot be converted to USDZ")

type meshOut struct {
	name     string
	material int // index into materials, -1: the default grey
	points   [][3]float64
	normals  [][3]float64 // empty or one per point
	st       [][2]float64 // empty or one per point
	indices  []int
}

type materialOut struct {
	name      string
	color     [4]float64
	metallic  float64
	roughness float64
	texture   string // textures/… inside the package; "" none
}

// FromGLB converts a GLB into a USDZ package.
func FromGLB(glb []byte) ([]byte, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotConvertible, err)
	}
	for _, e := range doc.ExtensionsRequired {
		return nil, fmt.Errorf("%w: it requires the extension %s", ErrNotConvertible, e)
	}
	files := []File{}
	images := map[int]string{} // glTF image → package path
	mats := make([]materialOut, len(doc.Materials))
	for i, m := range doc.Materials {
		mo := materialOut{name: "M" + strconv.Itoa(i), color: [4]float64{1, 1, 1, 1}, metallic: 1, roughness: 1}
		if pbr := m.PBRMetallicRoughness; pbr != nil {
			if pbr.BaseColorFactor != nil {
				mo.color = *pbr.BaseColorFactor
			}
			if pbr.MetallicFactor != nil {
				mo.metallic = *pbr.MetallicFactor
			}
			if pbr.RoughnessFactor != nil {
				mo.roughness = *pbr.RoughnessFactor
			}
			if ti := pbr.BaseColorTexture; ti != nil && ti.Index >= 0 && ti.Index < len(doc.Textures) {
				if src := doc.Textures[ti.Index].Source; src != nil && *src >= 0 && *src < len(doc.Images) {
					path, ok := images[*src]
					if !ok {
						data, ext := imageData(doc, doc.Images[*src])
						if data != nil {
							path = "textures/image" + strconv.Itoa(*src) + ext
							files = append(files, File{Name: path, Data: data})
						}
						images[*src] = path
					}
					mo.texture = path
				}
			}
		}
		mats[i] = mo
	}
	meshes, err := walk(doc)
	if err != nil {
		return nil, err
	}
	if len(meshes) == 0 {
		return nil, fmt.Errorf("%w: no triangles", ErrNotConvertible)
	}
	layer := writeLayer(meshes, mats)
	return Pack(append([]File{{Name: RootLayer, Data: layer}}, files...))
}

// imageData returns a glTF image's bytes and extension when it is a JPEG
// or a PNG (what USDZ may hold); nil otherwise.
func imageData(doc *gltf.Document, im *gltf.Image) ([]byte, string) {
	var data []byte
	switch {
	case im.BufferView != nil && *im.BufferView >= 0 && *im.BufferView < len(doc.BufferViews):
		v := doc.BufferViews[*im.BufferView]
		if v.Buffer < 0 || v.Buffer >= len(doc.Buffers) || v.ByteOffset < 0 || v.ByteLength < 0 ||
			v.ByteOffset+v.ByteLength > len(doc.Buffers[v.Buffer].Data) {
			return nil, ""
		}
		data = doc.Buffers[v.Buffer].Data[v.ByteOffset : v.ByteOffset+v.ByteLength]
	case im.IsEmbeddedResource():
		d, err := im.MarshalData()
		if err != nil {
			return nil, ""
		}
		data = d
	}
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return data, ".jpg"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return data, ".png"
	}
	return nil, ""
}

// walk collects every triangle primitive of the default scene in world space.
func walk(doc *gltf.Document) ([]meshOut, error) {
	scene := 0
	if doc.Scene != nil {
		scene = *doc.Scene
	}
	if scene < 0 || scene >= len(doc.Scenes) {
		return nil, fmt.Errorf("%w: no scene", ErrNotConvertible)
	}
	var out []meshOut
	names := map[string]int{}
	visits, tris := 0, 0
	var visit func(ni int, parent mat4, depth int) error
	visit = func(ni int, parent mat4, depth int) error {
		if ni < 0 || ni >= len(doc.Nodes) || depth > maxDepth {
			return fmt.Errorf("%w: bad node hierarchy", ErrNotConvertible)
		}
		if visits++; visits > maxNodes {
			return fmt.Errorf("%w: node graph too large", ErrNotConvertible)
		}
		n := doc.Nodes[ni]
		world := parent.mul(local(n))
		if n.Mesh != nil && *n.Mesh >= 0 && *n.Mesh < len(doc.Meshes) {
			m := doc.Meshes[*n.Mesh]
			for pi, p := range m.Primitives {
				if p.Mode != gltf.PrimitiveTriangles {
					continue
				}
				mo, err := primitive(doc, p, world)
				if err != nil {
					return err
				}
				if tris += len(mo.indices) / 3; tris > maxTriangles {
					return fmt.Errorf("%w: more than %d triangles", ErrNotConvertible, maxTriangles)
				}
				base := identifier(strings.TrimSpace(m.Name), "Mesh")
				if len(m.Primitives) > 1 {
					base += "_" + strconv.Itoa(pi)
				}
				mo.name = base
				if names[base]++; names[base] > 1 {
					mo.name = base + "_" + strconv.Itoa(names[base])
				}
				out = append(out, mo)
			}
		}
		for _, c := range n.Children {
			if err := visit(c, world, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ni := range doc.Scenes[scene].Nodes {
		if err := visit(ni, identity(), 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func primitive(doc *gltf.Document, p *gltf.Primitive, world mat4) (meshOut, error) {
	mo := meshOut{material: -1}
	if p.Material != nil && *p.Material >= 0 && *p.Material < len(doc.Materials) {
		mo.material = *p.Material
	}
	acc := func(name string) *gltf.Accessor {
		i, ok := p.Attributes[name]
		if !ok || i < 0 || i >= len(doc.Accessors) {
			return nil
		}
		return doc.Accessors[i]
	}
	pa := acc(gltf.POSITION)
	if pa == nil {
		return mo, fmt.Errorf("%w: a primitive has no positions", ErrNotConvertible)
	}
	pos, err := modeler.ReadPosition(doc, pa, nil)
	if err != nil {
		return mo, fmt.Errorf("%w: positions: %v", ErrNotConvertible, err)
	}
	normalM := world.normalMatrix()
	mo.points = make([][3]float64, len(pos))
	for i, v := range pos {
		mo.points[i] = world.apply([3]float64{float64(v[0]), float64(v[1]), float64(v[2])}, 1)
	}
	if na := acc(gltf.NORMAL); na != nil {
		if nrm, err := modeler.ReadNormal(doc, na, nil); err == nil && len(nrm) == len(pos) {
			mo.normals = make([][3]float64, len(nrm))
			for i, v := range nrm {
				mo.normals[i] = normalize(normalM.apply([3]float64{float64(v[0]), float64(v[1]), float64(v[2])}, 0))
			}
		}
	}
	if ta := acc(gltf.TEXCOORD_0); ta != nil {
		if uv, err := modeler.ReadTextureCoord(doc, ta, nil); err == nil && len(uv) == len(pos) {
			mo.st = make([][2]float64, len(uv))
			for i, v := range uv {
				mo.st[i] = [2]float64{float64(v[0]), 1 - float64(v[1])}
			}
		}
	}
	if p.Indices != nil {
		if *p.Indices < 0 || *p.Indices >= len(doc.Accessors) {
			return mo, fmt.Errorf("%w: bad index accessor", ErrNotConvertible)
		}
		idx, err := modeler.ReadIndices(doc, doc.Accessors[*p.Indices], nil)
		if err != nil {
			return mo, fmt.Errorf("%w: indices: %v", ErrNotConvertible, err)
		}
		mo.indices = make([]int, 0, len(idx))
		for _, v := range idx {
			if int(v) >= len(pos) {
				return mo, fmt.Errorf("%w: index out of range", ErrNotConvertible)
			}
			mo.indices = append(mo.indices, int(v))
		}
	} else {
		mo.indices = make([]int, len(pos))
		for i := range mo.indices {
			mo.indices[i] = i
		}
	}
	mo.indices = mo.indices[:len(mo.indices)/3*3]
	if world.det() < 0 { // a mirroring transform flips the winding
		for i := 0; i < len(mo.indices); i += 3 {
			mo.indices[i+1], mo.indices[i+2] = mo.indices[i+2], mo.indices[i+1]
		}
	}
	return mo, nil
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_]`)

// identifier makes a USD prim name: letters, digits and _, not starting
// with a digit.
func identifier(s, fallback string) string {
	s = notIdent.ReplaceAllString(s, "_")
	if s == "" {
		s = fallback
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

func normalize(v [3]float64) [3]float64 {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if l == 0 || math.IsNaN(l) {
		return [3]float64{0, 1, 0}
	}
	return [3]float64{v[0] / l, v[1] / l, v[2] / l}
}
