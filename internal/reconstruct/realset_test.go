package reconstruct

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// The real-product set (issue 34 §1): openly licensed product models (testdata/real/MANIFEST;
// the files themselves are extracted locally by ops/realset.sh and not committed) turned
// into ground-truth triangle meshes with their base colours, in the benchmark frame: +Y
// up, height 1, base centre at the origin, the product's front (glTF's +Z) facing +Z.

// realDir is where the extracted models are (PHOTO3D_REALSET overrides testdata/real).
func realDir() string {
	if d := os.Getenv("PHOTO3D_REALSET"); d != "" {
		return d
	}
	return filepath.Join("testdata", "real")
}

// realEntry is one MANIFEST line.
type realEntry struct {
	name, class, licence, attribution string
}

// realManifest reads testdata/real/MANIFEST (committed, so always there).
func realManifest(t testing.TB) []realEntry {
	t.Helper()
	return realManifestFile(t, "MANIFEST")
}

// realManifestFile reads a list of real products in MANIFEST's format: MANIFEST (the
// tuning set) or HELDOUT (products no change is tuned on).
func realManifestFile(t testing.TB, file string) []realEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", file))
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	var out []realEntry
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 7 {
			t.Fatalf("%s line %q: want 7 fields", file, line)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		out = append(out, realEntry{name: f[0], class: f[1], licence: f[5], attribution: f[6]})
	}
	return out
}

// realSkipNodes are scene nodes that are not the product (the toy car's display cloth).
var realSkipNodes = map[string]map[string]bool{"ToyCar": {"Fabric": true}}

// realSetPresent reports whether the models have been extracted.
func realSetPresent() bool {
	_, err := os.Stat(filepath.Join(realDir(), "SheenChair", "model.gltf"))
	return err == nil
}

