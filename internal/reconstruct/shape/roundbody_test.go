package shape

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// handleOver draws a carrying handle (an arch 8 px thick over the middle whose ends run
// down into the body, enclosing a hole of backdrop) on a body drawn by inBody, on a
// 300×300 mask.
func handleOver(inBody func(x, y float64) bool) *segment.Segmentation {
	const n = 300
	s := &segment.Segmentation{W: n, H: n, Alpha: make([]uint8, n*n)}
	for y := range n {
		for x := range n {
			fx, fy := float64(x), float64(y)
			r := math.Hypot(fx-150, fy-110)
			ring := fy <= 110 && r >= 22 && r <= 30
			// The handle's ends run down into the body.
			post := fy > 110 && fy <= 160 && (fx >= 120 && fx <= 128 || fx >= 172 && fx <= 180)
			if inBody(fx, fy) || ring || post {
				s.Alpha[y*n+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestHandleLoopDepthFollowsTheBody: a handle loop over the middle vetoes the lathe and
// box fits either way, but the depth follows what hangs under it. A bag's panel
// (straight sides) stays a slab 0.3 of the width deep; a round body (the real set's
// boom box, a kettlebell, a round speaker) is as deep as it is wide: read as a bag it
// came out a third as deep as the product (F@5 0.18 where a prism scores 0.47).
func TestHandleLoopDepthFollowsTheBody(t *testing.T) {
	tote := handleOver(func(x, y float64) bool { return x >= 70 && x <= 230 && y >= 135 && y <= 275 })
	c := ClassifySilhouette(tote)
	require.Equal(t, ShapeClassFlat, c.Class)
	require.True(t, c.VetoFits)
	require.InDelta(t, loopDepthOfWidth*float64(tote.Bbox.Dx()), c.Depth, 1)

	ball := handleOver(func(x, y float64) bool { return math.Hypot((x-150)/80, (y-205)/70) <= 1 })
	c = ClassifySilhouette(ball)
	require.Equal(t, ShapeClassBulky, c.Class)
	require.True(t, c.VetoFits)
	require.Greater(t, c.Depth, 0.8*float64(ball.Bbox.Dx()), "a round body under a handle is about as deep as it is wide")

	// Seen from above, the hole ends inside the round body's outline: what hangs under
	// it is a disc cut off above its middle, which fills about 0.84 of its box, as much
	// as a bag. Its curved sides still tell it apart (the real boom box from 25°: F@5
	// 0.17 read as a bag, a prism scores 0.48).
	high := handleOver(func(x, y float64) bool { return y > 160 && math.Hypot(x-150, y-215) <= 92 })
	hb, ok := centralLoop(high)
	require.True(t, ok)
	_, fill, _ := bodyBelow(high, hb)
	require.Greater(t, fill, roundBodyFill, "the cut disc fills as much as a panel")
	c = ClassifySilhouette(high)
	require.Equal(t, ShapeClassBulky, c.Class)
	require.Greater(t, c.Depth, 0.8*float64(high.Bbox.Dx()))

	// A bag's panel, tapered towards its top and with its bottom edge slanted by the
	// view, keeps straight sides: a slab.
	slanted := handleOver(func(x, y float64) bool {
		t := (y - 135) / 140
		return y >= 135 && y <= 275+30*(x-70)/160 && x >= 86-16*t && x <= 214+16*t
	})
	c = ClassifySilhouette(slanted)
	require.Equal(t, ShapeClassFlat, c.Class)
	require.InDelta(t, loopDepthOfWidth*float64(slanted.Bbox.Dx()), c.Depth, 1)
}
