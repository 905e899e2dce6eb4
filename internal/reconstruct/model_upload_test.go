package reconstruct

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
)

// boxDoc is a 2 × 4 × 1 box (units of the author's choice, off-centre) as one
// buffer: what a merchant's own modelling tool might export.
func boxDoc(t testing.TB) (*gltf.Document, []byte) {
	t.Helper()
	var pos []float32
	for _, c := range [8][3]float32{{0, 0, 0}, {2, 0, 0}, {2, 4, 0}, {0, 4, 0}, {0, 0, 1}, {2, 0, 1}, {2, 4, 1}, {0, 4, 1}} {
		pos = append(pos, c[0]+10, c[1]+5, c[2]-3)
	}
	idx := []uint16{0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5}
	var bin bytes.Buffer
	for _, f := range pos {
		b := math.Float32bits(f)
		bin.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
	}
	for _, i := range idx {
		bin.Write([]byte{byte(i), byte(i >> 8)})
	}
	data := bin.Bytes()
	doc := &gltf.Document{
		Asset:   gltf.Asset{Version: "2.0", Generator: "test"},
		Buffers: []*gltf.Buffer{{ByteLength: len(data), Data: data}},
		BufferViews: []*gltf.BufferView{
			{Buffer: 0, ByteOffset: 0, ByteLength: 96, Target: gltf.TargetArrayBuffer},
			{Buffer: 0, ByteOffset: 96, ByteLength: 72, Target: gltf.TargetElementArrayBuffer},
		},
		Accessors: []*gltf.Accessor{
			{BufferView: gltf.Index(0), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 8,
				Min: []float64{10, 5, -3}, Max: []float64{12, 9, -2}},
			{BufferView: gltf.Index(1), ComponentType: gltf.ComponentUshort, Type: gltf.AccessorScalar, Count: 36},
		},
		Materials: []*gltf.Material{{Name: "Red", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{0.8, 0.1, 0.1, 1}}}},
		Meshes:    []*gltf.Mesh{{Name: "Box", Primitives: []*gltf.Primitive{{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: 0}, Indices: gltf.Index(1), Material: gltf.Index(0)}}}},
		Nodes:     []*gltf.Node{{Name: "Box", Mesh: gltf.Index(0)}},
		Scenes:    []*gltf.Scene{{Nodes: []int{0}}},
		Scene:     gltf.Index(0),
	}
	return doc, data
}

func encodeDoc(t testing.TB, doc *gltf.Document, binary bool) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = binary
	require.NoError(t, enc.Encode(doc))
	return out.Bytes()
}

// gltfWithURI is the box as .gltf JSON whose buffer lives at uri.
func gltfWithURI(t testing.TB, uri string) ([]byte, []byte) {
	doc, bin := boxDoc(t)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(encodeDoc(t, doc, true)[20:20+jsonLen(encodeDoc(t, doc, true))], &raw))
	raw["buffers"] = []any{map[string]any{"uri": uri, "byteLength": len(bin)}}
	out, err := json.Marshal(raw)
	require.NoError(t, err)
	return out, bin
}

func jsonLen(glb []byte) int {
	return int(uint32(glb[12]) | uint32(glb[13])<<8 | uint32(glb[14])<<16 | uint32(glb[15])<<24)
}

func requireModelError(t *testing.T, err error, code string) {
	t.Helper()
	var me *ModelError
	require.True(t, errors.As(err, &me), "want a ModelError %s, got %v", code, err)
	require.Equal(t, code, me.Code, me.Message)
	require.NotEmpty(t, me.Message)
}

func TestUploadedModelIsNormalisedAndThumbnailed(t *testing.T) {
	doc, _ := boxDoc(t)
	m, err := PrepareUploadedModel([]ModelFile{{Name: "Box.glb", Data: encodeDoc(t, doc, true)}}, 0)
	require.NoError(t, err)
	require.Equal(t, 12, m.Triangles)
	require.Equal(t, "Box.glb", m.Filename)
	gltfvalidate.Validate(t, m.GLB)

	// The product frame: 0.3 m tall, centre of the base at the origin.
	tris, err := ModelTriangles(m.GLB)
	require.NoError(t, err)
	require.Len(t, tris, 12)
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, tr := range tris {
		for _, v := range tr {
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], v[c]), max(hi[c], v[c])
			}
		}
	}
	require.InDelta(t, 0, lo[1], 1e-6)
	require.InDelta(t, DefaultHeightMetres, hi[1], 1e-6)
	require.InDelta(t, 0, (lo[0]+hi[0])/2, 1e-6)
	require.InDelta(t, 0, (lo[2]+hi[2])/2, 1e-6)

	img, err := png.Decode(bytes.NewReader(m.Thumbnail))
	require.NoError(t, err)
	b := img.Bounds()
	require.Equal(t, glbio.ThumbnailSize, max(b.Dx(), b.Dy()))
	_, _, _, a := img.At(0, 0).RGBA()
	require.Zero(t, a, "background is transparent")
	r, g, _, a := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	require.NotZero(t, a, "the box is drawn")
	require.Greater(t, r, 2*g, "in its material's red")
}

