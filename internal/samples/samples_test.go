package samples

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/gltfvalidate"
)

// Budgets from the brief: small enough for the demo page to load quickly and for the
// repository to carry.
const (
	maxTriangles  = 30000
	maxMeshBytes  = 500 << 10
	maxTotalBytes = 2 << 20
)

// generated runs the generator once for all tests that only read its output; it is
// the expensive step (six renders).
var generated = sync.OnceValues(func() (map[string][]byte, error) {
	files, _, err := Files(DefaultBaseURL)
	return files, err
})

func generatedFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := generated()
	require.NoError(t, err)
	return files
}

func TestSamplesPassTheKhronosValidator(t *testing.T) {
	t.Parallel()
	files := generatedFiles(t)
	for _, id := range IDs() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			glb := files[id+"/"+MeshFile]
			require.LessOrEqual(t, len(glb), maxMeshBytes, "mesh size")
			rep := gltfvalidate.Validate(t, glb)
			require.Zero(t, rep.NumErrors)
			require.Zero(t, rep.NumWarnings, "%+v", rep.Warnings)
		})
	}
}

func TestSampleMeshesAreClosedOutwardAndOnTheOrigin(t *testing.T) {
	t.Parallel()
	for _, s := range catalogue() {
		t.Run(s.id, func(t *testing.T) {
			t.Parallel()
			m := s.model()
			require.LessOrEqual(t, m.triangles(), maxTriangles)
			require.NotEmpty(t, m.parts)
			lo := vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			names := map[string]bool{}
			for _, p := range m.parts {
				require.NotEmpty(t, p.name)
				require.False(t, names[p.name], "duplicate part name %s", p.name)
				names[p.name] = true
				var all []*mesh
				for _, pc := range p.pieces {
					all = append(all, pc.mesh)
					l, h := pc.mesh.bounds()
					for c := range 3 {
						lo[c], hi[c] = min(lo[c], l[c]), max(hi[c], h[c])
					}
				}
				requireClosedOutward(t, p.name, merge(all...))
			}
			require.InDelta(t, 0, lo[1], 1e-9, "stands on y = 0")
			require.InDelta(t, 0, (lo[0]+hi[0])/2, 1e-9, "centred in x")
			require.InDelta(t, 0, (lo[2]+hi[2])/2, 1e-9, "centred in z")
		})
	}
}

// requireClosedOutward checks the surface as it is written (float32 positions, welded
// where they coincide): every edge is walked once in each direction, which is exactly
// "closed and consistently oriented" even where separate closed pieces touch; the
// enclosed volume is positive (faces point outwards); no triangle is degenerate; and
// every vertex normal leans the same way as the triangles that use it.
func requireClosedOutward(t *testing.T, name string, m *mesh) {
	t.Helper()
	weld := map[[3]float32]int{}
	ids := make([]int, len(m.pos))
	for i, p := range m.pos {
		k := [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
		id, ok := weld[k]
		if !ok {
			id = len(weld)
			weld[k] = id
		}
		ids[i] = id
	}
	balance := map[[2]int]int{}
	volume := 0.0
	for i := 0; i+2 < len(m.idx); i += 3 {
		v := [3]uint32{m.idx[i], m.idx[i+1], m.idx[i+2]}
		a, b, c := ids[v[0]], ids[v[1]], ids[v[2]]
		require.True(t, a != b && b != c && a != c, "%s: degenerate triangle %d", name, i/3)
		for _, e := range [3][2]int{{a, b}, {b, c}, {c, a}} {
			if e[0] < e[1] {
				balance[e]++
			} else {
				balance[[2]int{e[1], e[0]}]--
			}
		}
		p0, p1, p2 := m.pos[v[0]], m.pos[v[1]], m.pos[v[2]]
		fn := p1.sub(p0).cross(p2.sub(p0))
		require.Greater(t, fn.length(), 0.0, "%s: zero-area triangle %d", name, i/3)
		volume += p0.dot(p1.cross(p2)) / 6
		for _, k := range v {
			require.Greater(t, m.nrm[k].dot(fn), 0.0, "%s: vertex normal against triangle %d", name, i/3)
			require.InDelta(t, 1, m.nrm[k].length(), 1e-9, "%s: normal length", name)
		}
	}
	for e, n := range balance {
		require.Zero(t, n, "%s: edge %v is not matched by an edge in the other direction", name, e)
	}
	require.Greater(t, volume, 0.0, "%s: faces point inwards", name)
}

func TestPrimitivesAreClosedAndOutward(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]*mesh{
		"box":                  box(0.3, 0.2, 0.1),
		"tapered box":          taperedBox(0.05, 0.05, 0.08, 0.06, 0.4),
		"rounded box":          roundedBox(vec3{1, 0.2, 0.5}, 0.05, 3),
		"pillow (r = half)":    roundedBox(vec3{0.6, 0.14, 0.4}, 0.07, 4),
		"cube (r = all)":       roundedBox(vec3{0.2, 0.2, 0.2}, 0.1, 4),
		"sphere":               sphere(0.5, 16, 8),
		"ellipsoid":            ellipsoid(vec3{1, 2, 3}, vec3{0.1, 0.3, 0.2}, 16, 8),
		"cylinder":             cylinder(0.1, 0.5, 12),
		"cone":                 frustum(0.1, 0, 0.2, 12),
		"capsule":              capsule(vec3{0, 0, 0}, vec3{0.3, -0.2, 0.1}, 0.02, 12),
		"torus":                torus(0.2, 0.05, 24, 12),
		"mirrored":             sphere(0.5, 16, 8).transform(scaling(-1, 1, 1), vec3{}),
		"banded ellipsoid":     merge(must(bandedEllipsoid(0.07, 0.05, []float64{-1, -0.2, 0.5, 1}, []int{0, 1, 0}, 16))...),
		"turned and stretched": cylinder(0.1, 0.5, 12).transform(rotX(30).mul(scaling(2, 1, 0.5)), vec3{1, 2, 3}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			requireClosedOutward(t, name, m)
		})
	}
}

