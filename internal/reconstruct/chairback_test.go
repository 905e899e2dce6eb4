package reconstruct

import (
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// chairMask draws, on a 300×300 mask, four legs under a seat and, above the seat,
// what the body shows: a back on two posts (backdrop between seat and back, as on
// the real SheenChair) or one solid block (a camera on a tripod, a cabinet on legs).
func chairMask(posts bool) *segment.Segmentation {
	const n = 300
	s := &segment.Segmentation{W: n, H: n, Alpha: make([]uint8, n*n)}
	for y := range n {
		for x := range n {
			in := false
			switch {
			case y >= 200 && y < 290: // legs
				for _, lx := range []int{60, 100, 196, 236} {
					in = in || x >= lx && x < lx+8
				}
			case y >= 170 && y < 200: // seat
				in = x >= 55 && x < 245
			case y >= 130 && y < 170 && posts: // posts
				in = x >= 90 && x < 100 || x >= 200 && x < 210
			case y >= 60 && y < 170: // back (or the whole block)
				in = x >= 80 && x < 220
			}
			if in {
				s.Alpha[y*n+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestChairBackOnPostsIsThinAtTheRear: a chair whose back stands on posts gets a
// thin backrest at the rear (the real SheenChair's front photo: F@5 0.54 → 0.59),
// while a solid body above legs stays full depth, as before.
func TestChairBackOnPostsIsThinAtTheRear(t *testing.T) {
	chair := chairMask(true)
	c := shape.ClassifySilhouette(chair)
	require.Equal(t, shape.ShapeClassFurniture, c.Class)
	require.Positive(t, c.BackFrom, "the back on posts is a backrest")
	centre, half := c.DepthFn(true)(150, 100, 400)
	require.Less(t, centre, -0.3*c.Depth, "the backrest stands at the rear")
	require.LessOrEqual(t, half, c.BackThick/2+1e-9, "the backrest is thin")
	// The middle of the 30 px seat band: u = 2·15² solves ∇²u = −4 across it.
	seatCentre, seatHalf := c.DepthFn(true)(150, 185, 450)
	require.Zero(t, seatCentre)
	require.Greater(t, seatHalf, 3*half, "the seat is far deeper than the backrest")

	block := chairMask(false)
	c = shape.ClassifySilhouette(block)
	require.Equal(t, shape.ShapeClassFurniture, c.Class)
	require.Equal(t, -1, c.BackFrom, "a solid body above legs is not a backrest")
}

// TestHangingPartIsNotALeg: a lamp post with a lantern hanging from its arm shows,
// under the arm, two narrow runs apart (the post and the lantern) like a table's
// legs; but the lantern ends far above the floor, and furniture stands on its legs.
// Read as furniture, the real Lantern's dark photo scored F@5 0.25 (a card 0.55);
// as a bulky body 0.58.
func TestHangingPartIsNotALeg(t *testing.T) {
	const n = 300
	s := &segment.Segmentation{W: n, H: n, Alpha: make([]uint8, n*n)}
	for y := range n {
		for x := range n {
			post := x >= 60 && x < 76 && y >= 20 && y < 280
			base := x >= 50 && x < 86 && y >= 250 && y < 280
			arm := x >= 60 && x < 240 && y >= 30 && y < 44
			chain := x >= 214 && x < 218 && y >= 44 && y < 80
			lantern := x >= 200 && x < 232 && y >= 80 && y < 150
			if post || base || arm || chain || lantern {
				s.Alpha[y*n+x] = 255
			}
		}
	}
	s.Finish()
	require.NotEqual(t, shape.ShapeClassFurniture, shape.ClassifySilhouette(s).Class, "a hanging lantern is not a leg")
	require.Equal(t, shape.ShapeClassFurniture, shape.ClassifySilhouette(chairMask(true)).Class, "a chair still stands on its legs")
}
