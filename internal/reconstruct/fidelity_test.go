package reconstruct

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
)

// fidelityBox is a front view of a box (what an orthographic camera at elevation 0
// sees): a solid rectangle on white, with its mask, photo and one-colour atlas.
func fidelityBox(w, h int, rect image.Rectangle, col [3]uint8) (*segmentation, *photo, *atlasSource) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seg := &segmentation{w: w, h: h, alpha: make([]uint8, w*h), bbox: rect}
	for y := range h {
		for x := range w {
			c := color.NRGBA{245, 245, 245, 255}
			if (image.Point{x, y}).In(rect) {
				c = color.NRGBA{col[0], col[1], col[2], 255}
				seg.alpha[y*w+x] = 255
				seg.area++
			}
			img.SetNRGBA(x, y, c)
		}
	}
	atlas := &atlasSource{w: 1, h: 1, col: [][3]float32{{float32(col[0]), float32(col[1]), float32(col[2])}}}
	return seg, &photo{img: img, w: w, h: h}, atlas
}

// boxPart is a closed box mesh of the given size, base centre at (dx, 0, 0).
func boxPart(width, height, depth, dx float64) []glbPart {
	m := &mesh{}
	for _, c := range [8][3]float64{{-1, 0, -1}, {1, 0, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, 0, 1}, {1, 0, 1}, {1, 1, 1}, {-1, 1, 1}} {
		m.addVertex(dx+c[0]*width/2, c[1]*height, c[2]*depth/2, 0.5, 0.5)
	}
	for _, f := range [6][4]uint32{{4, 5, 6, 7}, {1, 0, 3, 2}, {0, 4, 7, 3}, {5, 1, 2, 6}, {3, 7, 6, 2}, {0, 1, 5, 4}} {
		m.tri(f[0], f[1], f[2])
		m.tri(f[0], f[2], f[3])
	}
	return []glbPart{{name: "Body", mesh: m}}
}

// The score tells a faithful model from a wrong one: the right box re-rendered
// through the estimated camera scores near 100; the same camera sees a model
// shifted by a quarter of its width, or built 25 % too small, far below the warning
// threshold; a model of the right shape in the wrong colour loses the colour share.
func TestFidelityScoresRightAndWrongModels(t *testing.T) {
	seg, p, atlas := fidelityBox(300, 400, image.Rect(90, 60, 210, 360), [3]uint8{200, 80, 40})
	good := boxPart(0.12, 0.3, 0.08, 0)
	cam, ok := estimateFidelityCamera(good, seg)
	require.True(t, ok)
	require.InDelta(t, 0, cam.elev, 1e-9, "a front view is seen from elevation 0")

	score, iou, dE := fidelityScore(good, cam, seg, p, atlas)
	require.GreaterOrEqual(t, score, 95, "iou %.3f ΔE %.1f", iou, dE)

	shifted, _, _ := fidelityScore(boxPart(0.12, 0.3, 0.08, 0.03), cam, seg, p, atlas)
	require.Less(t, shifted, FidelityWarnBelow, "a model shifted by a quarter of its width")
	small, _, _ := fidelityScore(boxPart(0.09, 0.225, 0.06, 0), cam, seg, p, atlas)
	require.Less(t, small, FidelityWarnBelow, "a model 25 % too small")

	blue := &atlasSource{w: 1, h: 1, col: [][3]float32{{40, 80, 200}}}
	wrongColour, _, _ := fidelityScore(good, cam, seg, p, blue)
	require.InDelta(t, 80, wrongColour, 2, "the right shape in the wrong colour keeps only the shape share")
}

// A product photo the reconstructor handles well scores high end to end, and the
// score is part of the stats (stored with the job).
func TestBuiltinReportsFidelity(t *testing.T) {
	res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, twoToneBottle(320, 320).render()), Options{}, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Stats.Fidelity)
	t.Logf("fidelity %d", *res.Stats.Fidelity)
	require.GreaterOrEqual(t, *res.Stats.Fidelity, 85)
	require.LessOrEqual(t, *res.Stats.Fidelity, 100)
}

// An inflated shape's depth is a guess that no single view can check, so a model
// made that way is flagged however well its front matches the photo.
func TestInflatedModelsAreAlwaysFlagged(t *testing.T) {
	seg, p, atlas := fidelityBox(300, 400, image.Rect(90, 60, 210, 360), [3]uint8{200, 80, 40})
	good := boxPart(0.12, 0.3, 0.08, 0)
	require.GreaterOrEqual(t, modelFidelity(good, ShapeCuboid, seg, p, atlas), 95)
	require.Equal(t, fidelityInflateCap, modelFidelity(good, ShapeInflate, seg, p, atlas))
	require.Less(t, fidelityInflateCap, FidelityWarnBelow)
}