func must(ms []*mesh, _ []int) []*mesh { return ms }

func TestExplodedBedHasTheExplodeAnimation(t *testing.T) {
	t.Parallel()
	files := generatedFiles(t)
	decode := func(id string) *gltf.Document {
		doc := new(gltf.Document)
		require.NoError(t, gltf.NewDecoder(bytes.NewReader(files[id+"/"+MeshFile])).Decode(doc))
		return doc
	}
	doc := decode("exploded-bed")
	require.Len(t, doc.Animations, 1)
	anim := doc.Animations[0]
	require.Equal(t, ExplodeAnimation, anim.Name)
	moved := map[string]bool{}
	for _, ch := range anim.Channels {
		require.Equal(t, gltf.TRSTranslation, ch.Target.Path)
		node := doc.Nodes[*ch.Target.Node]
		moved[node.Name] = true
		// At rest the part stands where the animation ends: the exploded view.
		require.NotEqual(t, [3]float64{}, node.Translation, node.Name)
	}
	for _, part := range []string{"Mattress", "Headboard", "Blanket", "Pillow_Left", "Pillow_Right", "Leg_FrontLeft"} {
		require.True(t, moved[part], "%s moves in the exploded view", part)
	}

	// The assembled bed has the same parts, in place and still.
	bed := decode("bed")
	require.Empty(t, bed.Animations)
	require.Equal(t, len(doc.Nodes), len(bed.Nodes))
	for i, n := range bed.Nodes[1:] { // after the root node, named after the model
		require.Equal(t, doc.Nodes[i+1].Name, n.Name)
		require.Equal(t, [3]float64{}, n.Translation, n.Name)
	}
}

func TestBedHasTheNamedParts(t *testing.T) {
	t.Parallel()
	var names []string
	for _, p := range bed(false).parts {
		names = append(names, p.name)
	}
	require.Subset(t, names, []string{"Frame", "Leg_FrontLeft", "Leg_FrontRight", "Leg_BackLeft", "Leg_BackRight",
		"Mattress", "Headboard", "Pillow_Left", "Pillow_Right", "Blanket"})
}

func TestWingsAreTranslucent(t *testing.T) {
	t.Parallel()
	doc := new(gltf.Document)
	require.NoError(t, gltf.NewDecoder(bytes.NewReader(generatedFiles(t)["bumblee/"+MeshFile])).Decode(doc))
	blended := 0
	for _, mt := range doc.Materials {
		if mt.AlphaMode == gltf.AlphaBlend {
			blended++
			require.Less(t, mt.PBRMetallicRoughness.BaseColorFactor[3], 1.0)
		}
	}
	require.Equal(t, 1, blended)
}