func TestUploadedGLTFWithSiblingFilesIsPacked(t *testing.T) {
	js, bin := gltfWithURI(t, "box%20data.bin")
	m, err := PrepareUploadedModel([]ModelFile{{Name: "box.gltf", Data: js}, {Name: "box data.bin", Data: bin}}, 0.5)
	require.NoError(t, err)
	require.Equal(t, "glTF", string(m.GLB[:4]), "packed as one GLB")
	require.NotContains(t, string(m.GLB), "box data.bin", "no external reference left")
	gltfvalidate.Validate(t, m.GLB)

	// An embedded data: buffer is fine too.
	js, _ = gltfWithURI(t, "data:application/octet-stream;base64,"+base64.StdEncoding.EncodeToString(bin))
	_, err = PrepareUploadedModel([]ModelFile{{Name: "box.gltf", Data: js}}, 0)
	require.NoError(t, err)
}

func TestUploadedModelRefusals(t *testing.T) {
	doc, _ := boxDoc(t)
	glb := encodeDoc(t, doc, true)
	js := func(uri string) []byte { j, _ := gltfWithURI(t, uri); return j }
	_, bin := gltfWithURI(t, "x.bin")
	forged := func(mut func(d *gltf.Document)) []byte {
		d, _ := boxDoc(t)
		mut(d)
		return encodeDoc(t, d, true)
	}
	cases := []struct {
		name  string
		files []ModelFile
		code  string
	}{
		{"corrupt bytes", []ModelFile{{Name: "m.glb", Data: []byte("this is not a model at all, sorry")}}, "model_corrupt"},
		{"truncated glb", []ModelFile{{Name: "m.glb", Data: glb[:len(glb)-40]}}, "model_corrupt"},
		{"json garbage", []ModelFile{{Name: "m.gltf", Data: []byte(`{"asset":{"version":"2.0"},"buffers":[`)}}, "model_corrupt"},
		{"oversized", []ModelFile{{Name: "m.glb", Data: make([]byte, MaxModelUploadBytes+1)}}, "model_too_large"},
		{"missing buffer", []ModelFile{{Name: "m.gltf", Data: js("box.bin")}}, "model_missing_file"},
		{"path traversal", []ModelFile{{Name: "m.gltf", Data: js("../x.bin")}, {Name: "x.bin", Data: bin}}, "model_bad_uri"},
		{"encoded traversal", []ModelFile{{Name: "m.gltf", Data: js("%2e%2e%2fx.bin")}, {Name: "x.bin", Data: bin}}, "model_bad_uri"},
		{"absolute path", []ModelFile{{Name: "m.gltf", Data: js("/etc/passwd")}}, "model_bad_uri"},
		{"subfolder", []ModelFile{{Name: "m.gltf", Data: js("sub/x.bin")}, {Name: "x.bin", Data: bin}}, "model_bad_uri"},
		{"http uri", []ModelFile{{Name: "m.gltf", Data: js("http://169.254.169.254/x.bin")}}, "model_external_uri"},
		{"file uri", []ModelFile{{Name: "m.gltf", Data: js("file:///etc/passwd")}}, "model_external_uri"},
		{"data uri of another kind", []ModelFile{{Name: "m.gltf", Data: js("data:text/html;base64,PGgxPg==")}}, "model_bad_uri"},
		{"hostile file name", []ModelFile{{Name: "m.gltf", Data: js("x.bin")}, {Name: "../x.bin", Data: bin}}, "model_bad_name"},
		{"two models", []ModelFile{{Name: "a.glb", Data: glb}, {Name: "b.glb", Data: glb}}, "model_files"},
		{"glb with extra files", []ModelFile{{Name: "a.glb", Data: glb}, {Name: "x.bin", Data: bin}}, "model_files"},
		{"no model", []ModelFile{{Name: "x.bin", Data: bin}}, "model_files"},
		{"huge count", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) { d.Accessors[0].Count = 1 << 30 })}}, "model_corrupt"},
		{"accessor past its view", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) { d.Accessors[0].Count = 9 })}}, "model_corrupt"},
		{"view past its buffer", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) { d.BufferViews[1].ByteLength = 4000 })}}, "model_corrupt"},
		{"index out of range", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) {
			d.Buffers[0].Data[96] = 200
		})}}, "model_corrupt"},
		{"missing mesh", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) { d.Nodes[0].Mesh = gltf.Index(7) })}}, "model_corrupt"},
		{"node cycle", []ModelFile{{Name: "m.glb", Data: forged(func(d *gltf.Document) { d.Nodes[0].Children = []int{0} })}}, "model_corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := PrepareUploadedModel(c.files, 0)
			require.Nil(t, m)
			requireModelError(t, err, c.code)
			require.False(t, strings.Contains(err.Error(), "/etc/passwd\n"))
		})
	}
}

// TestUploadedModelThumbnailShowsTexture: a textured model's thumbnail is
// painted from its texture (a green body under a red cap), not a flat tone.
func TestUploadedModelThumbnailShowsTexture(t *testing.T) {
	res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, twoToneBottle(240, 320).render()), Options{}, nil)
	require.NoError(t, err)
	m, err := PrepareUploadedModel([]ModelFile{{Name: "bottle.glb", Data: res.GLB}}, 0)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(m.Thumbnail))
	require.NoError(t, err)
	b := img.Bounds()
	r, g, _, a := img.At(b.Dx()/2, b.Dy()*3/4).RGBA()
	require.NotZero(t, a)
	require.Greater(t, g, r+r/2, "the body is green")
	r, g, _, _ = img.At(b.Dx()/2, b.Dy()/20).RGBA()
	require.Greater(t, r, g+g/2, "the cap is red")
}
