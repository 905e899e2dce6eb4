package reconstruct

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// TestFurnitureTopIsAsDeepAsItStands checks that a desk's top (a chair's seat) is a
// slab as deep as the piece stands, not a pillow hovering between legs that stand
// far in front of and behind it: what a merchant saw turning the real SheenChair (a
// thin cushion between splayed legs). A top board seen from a little above is a
// low band in the photo, and the inflation's √u rounding made it about as deep as
// that band is tall: the desk's top spanned 0.37 of the depth its legs stand on.
func TestFurnitureTopIsAsDeepAsItStands(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a photo")
	}
	r := runClassScene(t, "desk", 0, 384, 512)
	require.Equal(t, shape.ShapeClassFurniture, r.class)
	top := math.Inf(-1)
	for _, tri := range r.model {
		for _, p := range tri.p {
			top = max(top, p[1])
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	topLo, topHi := math.Inf(1), math.Inf(-1)
	for _, tri := range r.model {
		for _, p := range tri.p {
			lo, hi = min(lo, p[2]), max(hi, p[2])
			if p[1] >= 0.8*top {
				topLo, topHi = min(topLo, p[2]), max(topHi, p[2])
			}
		}
	}
	share := (topHi - topLo) / (hi - lo)
	require.GreaterOrEqual(t, share, 0.8, "the top spans %.2f of the depth the legs stand on", share)
}
