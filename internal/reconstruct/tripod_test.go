package reconstruct

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// tripodMask draws, on a 300×300 mask, a camera body on a head with three legs
// splayed out from under it, seen from a little above and the side as the real
// AntiqueCamera: the left leg apart from the first, and the two right legs
// overlapping in the photo (one wide run) down to where they part, so that the
// band of legs apart at the floor is short, as a sofa's is.
func tripodMask() *segment.Segmentation {
	const n = 300
	s := &segment.Segmentation{W: n, H: n, Alpha: make([]uint8, n*n)}
	leg := func(x, y float64, x0, y0, x1, y1 float64) bool {
		if y < y0 || y > y1 {
			return false
		}
		cx := x0 + (x1-x0)*(y-y0)/(y1-y0)
		return math.Abs(x-cx) <= 6
	}
	for y := range n {
		for x := range n {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			body := y >= 30 && y < 100 && x >= 90 && x < 210
			head := y >= 100 && y < 130 && x >= 130 && x < 170
			// The right pair, overlapping: a wedge from the head down to y 232.
			wedge := fy >= 130 && fy < 232 && fx >= 150+0.3*(fy-130) && fx < 170+0.8*(fy-130)
			in := body || head || wedge ||
				leg(fx, fy, 140, 130, 40, 290) || // left leg
				leg(fx, fy, 185, 232, 195, 290) || // rear-right leg
				leg(fx, fy, 245, 232, 260, 290) // front-right leg
			if in {
				s.Alpha[y*n+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestBodyOnTripodHasNoBackrest: legs splayed out from under a narrow body are a
// stand's, not a sofa's, so what narrows above them (the head, the camera) is not a
// backrest at the rear but the body, at full depth. With its tripod kept whole by
// the mask, the real AntiqueCamera seen from above was laid out as a sofa with the
// camera as its thin back (F@5 0.82 → 0.52). A chair's legs stand under its seat,
// and its back on posts is still a backrest.
func TestBodyOnTripodHasNoBackrest(t *testing.T) {
	c := shape.ClassifySilhouette(tripodMask())
	require.Equal(t, -1, c.BackFrom, "the body on a tripod is not a backrest")
	centre, half := c.DepthFn(true)(150, 65, 2*35*35)
	require.Zero(t, centre, "the body stands over the legs, not at the rear")
	require.Greater(t, half, 0.3*c.Depth, "the body is as deep as the product")

	chair := shape.ClassifySilhouette(chairMask(true))
	require.Equal(t, shape.ShapeClassFurniture, chair.Class)
	require.Positive(t, chair.BackFrom, "a chair's back on posts is still a backrest")
}
