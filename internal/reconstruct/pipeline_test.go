package reconstruct

import (
	"context"
	"encoding/json"
	"image"
	"math"
	"sync"
	"testing"

	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// progressLog records progress callbacks (safe for the reconstructor's goroutine).
type progressLog struct {
	mu    sync.Mutex
	steps []Step
	pct   []int
}

func (p *progressLog) fn(step Step, pct int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, step)
	p.pct = append(p.pct, pct)
}

func (p *progressLog) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.pct)
	require.Equal(t, 0, p.pct[0])
	require.Equal(t, 100, p.pct[len(p.pct)-1])
	for i := 1; i < len(p.pct); i++ {
		require.GreaterOrEqual(t, p.pct[i], p.pct[i-1], "progress must not go backwards")
	}
	ranges := map[Step][2]int{
		StepAnalyzing: {0, 25}, StepDeconstructing: {25, 50}, StepAssembling: {50, 75}, StepFinalizing: {75, 100},
	}
	seen := map[Step]bool{}
	for i, s := range p.steps {
		r, ok := ranges[s]
		require.True(t, ok, "unknown step %q", s)
		require.GreaterOrEqual(t, p.pct[i], r[0])
		require.LessOrEqual(t, p.pct[i], r[1])
		seen[s] = true
	}
	require.Len(t, seen, 4)
}

// requireClosedMeshes checks every part mesh: edges welded by position are each
// shared by exactly two triangles with opposite directions (watertight and
// consistently oriented), the enclosed volume is positive (normals face outwards),
// and nothing is NaN.
func requireClosedMeshes(t *testing.T, g *decodedGLB) {
	t.Helper()
	for _, p := range g.parts {
		ids := map[[3]float32]int{}
		weld := make([]int, len(p.pos))
		for i, v := range p.pos {
			for c := range 3 {
				require.False(t, math.IsNaN(float64(v[c])) || math.IsInf(float64(v[c]), 0), "position %d of %s", i, p.name)
				require.False(t, math.IsNaN(float64(p.nrm[i][c])), "normal %d of %s", i, p.name)
			}
			id, ok := ids[v]
			if !ok {
				id = len(ids)
				ids[v] = id
			}
			weld[i] = id
		}
		edges := map[[2]int]int{}
		vol := 0.0
		for k := 0; k+2 < len(p.idx); k += 3 {
			a, b, c := weld[p.idx[k]], weld[p.idx[k+1]], weld[p.idx[k+2]]
			require.True(t, a != b && b != c && a != c, "degenerate triangle in %s", p.name)
			edges[[2]int{a, b}]++
			edges[[2]int{b, c}]++
			edges[[2]int{c, a}]++
			pa, pb, pc := p.pos[p.idx[k]], p.pos[p.idx[k+1]], p.pos[p.idx[k+2]]
			vol += float64(pa[0])*(float64(pb[1])*float64(pc[2])-float64(pb[2])*float64(pc[1])) -
				float64(pa[1])*(float64(pb[0])*float64(pc[2])-float64(pb[2])*float64(pc[0])) +
				float64(pa[2])*(float64(pb[0])*float64(pc[1])-float64(pb[1])*float64(pc[0]))
		}
		bad := 0
		for e, n := range edges {
			if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
				bad++
			}
		}
		require.Zero(t, bad, "part %s: %d of %d directed edges are not matched exactly once", p.name, bad, len(edges))
		require.Positive(t, vol, "part %s must enclose positive volume (outward normals)", p.name)
	}
}