// loadRealModel reads one extracted model as ground-truth triangles with per-triangle
// sRGB base colours, aligned to the benchmark frame. Transmissive (glass) materials
// are left out: a clear dome or shade barely shows on a studio photo, and a
// reconstructor that only sees the photo cannot be scored on it.
func loadRealModel(t testing.TB, name string) []qtri {
	t.Helper()
	dir := filepath.Join(realDir(), name)
	doc, err := gltf.Open(filepath.Join(dir, "model.gltf"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	images := map[int]image.Image{}
	texture := func(ti int) image.Image {
		if ti < 0 || ti >= len(doc.Textures) || doc.Textures[ti].Source == nil {
			return nil
		}
		src := *doc.Textures[ti].Source
		if img, ok := images[src]; ok {
			return img
		}
		var img image.Image
		if data, err := os.ReadFile(filepath.Join(dir, doc.Images[src].URI)); err == nil {
			img, _, _ = image.Decode(bytes.NewReader(data))
		}
		images[src] = img
		return img
	}
	var out []qtri
	var visit func(ni int, parent [16]float64)
	visit = func(ni int, parent [16]float64) {
		n := doc.Nodes[ni]
		if realSkipNodes[name][n.Name] {
			return
		}
		world := mat4Mul(parent, nodeMatrix(n))
		if n.Mesh != nil {
			for _, prim := range doc.Meshes[*n.Mesh].Primitives {
				if prim.Mode != gltf.PrimitiveTriangles {
					continue
				}
				out = append(out, primitiveTris(t, doc, prim, world, texture)...)
			}
		}
		for _, c := range n.Children {
			visit(c, world)
		}
	}
	scene := 0
	if doc.Scene != nil {
		scene = int(*doc.Scene)
	}
	for _, ni := range doc.Scenes[scene].Nodes {
		visit(int(ni), mat4Identity())
	}
	if len(out) == 0 {
		t.Fatalf("%s: no opaque triangles", name)
	}
	return alignTruth(out)
}

// primitiveTris reads one primitive's triangles in world space with their colours.
func primitiveTris(t testing.TB, doc *gltf.Document, prim *gltf.Primitive, world [16]float64, texture func(int) image.Image) []qtri {
	base := [4]float64{1, 1, 1, 1}
	var tex image.Image
	texRef := false
	if prim.Material != nil {
		m := doc.Materials[*prim.Material]
		if _, glass := m.Extensions["KHR_materials_transmission"]; glass {
			return nil
		}
		if pbr := m.PBRMetallicRoughness; pbr != nil {
			if pbr.BaseColorFactor != nil {
				base = *pbr.BaseColorFactor
			}
			if pbr.BaseColorTexture != nil {
				texRef = true
				tex = texture(int(pbr.BaseColorTexture.Index))
			}
		}
		if m.AlphaMode == gltf.AlphaBlend && base[3] < 0.5 {
			return nil
		}
	}
	pa, ok := prim.Attributes[gltf.POSITION]
	if !ok {
		return nil
	}
	pos, err := modeler.ReadPosition(doc, doc.Accessors[pa], nil)
	if err != nil {
		t.Fatalf("positions: %v", err)
	}
	var uv [][2]float32
	if a, ok := prim.Attributes[gltf.TEXCOORD_0]; ok && tex != nil {
		if uv, err = modeler.ReadTextureCoord(doc, doc.Accessors[a], nil); err != nil {
			t.Fatalf("uv: %v", err)
		}
	}
	var idx []uint32
	if prim.Indices != nil {
		if idx, err = modeler.ReadIndices(doc, doc.Accessors[*prim.Indices], nil); err != nil {
			t.Fatalf("indices: %v", err)
		}
	} else {
		idx = make([]uint32, len(pos))
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	// Linear factor to sRGB 0–255; a referenced texture that the source copy lacks
	// (files of 4 MiB and more) leaves a mid-grey product colour, not white.
	col := v3{}
	for c := range 3 {
		col[c] = 255 * math.Pow(base[c], 1/2.2)
		if texRef && tex == nil {
			col[c] *= 0.55
		}
	}
	world3 := func(p [3]float32) v3 {
		x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
		return v3{
			world[0]*x + world[4]*y + world[8]*z + world[12],
			world[1]*x + world[5]*y + world[9]*z + world[13],
			world[2]*x + world[6]*y + world[10]*z + world[14],
		}
	}
	out := make([]qtri, 0, len(idx)/3)
	for k := 0; k+2 < len(idx); k += 3 {
		var tr qtri
		for c := range 3 {
			tr.p[c] = world3(pos[idx[k+c]])
		}
		tr.col = col
		if uv != nil {
			var u, v float64
			for c := range 3 {
				u += float64(uv[idx[k+c]][0]) / 3
				v += float64(uv[idx[k+c]][1]) / 3
			}
			tc := sampleTexture(tex, u, v)
			for c := range 3 {
				tr.col[c] = tc[c] * base[c]
			}
		}
		out = append(out, tr)
	}
	return out
}

// sampleTexture reads the sRGB colour (0–255) at uv with repeat wrapping.
func sampleTexture(img image.Image, u, v float64) v3 {
	b := img.Bounds()
	u -= math.Floor(u)
	v -= math.Floor(v)
	x := b.Min.X + min(b.Dx()-1, int(u*float64(b.Dx())))
	y := b.Min.Y + min(b.Dy()-1, int(v*float64(b.Dy())))
	r, g, bb, _ := img.At(x, y).RGBA()
	return v3{float64(r >> 8), float64(g >> 8), float64(bb >> 8)}
}

func mat4Identity() [16]float64 {
	return [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

// mat4Mul multiplies column-major 4×4 matrices (a·b).
func mat4Mul(a, b [16]float64) [16]float64 {
	var m [16]float64
	for c := range 4 {
		for r := range 4 {
			for k := range 4 {
				m[c*4+r] += a[k*4+r] * b[c*4+k]
			}
		}
	}
	return m
}

// nodeMatrix is a node's local transform (its matrix, or T·R·S).
func nodeMatrix(n *gltf.Node) [16]float64 {
	if n.Matrix != mat4Identity() && n.Matrix != [16]float64{} {
		return n.Matrix
	}
	tr, q, s := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	x, y, z, w := q[0], q[1], q[2], q[3]
	r := [16]float64{
		1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w), 0,
		2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w), 0,
		2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y), 0,
		0, 0, 0, 1,
	}
	for c := range 3 {
		for k := range 3 {
			r[c*4+k] *= s[c]
		}
	}
	r[12], r[13], r[14] = tr[0], tr[1], tr[2]
	return r
}

// rotateY turns triangles by a (radians) about +Y, right-handed: +Z goes towards +X.
func rotateY(tris []qtri, a float64) []qtri {
	c, s := math.Cos(a), math.Sin(a)
	out := make([]qtri, len(tris))
	for i, t := range tris {
		out[i] = t
		for k := range 3 {
			p := t.p[k]
			out[i].p[k] = v3{p[0]*c + p[2]*s, p[1], -p[0]*s + p[2]*c}
		}
	}
	return out
}
