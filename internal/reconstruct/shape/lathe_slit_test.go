package shape

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// slitBottle draws a 200×400 bottle (a shoulder narrowing to a neck) whose lower rows
// 280–340 have a gap of backdrop gapW px wide, starting 4 px inside the right outline:
// a sleeve standing off the bottle, seen through its window at the outline.
func slitBottle(gapW int) *segment.Segmentation {
	const w, h = 200, 400
	s := &segment.Segmentation{W: w, H: h, Alpha: make([]uint8, w*h)}
	for y := 40; y < 380; y++ {
		r := 70.0
		if y < 160 {
			r = 25 + 45*math.Sin(float64(y-40)/120*math.Pi/2)
		}
		for x := range w {
			dx := float64(x) + 0.5 - 100
			in := math.Abs(dx) <= r
			if y >= 280 && y < 340 && dx > r-4-float64(gapW) && dx <= r-4 {
				in = false
			}
			if in {
				s.Alpha[y*w+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestLatheBridgesASlitAtTheOutline: a bottle in a sleeve shows, through the sleeve's
// window at its outline, a slit of backdrop a few pixels wide in some rows. The rows
// are still one solid: the bottle is a solid of revolution (the real set's water
// bottle from 30°: read as a bulky blob, F@5 0.84 where a prism scores 0.87). A gap
// as wide as a mug handle's hole still splits the rows.
func TestLatheBridgesASlitAtTheOutline(t *testing.T) {
	fit := FitLathe(MeasureRows(slitBottle(2)))
	require.True(t, fit.Ok, "a 2 px slit: symmetry %.3f, single-run rows %.3f", fit.Symmetry, fit.singleRun)
	require.Equal(t, 1.0, fit.singleRun)

	fit = FitLathe(MeasureRows(slitBottle(14)))
	require.Less(t, fit.singleRun, 0.97, "a hole a tenth of the width wide is not bridged")
}
