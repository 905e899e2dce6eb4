package reconstruct

import (
	"context"
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
	"github.com/stretchr/testify/require"
)

// Not parallel: it is CPU-heavy and the package has a test with a wall-clock bound.
//
// A close-up that fills the frame (a cat's face, a cup on a patterned table) must not
// silently become the whole photo printed on a pillow: strict callers get the
// user-facing error, others a warning next to the model.
// inseparablePhoto is a blob so large it runs off three sides of the frame,
// on a busy backdrop.
func inseparablePhoto(t testing.TB) []byte {
	busy := func(x, y float64) [3]float64 {
		v := 128 + 90*math.Sin(x/7)*math.Cos(y/5)
		return [3]float64{v, 255 - v, 0.5 * v}
	}
	s := blobScene(400, 300, busy)
	s.inside = blobInside(200, 230, 260)
	return encodePNGBytes(t, s.render())
}

func TestSubjectNotSeparated(t *testing.T) {
	data := inseparablePhoto(t)

	_, err := NewBuiltin().Reconstruct(context.Background(), data, Options{StrictSubject: true}, nil)
	require.ErrorIs(t, err, segment.ErrSubjectNotSeparated)

	res, err := NewBuiltin().Reconstruct(context.Background(), data, Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{segment.ErrSubjectNotSeparated.Error()}, res.Warnings)

	// A product alone on a plain backdrop passes the check.
	res, err = NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, twoToneBottle(320, 320).render()), Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Len(t, res.Stats.InputSHA256, 64, "provenance: the photo's hash")
}

// A busy, full-colour product photographed large must still fit the GLB budget: the
// atlas (here first encoded at 2048 px, about 2.5 MB of noise) gives way, quality then
// size, and the file stays valid.
func TestBuiltinKeepsGLBWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a 2048² photo")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests (ops/test.sh's
	// no-race step has a core to spare).
	t.Parallel()
	s := blobScene(2048, 2048, solid(245, 245, 245))
	s.object = func(x, y float64) [3]float64 {
		h := math.Sin(x*12.9898+y*78.233) * 43758.5453
		h -= math.Floor(h)
		return [3]float64{255 * h, 255 * (1 - h), 128 + 127*math.Sin(x/3)}
	}
	res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, s.render()), Options{WorkingSize: 2048}, nil)
	require.NoError(t, err)
	require.LessOrEqual(t, len(res.GLB), MaxGLBBytes)
	require.LessOrEqual(t, res.Stats.Parts, 16)
	requireProductGLB(t, res.GLB, 0, "Photo3D builtin")
}

// The atlas shrinks until the file fits: a noisy 1024² atlas is far over a 300 KB
// budget at quality 88 and fits it at a smaller size.
func TestEncodeWithinBudgetShrinksAtlas(t *testing.T) {
	src := &texture.AtlasSource{W: 1024, H: 1024, Col: make([][3]float32, 1024*1024)}
	for i := range src.Col {
		h := math.Sin(float64(i)*12.9898) * 43758.5453
		h -= math.Floor(h)
		src.Col[i] = [3]float32{float32(255 * h), float32(255 * (1 - h)), float32(i % 256)}
	}
	m := &geom.Mesh{}
	for _, p := range [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
		m.AddVertex(p[0], p[1], p[2], float32(p[0]), float32(p[1]))
	}
	m.Tri(0, 2, 1)
	m.Tri(0, 1, 3)
	m.Tri(0, 3, 2)
	m.Tri(1, 2, 3)
	m.ComputeNormals()
	parts := []glbio.Part{{Name: "Body", Mesh: m, Roughness: 0.5}}
	full, err := encodeWithinBudget(parts, src, 1024, 1<<30)
	require.NoError(t, err)
	require.Greater(t, len(full), 300<<10)
	small, err := encodeWithinBudget(parts, src, 1024, 300<<10)
	require.NoError(t, err)
	require.LessOrEqual(t, len(small), 300<<10)
	requireProductGLB(t, small, 0, "Photo3D builtin")
}
