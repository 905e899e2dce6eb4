// Package glbvariants turns a product's model into the two GLBs its
// configuration needs, without touching geometry or textures:
//
//   - the configurator GLB: the model plus KHR_materials_variants, one glTF
//     variant per product variant (named by its id, "v1", "v2", …) mapping
//     every primitive to that variant's material, so model-viewer switches
//     variants with variantName="v2" and no second download;
//   - one AR GLB per variant: the same model with that variant's materials as
//     the primitives' default materials, because Scene Viewer and Quick Look
//     ignore KHR_materials_variants and would otherwise show the original
//     look instead of what the shopper picked.
//
// Only the JSON chunk of the GLB is rewritten (decoded with json.Number so
// every number the source had is written back verbatim); the binary chunk is
// copied as is. The model's own KHR_materials_variants (the reconstructor
// ships its material previews that way) is replaced by the product's.
package glbvariants

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Original is the material name that keeps the model's own material.
const Original = "original"

const extVariants = "KHR_materials_variants"

// Variant is what the builder needs of a product variant: its id (the glTF
// variant name), its whole-model material and per-part overrides (part name,
// as the mesh or node is named, → material).
type Variant struct {
	ID       string
	Material string
	Parts    map[string]string
}

// look is one catalogue material as glTF PBR values. They are plain factors
// (no textures) so the GLB stays small and every viewer renders them alike.
type look struct {
	color     [4]float64
	metallic  float64
	roughness float64
}

// looks are the configurator's materials (spec: matte-black, snow-white,
// leather-tan, fabric-grey). Leather has a little sheen (lower roughness),
// fabric none.
var looks = map[string]look{
	"matte-black": {[4]float64{0.02, 0.02, 0.02, 1}, 0, 0.9},
	"snow-white":  {[4]float64{0.9, 0.9, 0.88, 1}, 0, 0.6},
	"leather-tan": {[4]float64{0.5, 0.3, 0.15, 1}, 0, 0.45},
	"fabric-grey": {[4]float64{0.4, 0.4, 0.41, 1}, 0, 0.97},
}

// MaxModelBytes bounds what the builder reads: far above any model the
// product pipeline stores, low enough that a hostile file cannot exhaust memory.
const MaxModelBytes = 64 << 20

var (
	// ErrNotGLB reports bytes that are not a glTF 2.0 binary.
	ErrNotGLB = errors.New("not a glTF 2.0 binary (GLB)")
	// ErrUnknownMaterial reports a material name outside the catalogue.
	ErrUnknownMaterial = errors.New("unknown material")
)

const (
	glbMagic  = 0x46546C67
	chunkJSON = 0x4E4F534A
	chunkBIN  = 0x004E4942
)

// glb is a parsed binary: its JSON document and the raw chunks after it.
type glb struct {
	doc  map[string]any
	rest []byte // every chunk after the JSON one, verbatim
}

func parse(b []byte) (*glb, error) {
	if len(b) > MaxModelBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrNotGLB, MaxModelBytes)
	}
	if len(b) < 20 || binary.LittleEndian.Uint32(b[0:]) != glbMagic || binary.LittleEndian.Uint32(b[4:]) != 2 {
		return nil, ErrNotGLB
	}
	total := binary.LittleEndian.Uint32(b[8:])
	if int64(total) != int64(len(b)) {
		return nil, fmt.Errorf("%w: header length %d, file %d bytes", ErrNotGLB, total, len(b))
	}
	n := binary.LittleEndian.Uint32(b[12:])
	if binary.LittleEndian.Uint32(b[16:]) != chunkJSON || int64(n) > int64(len(b)-20) {
		return nil, fmt.Errorf("%w: bad JSON chunk", ErrNotGLB)
	}
	dec := json.NewDecoder(bytes.NewReader(b[20 : 20+n]))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: JSON chunk: %v", ErrNotGLB, err)
	}
	return &glb{doc: doc, rest: b[20+n:]}, nil
}

