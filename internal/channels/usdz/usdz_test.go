package usdz_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// photo is a small product photo: a tan vase on white, enough for the
// built-in reconstructor to make a textured model.
func photo(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 200, 260))
	for y := range 260 {
		for x := range 200 {
			c := color.RGBA{250, 250, 250, 255}
			dx, dy := float64(x-100)/(55+20*math.Sin(float64(y)/40)), float64(y-130)/110
			if dx*dx+dy*dy < 1 {
				c = color.RGBA{uint8(150 + y/4), 100, 60, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func rootLayer(t *testing.T, pkg []byte) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	require.NoError(t, err)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b)
}

// A model from the real reconstructor (texture atlas, normals, UVs, part
// nodes) becomes a package that passes every structural rule, whose layer
// names the texture it carries, with as many triangles as the GLB.
func TestReconstructedModelBecomesAValidPackage(t *testing.T) {
	t.Parallel()
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), photo(t), reconstruct.Options{HeightMetres: 0.3}, nil)
	require.NoError(t, err)
	pkg, err := usdz.FromGLB(res.GLB)
	require.NoError(t, err)
	rep, err := usdz.Check(pkg)
	require.NoError(t, err)
	require.Equal(t, usdz.RootLayer, rep.Entries[0])
	require.Equal(t, 1, rep.Textures)
	require.Equal(t, res.Stats.Triangles, rep.Triangles)
	require.Equal(t, len(res.Parts), rep.Meshes)
	layer := rootLayer(t, pkg)
	require.Contains(t, layer, `asset inputs:file = @textures/image0.jpg@`)
	require.Contains(t, layer, `texCoord2f[] primvars:st = [`)
	require.Contains(t, layer, `normal3f[] normals = [`)
	require.Contains(t, layer, "metersPerUnit = 1\n")
	require.Contains(t, layer, "upAxis = \"Y\"\n")
	// Real-world scale: the model stands 0.3 m tall in the package too.
	ext := regexp.MustCompile(`float3\[\] extent = \[\(([^)]*)\), \(([^)]*)\)\]`).FindAllStringSubmatch(layer, -1)
	require.NotEmpty(t, ext)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range ext {
		y0, _ := strconv.ParseFloat(strings.Split(e[1], ", ")[1], 64)
		y1, _ := strconv.ParseFloat(strings.Split(e[2], ", ")[1], 64)
		lo, hi = math.Min(lo, y0), math.Max(hi, y1)
	}
	require.InDelta(t, 0.3, hi-lo, 0.01)
}

// The variant's colours: the AR GLB of a matte-black variant gives a
// package whose materials are matte black (linear factors, as glTF).
func TestVariantColoursReachThePackage(t *testing.T) {
	t.Parallel()
	ar, err := glbvariants.AR(glbtest.Model(t), glbvariants.Variant{ID: "v2", Material: "matte-black"})
	require.NoError(t, err)
	pkg, err := usdz.FromGLB(ar)
	require.NoError(t, err)
	rep, err := usdz.Check(pkg)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Meshes)
	require.Equal(t, 2, rep.Triangles)
	layer := rootLayer(t, pkg)
	require.Contains(t, layer, `color3f inputs:diffuseColor = (0.02, 0.02, 0.02)`)
	require.Contains(t, layer, `float inputs:roughness = 0.9`)
	require.NotContains(t, layer, `(0.8, 0.2, 0.1)`, "the model's own colour is not what the shopper picked")
	require.Contains(t, layer, `def Mesh "Seat"`)
	require.Contains(t, layer, `def Mesh "Legs"`)
}

// Node transforms are baked: a child node translated 2 m up under a parent
// scaled ×0.5 puts its triangle at y = 1 .. 1.5, and a mirrored node keeps
// its faces facing out (winding flipped).
func TestNodeTransformsAreBakedIntoPoints(t *testing.T) {
	t.Parallel()
	doc := gltf.NewDocument()
	pos := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	doc.Meshes = []*gltf.Mesh{{Name: "Tri", Primitives: []*gltf.Primitive{{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}}}}}
	doc.Nodes = []*gltf.Node{
		{Name: "Parent", Scale: [3]float64{0.5, 0.5, 0.5}, Children: []int{1, 2}},
		{Name: "Child", Translation: [3]float64{0, 2, 0}, Mesh: gltf.Index(0)},
		{Name: "Mirror", Scale: [3]float64{-1, 1, 1}, Mesh: gltf.Index(0)},
	}
	doc.Scenes[0].Nodes = []int{0}
	var glb bytes.Buffer
	enc := gltf.NewEncoder(&glb)
	enc.AsBinary = true
	require.NoError(t, enc.Encode(doc))
	pkg, err := usdz.FromGLB(glb.Bytes())
	require.NoError(t, err)
	_, err = usdz.Check(pkg)
	require.NoError(t, err)
	layer := rootLayer(t, pkg)
	require.Contains(t, layer, `point3f[] points = [(0, 1, 0), (0.5, 1, 0), (0, 1.5, 0)]`)
	require.Contains(t, layer, `def Mesh "Tri_2"`, "unique prim names")
	require.Contains(t, layer, `point3f[] points = [(0, 0, 0), (-0.5, 0, 0), (0, 0.5, 0)]`)
	require.Contains(t, layer, `int[] faceVertexIndices = [0, 2, 1]`, "mirrored: winding flipped")
	require.Contains(t, layer, `def Material "Default"`)
}

