package shape

import (
	"math"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// angledSofa draws a long sofa seen at an angle, 400×300: the near section
// (x 40–200) reaches down to row 200, the far one (x 200–360) only to row 130, so the
// far legs' feet (rows 198–200) stand no lower than the near section's underside.
// legs lists the legs as {x, top, foot}, 6 px thick.
func angledSofa(legs [][3]float64) *segment.Segmentation {
	const w, h = 400, 300
	s := &segment.Segmentation{W: w, H: h, Alpha: make([]uint8, w*h)}
	for y := range h {
		for x := range w {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			in := fx >= 40 && fx < 200 && fy >= 50 && fy < 200 || fx >= 200 && fx < 360 && fy >= 40 && fy < 130
			for _, l := range legs {
				in = in || math.Abs(fx-l[0]) <= 3 && fy >= l[1] && fy < l[2]
			}
			if in {
				s.Alpha[y*w+x] = 255
			}
		}
	}
	s.Finish()
	return s
}

// TestLegsUnderAnAngledBody: seen at an angle, a long sofa's near end reaches lower
// than its far legs' feet, so no row shows legs at both ends and the walk up from the
// floor stops at the near end's underside (the real set's curved sofa from −35°:
// read as a bulky blob, F@5 0.18, a prism 0.25). Its legs still hang under the body
// and reach towards the floor: furniture, whose legs start under the lowest body row.
// The same body on two legs at one end is not furniture.
func TestLegsUnderAnAngledBody(t *testing.T) {
	four := [][3]float64{{60, 200, 260}, {150, 200, 255}, {300, 130, 200}, {350, 130, 198}}
	seg := angledSofa(four)
	legTop, ok := legsUnderBody(seg)
	require.True(t, ok)
	require.Equal(t, 200, legTop, "the legs start under the near section's underside")
	c := ClassifySilhouette(seg)
	require.Equal(t, ShapeClassFurniture, c.Class)
	require.Equal(t, 200, c.legTop)
	require.Equal(t, -1, c.BackFrom, "seen at an angle, no backrest is laid out")

	_, ok = legsUnderBody(angledSofa(four[:2]))
	require.False(t, ok, "two legs at one end are a stand, not furniture")
	// Parts hanging high above the floor are not legs: raise the far feet to row 170
	// (0.4 of the height above the floor).
	_, ok = legsUnderBody(angledSofa([][3]float64{{60, 200, 260}, {150, 200, 255}, {300, 130, 170}, {350, 130, 170}}))
	require.False(t, ok)
}