// requireProductGLB checks the product conventions every model must follow.
func requireProductGLB(t *testing.T, glb []byte, height float64, generatorPrefix string) *decodedGLB {
	t.Helper()
	rep := gltfvalidate.Validate(t, glb)
	require.Zero(t, rep.NumWarnings, "validator warnings: %+v", rep.Warnings)
	require.Zero(t, rep.NumInfos, "validator notes")
	g := readGLB(t, glb)
	require.Contains(t, g.doc.Asset.Generator, generatorPrefix)
	var explode bool
	for _, a := range g.doc.Animations {
		if a.Name == glbio.ExplodeAnimation {
			explode = true
			require.NotEmpty(t, a.Channels)
			for _, c := range a.Channels {
				require.Equal(t, "translation", string(c.Target.Path))
			}
		}
	}
	require.True(t, explode, "Explode animation")
	require.Contains(t, g.doc.ExtensionsUsed, glbio.ExtVariants)
	raw, err := json.Marshal(g.doc.Extensions[glbio.ExtVariants])
	require.NoError(t, err)
	var ext struct {
		Variants []struct{ Name string } `json:"variants"`
	}
	require.NoError(t, json.Unmarshal(raw, &ext))
	var names []string
	for _, v := range ext.Variants {
		names = append(names, v.Name)
	}
	require.Equal(t, []string{"Original", "matte-black", "snow-white", "leather-tan", "fabric-grey"}, names)
	return g
}

// worldBounds returns bounds of the builtin's part meshes (their nodes have no
// transform at rest).
func worldBounds(g *decodedGLB) (lo, hi [3]float64) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range g.parts {
		for _, v := range p.pos {
			for c := range 3 {
				lo[c] = min(lo[c], float64(v[c]))
				hi[c] = max(hi[c], float64(v[c]))
			}
		}
	}
	return lo, hi
}

func TestBuiltinReconstructs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		scene  scene
		jpeg   bool
		shape  string
		parts  int
		height float64
		names  []string
	}{
		{name: "bottle on white", scene: bottleScene(512, 512, solid(250, 250, 250), true), shape: shape.KindLathe, parts: 1, names: []string{"Body"}},
		{name: "two-tone bottle", scene: twoToneBottle(512, 512), jpeg: true, shape: shape.KindLathe, parts: 2, height: 0.42, names: []string{"Body", "Cap"}},
		{name: "rectangle on blue", scene: rectScene(480, 400), shape: shape.KindInflate, parts: 1}, // square on: a flat good (shape/depthprior.go)
		{name: "blob on blue", scene: blobScene(480, 400, solid(40, 70, 200)), jpeg: true, shape: shape.KindInflate, parts: 1},
		{name: "two-tone blob", scene: twoToneBlob(480, 400), shape: shape.KindInflate, parts: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img := tc.scene.render()
			data := encodePNGBytes(t, img)
			if tc.jpeg {
				data = encodeJPEGBytes(t, img)
			}
			var pl progressLog
			res, err := NewBuiltin().Reconstruct(context.Background(), data, Options{HeightMetres: tc.height}, pl.fn)
			require.NoError(t, err)
			pl.check(t)
			require.Equal(t, tc.shape, res.Stats.ShapeKind)
			require.Len(t, res.Parts, tc.parts)
			require.Equal(t, tc.parts, res.Stats.Parts)
			for i, n := range tc.names {
				require.Equal(t, n, res.Parts[i].Name)
			}
			share := 0.0
			for _, p := range res.Parts {
				require.Regexp(t, `^#[0-9a-f]{6}$`, p.Color)
				share += p.Share
			}
			require.InDelta(t, 1, share, 0.01)
			require.Equal(t, len(res.GLB), res.Stats.Bytes)
			require.LessOrEqual(t, res.Stats.Triangles, DefaultMaxTriangles)
			for _, k := range []string{StageAnalyze, StageDeconstruct, StageAssemble, StageFinalize} {
				require.Contains(t, res.Stats.StepMillis, k)
			}
			g := requireProductGLB(t, res.GLB, 0, "Photo3D builtin "+Version)
			require.Len(t, g.parts, tc.parts, "one mesh node per part")
			requireClosedMeshes(t, g)
			want := tc.height
			if want == 0 {
				want = DefaultHeightMetres
			}
			lo, hi := worldBounds(g)
			require.InDelta(t, want, hi[1]-lo[1], 1e-4, "height")
			require.InDelta(t, 0, lo[1], 1e-5, "base at y=0")
			require.InDelta(t, 0, (lo[0]+hi[0])/2, 1e-4, "centred on x")
			require.InDelta(t, 0, (lo[2]+hi[2])/2, 1e-4, "centred on z")
			require.Positive(t, hi[2]-lo[2], "has depth")
			thumb, _, err := image.DecodeConfig(bytesReader(res.Thumbnail))
			require.NoError(t, err)
			require.LessOrEqual(t, max(thumb.Width, thumb.Height), glbio.ThumbnailSize)
			_, _, err = image.DecodeConfig(bytesReader(res.Mask))
			require.NoError(t, err)
			_, _, err = image.DecodeConfig(bytesReader(res.PartsMap))
			require.NoError(t, err)
			renderViews(t, g, "test-"+tc.name)
		})
	}
}

