package reconstruct

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
	"github.com/stretchr/testify/require"
)

// fidelityBox is a front view of a box (what an orthographic camera at elevation 0
// sees): a solid rectangle on white, with its mask, photo and one-colour atlas.
func fidelityBox(w, h int, rect image.Rectangle, col [3]uint8) (*segment.Segmentation, *segment.Photo, *texture.AtlasSource) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seg := &segment.Segmentation{W: w, H: h, Alpha: make([]uint8, w*h), Bbox: rect}
	for y := range h {
		for x := range w {
			c := color.NRGBA{245, 245, 245, 255}
			if (image.Point{x, y}).In(rect) {
				c = color.NRGBA{col[0], col[1], col[2], 255}
				seg.Alpha[y*w+x] = 255
				seg.Area++
			}
			img.SetNRGBA(x, y, c)
		}
	}
	atlas := &texture.AtlasSource{W: 1, H: 1, Col: [][3]float32{{float32(col[0]), float32(col[1]), float32(col[2])}}}
	return seg, &segment.Photo{Img: img, W: w, H: h}, atlas
}

// boxPart is a closed box mesh of the given size, base centre at (dx, 0, 0).
func boxPart(width, height, depth, dx float64) []glbio.Part {
	m := &geom.Mesh{}
	for _, c := range [8][3]float64{{-1, 0, -1}, {1, 0, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, 0, 1}, {1, 0, 1}, {1, 1, 1}, {-1, 1, 1}} {
		m.AddVertex(dx+c[0]*width/2, c[1]*height, c[2]*depth/2, 0.5, 0.5)
	}
	for _, f := range [6][4]uint32{{4, 5, 6, 7}, {1, 0, 3, 2}, {0, 4, 7, 3}, {5, 1, 2, 6}, {3, 7, 6, 2}, {0, 1, 5, 4}} {
		m.Tri(f[0], f[1], f[2])
		m.Tri(f[0], f[2], f[3])
	}
	return []glbio.Part{{Name: "Body", Mesh: m}}
}