func (g *glb) encode() ([]byte, error) {
	js, err := json.Marshal(g.doc)
	if err != nil {
		return nil, fmt.Errorf("encode glTF JSON: %w", err)
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	out := make([]byte, 20, 20+len(js)+len(g.rest))
	binary.LittleEndian.PutUint32(out[0:], glbMagic)
	binary.LittleEndian.PutUint32(out[4:], 2)
	binary.LittleEndian.PutUint32(out[8:], uint32(20+len(js)+len(g.rest)))
	binary.LittleEndian.PutUint32(out[12:], uint32(len(js)))
	binary.LittleEndian.PutUint32(out[16:], chunkJSON)
	out = append(out, js...)
	return append(out, g.rest...), nil
}

// list returns doc[key] as a slice of objects (nil when absent).
func list(doc map[string]any, key string) []any {
	l, _ := doc[key].([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func index(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil && i >= 0
}

// primitive is one mesh primitive with the part name it answers to.
type primitive struct {
	m     map[string]any
	parts []string // the mesh's name and the names of nodes showing it
}

func (g *glb) primitives() []primitive {
	nodeNames := map[int][]string{}
	for _, n := range list(g.doc, "nodes") {
		node := obj(n)
		if mi, ok := index(node["mesh"]); ok {
			if name, _ := node["name"].(string); name != "" {
				nodeNames[mi] = append(nodeNames[mi], name)
			}
		}
	}
	var out []primitive
	for mi, m := range list(g.doc, "meshes") {
		mesh := obj(m)
		names := append([]string{}, nodeNames[mi]...)
		if name, _ := mesh["name"].(string); name != "" {
			names = append(names, name)
		}
		for _, p := range list(mesh, "primitives") {
			if pm := obj(p); pm != nil {
				out = append(out, primitive{m: pm, parts: names})
			}
		}
	}
	return out
}

// materialFor is the catalogue material a variant puts on a primitive:
// a per-part choice when one of the primitive's names matches (case-
// insensitively), else the whole-model material.
func materialFor(v Variant, p primitive) string {
	for _, name := range p.parts {
		for part, mat := range v.Parts {
			if strings.EqualFold(strings.TrimSpace(part), strings.TrimSpace(name)) {
				return mat
			}
		}
	}
	if v.Material == "" {
		return Original
	}
	return v.Material
}

// materials appends catalogue materials to the document on first use.
type materials struct {
	g     *glb
	added map[string]int
}

func (ms *materials) index(name string) (int, error) {
	if i, ok := ms.added[name]; ok {
		return i, nil
	}
	l, ok := looks[name]
	if !ok {
		return 0, fmt.Errorf("%w %q", ErrUnknownMaterial, name)
	}
	all := list(ms.g.doc, "materials")
	c := l.color
	all = append(all, map[string]any{
		"name": name,
		"pbrMetallicRoughness": map[string]any{
			"baseColorFactor": []float64{c[0], c[1], c[2], c[3]},
			"metallicFactor":  l.metallic,
			"roughnessFactor": l.roughness,
		},
	})
	ms.g.doc["materials"] = all
	ms.added[name] = len(all) - 1
	return len(all) - 1, nil
}

// stripVariants removes the model's own KHR_materials_variants everywhere.
func (g *glb) stripVariants() {
	if ext := obj(g.doc["extensions"]); ext != nil {
		delete(ext, extVariants)
		if len(ext) == 0 {
			delete(g.doc, "extensions")
		}
	}
	for _, p := range g.primitives() {
		if ext := obj(p.m["extensions"]); ext != nil {
			delete(ext, extVariants)
			if len(ext) == 0 {
				delete(p.m, "extensions")
			}
		}
	}
	g.setUsed(false)
}

// setUsed adds or removes the extension from extensionsUsed.
func (g *glb) setUsed(used bool) {
	var out []any
	for _, e := range list(g.doc, "extensionsUsed") {
		if e != extVariants {
			out = append(out, e)
		}
	}
	if used {
		out = append(out, extVariants)
	}
	if len(out) == 0 {
		delete(g.doc, "extensionsUsed")
	} else {
		g.doc["extensionsUsed"] = out
	}
}

func checkVariants(vs []Variant) error {
	if len(vs) == 0 {
		return errors.New("no variants")
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if v.ID == "" || seen[v.ID] {
			return fmt.Errorf("variant id %q empty or repeated", v.ID)
		}
		seen[v.ID] = true
		for _, m := range append([]string{v.Material}, slices.Collect(maps.Values(v.Parts))...) {
			if _, ok := looks[m]; !ok && m != Original && m != "" {
				return fmt.Errorf("%w %q (variant %s)", ErrUnknownMaterial, m, v.ID)
			}
		}
	}
	return nil
}

// prepare checks the variants, parses the model and drops its own variants.
func prepare(model []byte, vs []Variant) (*glb, *materials, error) {
	if err := checkVariants(vs); err != nil {
		return nil, nil, err
	}
	g, err := parse(model)
	if err != nil {
		return nil, nil, err
	}
	g.stripVariants()
	return g, &materials{g: g, added: map[string]int{}}, nil
}

// Configurator returns model with the variants as KHR_materials_variants:
// variant i of the extension is vs[i], named by its id. A primitive whose
// variant material is "original" maps to its own material, so switching back
// from another variant restores it in every viewer.
func Configurator(model []byte, vs []Variant) ([]byte, error) {
	g, ms, err := prepare(model, vs)
	if err != nil {
		return nil, err
	}
	for _, p := range g.primitives() {
		own, hasOwn := index(p.m["material"])
		byMaterial := map[int][]int{}
		var order []int
		for vi, v := range vs {
			name := materialFor(v, p)
			mat := own
			if name != Original {
				if mat, err = ms.index(name); err != nil {
					return nil, err
				}
			} else if !hasOwn {
				continue // the glTF default material: nothing to map back to
			}
			if _, seen := byMaterial[mat]; !seen {
				order = append(order, mat)
			}
			byMaterial[mat] = append(byMaterial[mat], vi)
		}
		if len(order) == 0 {
			continue
		}
		mappings := make([]any, 0, len(order))
		for _, mat := range order {
			mappings = append(mappings, map[string]any{"material": mat, "variants": byMaterial[mat]})
		}
		ext := obj(p.m["extensions"])
		if ext == nil {
			ext = map[string]any{}
			p.m["extensions"] = ext
		}
		ext[extVariants] = map[string]any{"mappings": mappings}
	}
	names := make([]any, len(vs))
	for i, v := range vs {
		names[i] = map[string]any{"name": v.ID}
	}
	ext := obj(g.doc["extensions"])
	if ext == nil {
		ext = map[string]any{}
		g.doc["extensions"] = ext
	}
	ext[extVariants] = map[string]any{"variants": names}
	g.setUsed(true)
	return g.encode()
}

// AR returns model with v's materials as the default materials and no
// variants extension: what AR viewers (which ignore the extension) show.
func AR(model []byte, v Variant) ([]byte, error) {
	g, ms, err := prepare(model, []Variant{v})
	if err != nil {
		return nil, err
	}
	for _, p := range g.primitives() {
		name := materialFor(v, p)
		if name == Original {
			continue
		}
		mat, err := ms.index(name)
		if err != nil {
			return nil, err
		}
		p.m["material"] = mat
	}
	return g.encode()
}
