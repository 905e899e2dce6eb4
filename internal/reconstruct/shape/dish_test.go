package shape

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// drawnOutline is a 320×240 mask of the points where in(x, y) holds, x and y measured
// from the centre in units of the half-width (120 px) and half-height (hy px).
func drawnOutline(hy float64, in func(x, y float64) bool) *segment.Segmentation {
	const w, h = 320, 240
	s := &segment.Segmentation{W: w, H: h, Alpha: make([]uint8, w*h)}
	for y := range h {
		for x := range w {
			if in((float64(x)+0.5-160)/120, (float64(y)+0.5-120)/hy) {
				s.Alpha[y*w+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestRimSeenFromAboveIsADish: a round dish seen from 20–25° shows its rim as an
// ellipse 2.3–2.7 times as wide as tall. Read as a bulky product it became a pillow
// under 0.9 of its band's height deep (the real set's dish: F@5 0.09, a prism 0.12);
// it is a footprint as deep as it is wide. A sofa-like outline of the same proportions
// (a rounded box) and an ellipse about as tall as wide (a ball) keep the bulky depth.
func TestRimSeenFromAboveIsADish(t *testing.T) {
	ellipse := func(x, y float64) bool { return x*x+y*y <= 1 }
	rounded := func(x, y float64) bool { return math.Pow(x, 4)+math.Pow(y, 4) <= 1 }

	dish := ClassifySilhouette(drawnOutline(48, ellipse))
	require.Equal(t, ShapeClassBulky, dish.Class)
	require.InDelta(t, 240, dish.Depth, 3, "a rim seen from above is as deep as it is wide")
	require.Greater(t, dish.slabHalf, 0.0, "and a slab, not a pillow")
	require.True(t, dish.VetoFits, "its ellipse is not a lathe's side profile")
	require.True(t, FitLathe(MeasureRows(drawnOutline(48, ellipse))).Ok, "which the lathe would take")

	sofa := ClassifySilhouette(drawnOutline(48, rounded))
	require.Equal(t, ShapeClassBulky, sofa.Class)
	require.InDelta(t, bulkyDepthOfHeight*96, sofa.Depth, 3)

	ball := ClassifySilhouette(drawnOutline(100, ellipse))
	require.InDelta(t, bulkyDepthOfHeight*200, ball.Depth, 3)
}