// The score tells a faithful model from a wrong one: the right box re-rendered
// through the estimated camera scores near 100; the same camera sees a model
// shifted by a quarter of its width, or built 25 % too small, far below the warning
// threshold; a model of the right shape in the wrong colour loses the colour share.
func TestFidelityScoresRightAndWrongModels(t *testing.T) {
	seg, p, atlas := fidelityBox(300, 400, image.Rect(90, 60, 210, 360), [3]uint8{200, 80, 40})
	good := boxPart(0.12, 0.3, 0.08, 0)
	cam, ok := fidelity.EstimateCamera(good, seg)
	require.True(t, ok)
	require.InDelta(t, 0, cam.Elev, 1e-9, "a front view is seen from elevation 0")

	score, iou, dE := fidelity.Score(good, cam, seg, p, atlas)
	require.GreaterOrEqual(t, score, 95, "iou %.3f ΔE %.1f", iou, dE)

	shifted, _, _ := fidelity.Score(boxPart(0.12, 0.3, 0.08, 0.03), cam, seg, p, atlas)
	require.Less(t, shifted, fidelity.WarnBelow, "a model shifted by a quarter of its width")
	small, _, _ := fidelity.Score(boxPart(0.09, 0.225, 0.06, 0), cam, seg, p, atlas)
	require.Less(t, small, fidelity.WarnBelow, "a model 25 % too small")

	blue := &texture.AtlasSource{W: 1, H: 1, Col: [][3]float32{{40, 80, 200}}}
	wrongColour, _, _ := fidelity.Score(good, cam, seg, p, blue)
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
// made that way is flagged however well its front matches the photo, and the same
// holds for any kind this file does not know to have evidence for its depth.
func TestInflatedModelsAreAlwaysFlagged(t *testing.T) {
	seg, p, atlas := fidelityBox(300, 400, image.Rect(90, 60, 210, 360), [3]uint8{200, 80, 40})
	good := boxPart(0.12, 0.3, 0.08, 0)
	require.GreaterOrEqual(t, fidelity.ModelFidelity(good, shape.KindCuboid, seg, p, atlas), 95)
	inflated := fidelity.ModelFidelity(good, shape.KindInflate, seg, p, atlas)
	require.Less(t, inflated, fidelity.WarnBelow)
	require.Equal(t, fidelity.ShapeGuessCap(seg), inflated, "the re-projection is perfect: the cap decides")
	require.Equal(t, inflated, fidelity.ModelFidelity(good, "some-new-kind", seg, p, atlas), "an unknown kind is a guess too")
}

// The guess cap falls with the depth the outline leaves open: a thin upright outline
// (a pole, a tripod) keeps most of it, a wide low one (a sofa, a dish seen from the
// side) falls towards the floor. The order is what makes the score track the true
// shape error on the real-product benchmark.
func TestGuessCapFallsWithBulk(t *testing.T) {
	thin, _, _ := fidelityBox(300, 400, image.Rect(140, 40, 160, 360), [3]uint8{90, 90, 90})  // 20×320
	square, _, _ := fidelityBox(400, 400, image.Rect(80, 80, 320, 320), [3]uint8{90, 90, 90}) // 240×240
	wide, _, _ := fidelityBox(600, 300, image.Rect(20, 100, 580, 260), [3]uint8{90, 90, 90})  // 560×160
	ct, cs, cw := fidelity.ShapeGuessCap(thin), fidelity.ShapeGuessCap(square), fidelity.ShapeGuessCap(wide)
	require.GreaterOrEqual(t, ct, fidelity.GuessCap-3, "a pole's depth is about its width: little to guess")
	require.Less(t, cs, ct)
	require.Less(t, cw, cs)
	require.Equal(t, fidelity.FidelityGuessFloor, cw, "3.5 × as wide as tall")
}

// A solid of revolution earns an uncapped score only where the photo shows it is
// round: a tall profiled outline (a bottle) does; a wide symmetric outline with flat
// ends (a sofa seen from the front) does not, so a lathe built from it is flagged.
func TestLatheNeedsEvidenceOfRoundness(t *testing.T) {
	bottle := twoToneBottle(320, 320)
	res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, bottle.render()), Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, shape.KindLathe, res.Stats.ShapeKind)
	require.GreaterOrEqual(t, *res.Stats.Fidelity, fidelity.WarnBelow)

	// A wide outline narrowing towards the top (a sofa's back over its seat): symmetric,
	// one run per row, a changing profile, flat ends.
	w, h := 600, 300
	seg := &segment.Segmentation{W: w, H: h, Alpha: make([]uint8, w*h)}
	for y := 100; y < 260; y++ {
		half := 260
		if y < 170 {
			half = 200
		}
		for x := 300 - half; x < 300+half; x++ {
			seg.Alpha[y*w+x] = 255
			seg.Area++
		}
	}
	seg.Bbox = image.Rect(40, 100, 560, 260)
	require.True(t, shape.FitLathe(shape.MeasureRows(seg)).Variation >= 0.15, "the builder's lathe test passes")
	require.False(t, fidelity.LatheEvidenced(seg))
	require.Less(t, fidelity.ShapeCap(shape.KindLathe, seg), fidelity.WarnBelow)
}

// A mask that left part of the product out (a white base lost on a light backdrop)
// is caught by the edges the photo shows outside it, and the score falls under the
// warning threshold however well the model matches the mask; the whole product's
// mask leaves no stray edges.
func TestMissedPartsCapTheScore(t *testing.T) {
	seg, p, atlas := fidelityBox(300, 400, image.Rect(90, 60, 210, 360), [3]uint8{200, 80, 40})
	require.InDelta(t, 0, fidelity.StrayEdges(seg, p), 1e-9)
	require.Equal(t, 100, fidelity.MaskCap(fidelity.StrayEdges(seg, p)))

	// The same photo with a second, lighter part under the product (a base) that the
	// mask does not cover.
	for y := 360; y < 392; y++ {
		for x := 30; x < 270; x++ {
			p.Img.SetNRGBA(x, y, color.NRGBA{215, 215, 205, 255})
		}
	}
	stray := fidelity.StrayEdges(seg, p)
	require.Greater(t, stray, fidelity.StrayFree)
	good := boxPart(0.12, 0.3, 0.08, 0)
	require.Less(t, fidelity.ModelFidelity(good, shape.KindCuboid, seg, p, atlas), fidelity.WarnBelow,
		"the model matches the mask (stray edges %.2f per outline pixel)", stray)
}