func TestIndexListsEverySampleWithItsDisplayName(t *testing.T) {
	t.Parallel()
	var index []IndexEntry
	require.NoError(t, json.Unmarshal(generatedFiles(t)[IndexFile], &index))
	require.Equal(t, []IndexEntry{
		{"bed", "Bed", "/demo/bed/model.glb", "/demo/bed/reference.png"},
		{"exploded-bed", "Exploded Bed", "/demo/exploded-bed/model.glb", "/demo/exploded-bed/reference.png"},
		{"table", "Table", "/demo/table/model.glb", "/demo/table/reference.png"},
		{"wallbed", "Wallbed", "/demo/wallbed/model.glb", "/demo/wallbed/reference.png"},
		{"puffin", "Puffin", "/demo/puffin/model.glb", "/demo/puffin/reference.png"},
		{"bumblee", "Bumblee", "/demo/bumblee/model.glb", "/demo/bumblee/reference.png"},
	}, index)
}

func TestDisplayName(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"bed":           "Bed",
		"exploded-bed":  "Exploded Bed",
		"my_demo-chair": "My Demo Chair",
		"--odd__id-":    "Odd Id",
	} {
		require.Equal(t, want, DisplayName(id), id)
	}
}

func TestReferenceImagesShowTheModel(t *testing.T) {
	t.Parallel()
	files := generatedFiles(t)
	total := 0
	for _, data := range files {
		total += len(data)
	}
	require.Less(t, total, maxTotalBytes, "all samples together")
	for _, id := range IDs() {
		img, err := png.Decode(bytes.NewReader(files[id+"/"+ImageFile]))
		require.NoError(t, err, id)
		require.Equal(t, image.Rect(0, 0, imageW, imageH), img.Bounds(), id)
		// The backdrop is near-white grey; count clearly different pixels.
		model := 0
		for y := 0; y < imageH; y += 4 {
			for x := 0; x < imageW; x += 4 {
				r, g, b, _ := img.At(x, y).RGBA()
				if max(r, g, b)-min(r, g, b) > 0x2000 || max(r, g, b) < 0x9000 {
					model++
				}
			}
		}
		share := float64(model) / float64(imageW/4*imageH/4)
		require.Greater(t, share, 0.08, "%s: the model fills part of the frame", id)
		require.Less(t, share, 0.8, "%s: the model fits in the frame", id)
	}
}

func TestGenerationIsDeterministic(t *testing.T) {
	t.Parallel()
	again, _, err := Files(DefaultBaseURL)
	require.NoError(t, err)
	first := generatedFiles(t)
	require.Equal(t, len(first), len(again))
	for name, data := range first {
		require.True(t, bytes.Equal(data, again[name]), "%s differs between runs", name)
	}
}

// TestCommittedSamplesAreUpToDate holds web/public/demo to the generator, so nobody
// edits a sample by hand and a change to the generator ships with its output. Run
// `go run ./cmd/worker samples` to update them. Meshes and index.json must match byte
// for byte; PNGs are compared by pixels, because the deflate stream image/png writes
// is not covered by Go's compatibility promise and may change with a Go release.
func TestCommittedSamplesAreUpToDate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(repoRoot(t), "web", "public", "demo")
	want := generatedFiles(t)
	var committed []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		committed = append(committed, filepath.ToSlash(rel))
		return nil
	})
	require.NoError(t, err, "read %s (run `go run ./cmd/worker samples`)", dir)
	var names []string
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	sort.Strings(committed)
	require.Equal(t, names, committed, "files in %s", dir)
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		if filepath.Ext(name) == ".png" {
			requireSamePixels(t, name, want[name], got)
			continue
		}
		require.True(t, bytes.Equal(want[name], got), "%s is stale: run `go run ./cmd/worker samples`", name)
	}
}

func requireSamePixels(t *testing.T, name string, want, got []byte) {
	t.Helper()
	a, err := png.Decode(bytes.NewReader(want))
	require.NoError(t, err, name)
	b, err := png.Decode(bytes.NewReader(got))
	require.NoError(t, err, name)
	require.Equal(t, a.Bounds(), b.Bounds(), name)
	ra, ok := a.(*image.RGBA)
	require.True(t, ok, "%s: generator writes RGBA", name)
	// Committed files decode to whatever colour model PNG chose; compare as RGBA.
	rb := image.NewRGBA(b.Bounds())
	for y := b.Bounds().Min.Y; y < b.Bounds().Max.Y; y++ {
		for x := b.Bounds().Min.X; x < b.Bounds().Max.X; x++ {
			rb.Set(x, y, b.At(x, y))
		}
	}
	require.True(t, bytes.Equal(ra.Pix, rb.Pix), "%s is stale: run `go run ./cmd/worker samples`", name)
}

// repoRoot is the folder holding go.mod above the test's working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			require.NoError(t, err)
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the working directory")
		dir = parent
	}
}