func TestNotAModelIsRefused(t *testing.T) {
	t.Parallel()
	for _, in := range [][]byte{nil, []byte("glTF"), []byte("PK\x03\x04 not a glb")} {
		_, err := usdz.FromGLB(in)
		require.ErrorIs(t, err, usdz.ErrNotConvertible)
	}
}

// Check is the validator of the rules above: each broken rule is caught.
func TestCheckCatchesBrokenPackages(t *testing.T) {
	t.Parallel()
	ar, err := glbvariants.AR(glbtest.Model(t), glbvariants.Variant{ID: "v1", Material: glbvariants.Original})
	require.NoError(t, err)
	good, err := usdz.FromGLB(ar)
	require.NoError(t, err)
	_, err = usdz.Check(good)
	require.NoError(t, err)

	// Every entry's data is 64-byte aligned in what we write.
	zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
	require.NoError(t, err)
	for _, f := range zr.File {
		off, err := f.DataOffset()
		require.NoError(t, err)
		require.Zero(t, off%64, f.Name)
		require.Equal(t, zip.Store, f.Method)
	}

	rezip := func(method uint16, layer func(string) string, extra ...[2]string) []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		files := append([][2]string{{"model.usda", layer(rootLayer(t, good))}}, extra...)
		for _, f := range files {
			fw, err := w.CreateHeader(&zip.FileHeader{Name: f[0], Method: method})
			require.NoError(t, err)
			_, _ = fw.Write([]byte(f[1]))
		}
		require.NoError(t, w.Close())
		return b.Bytes()
	}
	same := func(s string) string { return s }
	for name, tc := range map[string]struct {
		pkg  []byte
		want string
	}{
		"deflated":        {rezip(zip.Deflate, same), "compressed"},
		"data descriptor": {rezip(zip.Store, same), "data descriptor"},
		"not a zip":       {[]byte("#usda 1.0"), "not a zip"},
	} {
		_, err := usdz.Check(tc.pkg)
		require.ErrorContains(t, err, tc.want, name)
	}

	// Layer rules, on otherwise well-formed packages (rebuilt with our writer's layout).
	for name, tc := range map[string]struct {
		edit func(string) string
		want string
	}{
		"z up":       {func(s string) string { return strings.Replace(s, `upAxis = "Y"`, `upAxis = "Z"`, 1) }, "upAxis"},
		"no scale":   {func(s string) string { return strings.Replace(s, "metersPerUnit = 1\n", "", 1) }, "metersPerUnit"},
		"no surface": {func(s string) string { return strings.ReplaceAll(s, `"UsdPreviewSurface"`, `"UsdSomething"`) }, "UsdPreviewSurface"},
		"bad index": {func(s string) string {
			return strings.Replace(s, "faceVertexIndices = [0, 1, 2]", "faceVertexIndices = [0, 1, 7]", 1)
		}, "outside"},
		"missing asset":  {func(s string) string { return s + "\nasset x = @textures/missing.png@\n" }, "not in the package"},
		"unbalanced":     {func(s string) string { return s + "{" }, "unbalanced"},
		"no defaultPrim": {func(s string) string { return strings.Replace(s, `defaultPrim = "Root"`, `defaultPrim = "Nope"`, 1) }, "not defined"},
	} {
		pkg := usdzWithLayer(t, tc.edit(rootLayer(t, good)))
		_, err := usdz.Check(pkg)
		require.ErrorContains(t, err, tc.want, name)
	}

	// A misaligned entry: shift the layer's data by one byte.
	bad := bytes.Clone(good)
	require.Equal(t, uint32(0x04034b50), binary.LittleEndian.Uint32(bad))
	extraLen := binary.LittleEndian.Uint16(bad[28:])
	binary.LittleEndian.PutUint16(bad[28:], extraLen-1) // the data now seems to start one byte earlier
	_, err = usdz.Check(bad)
	require.Error(t, err)
}

// usdzWithLayer packs a layer alone with the package writer's layout.
func usdzWithLayer(t *testing.T, layer string) []byte {
	t.Helper()
	pkg, err := usdz.Pack([]usdz.File{{Name: usdz.RootLayer, Data: []byte(layer)}})
	require.NoError(t, err)
	return pkg
}