func TestBuiltinRespectsTriangleCap(t *testing.T) {
	t.Parallel()
	for _, sc := range []scene{twoToneBottle(400, 400), twoToneBlob(400, 320)} {
		res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, sc.render()), Options{MaxTriangles: 2500}, nil)
		require.NoError(t, err)
		require.LessOrEqual(t, res.Stats.Triangles, 2500)
		g := readGLB(t, res.GLB)
		requireClosedMeshes(t, g)
	}
}

func TestBuiltinUsesAlphaChannel(t *testing.T) {
	t.Parallel()
	sc := bottleScene(360, 360, solid(0, 0, 0), false)
	truth := sc.truth()
	img := sc.render()
	for i, in := range truth {
		if !in {
			img.Pix[4*i+3] = 0
		}
	}
	res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, img), Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, shape.KindLathe, res.Stats.ShapeKind)
	requireProductGLB(t, res.GLB, 0, "Photo3D builtin")
	mask, _, err := image.Decode(bytesReader(res.Mask))
	require.NoError(t, err)
	got := make([]bool, len(truth))
	gray := mask.(*image.Gray)
	for i := range got {
		got[i] = gray.Pix[i] >= 128
	}
	require.GreaterOrEqual(t, iou(got, truth), 0.99)
}

func TestBuiltinIsDeterministic(t *testing.T) {
	t.Parallel()
	data := encodePNGBytes(t, twoToneBlob(320, 240).render())
	a, err := NewBuiltin().Reconstruct(context.Background(), data, Options{}, nil)
	require.NoError(t, err)
	b, err := NewBuiltin().Reconstruct(context.Background(), data, Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, a.GLB, b.GLB)
	require.Equal(t, a.Parts, b.Parts)
}

func TestBuiltinRejectsInvalidInput(t *testing.T) {
	t.Parallel()
	_, err := NewBuiltin().Reconstruct(context.Background(), []byte("this is a text file, not a photo"), Options{}, nil)
	require.ErrorIs(t, err, imagecheck.ErrInvalidType)
	_, err = NewBuiltin().Reconstruct(context.Background(), []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H'}, Options{}, nil)
	require.ErrorIs(t, err, imagecheck.ErrUnreadable)
	_, err = RemoveBackground(context.Background(), []byte("GIF89a"))
	require.ErrorIs(t, err, imagecheck.ErrInvalidType)
}

func TestBuiltinStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	data := encodePNGBytes(t, twoToneBlob(480, 360).render())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewBuiltin().Reconstruct(ctx, data, Options{}, nil)
	require.ErrorIs(t, err, context.Canceled)

	for _, at := range []Step{StepDeconstructing, StepAssembling, StepFinalizing} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err = NewBuiltin().Reconstruct(ctx, data, Options{}, func(s Step, _ int) {
			if s == at {
				cancel()
			}
		})
		// Cancellation must win over finishing the model; how fast is for benchmarks
		// (a wall-clock bound here failed on a loaded CI machine under -race).
		require.ErrorIs(t, err, context.Canceled, "cancelled at %s", at)
		cancel()
	}
}

func TestRemoveBackground(t *testing.T) {
	t.Parallel()
	sc := blobScene(320, 240, solid(250, 250, 250))
	out, err := RemoveBackground(context.Background(), encodePNGBytes(t, sc.render()))
	require.NoError(t, err)
	img, _, err := image.Decode(bytesReader(out))
	require.NoError(t, err)
	nrgba, ok := img.(*image.NRGBA)
	require.True(t, ok)
	// Corners are transparent, the blob centre is opaque.
	require.Zero(t, nrgba.Pix[3])
	b := nrgba.Bounds()
	require.Equal(t, uint8(255), nrgba.NRGBAAt(b.Dx()/2-5, b.Dy()/2).A)
}
