package multiview

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two samplings of one surface agree fully; a copy moved by more than the
// tolerance agrees nowhere; a shape with a part the other lacks loses that
// part's share of precision.
func TestSurfaceAgreement(t *testing.T) {
	var square [][3]float64 // a unit square's outline in the x-y plane, every 0.01
	for i := range 100 {
		d := float64(i) / 100
		square = append(square, [3]float64{d, 0, 0}, [3]float64{1, d, 0}, [3]float64{1 - d, 1, 0}, [3]float64{0, 1 - d, 0})
	}
	require.InDelta(t, 1, SurfaceAgreement(square, square, 0.05), 1e-9)

	moved := make([][3]float64, len(square))
	for i, p := range square {
		moved[i] = [3]float64{p[0], p[1], p[2] + 0.06}
	}
	require.Zero(t, SurfaceAgreement(square, moved, 0.05))

	withLeg := append([][3]float64(nil), square...)
	for i := range 100 { // a leg as long as the outline's perimeter, far from it
		withLeg = append(withLeg, [3]float64{0.5, 0.5, 0.2 + float64(i)/100})
	}
	// Precision: 400 of 500 points near the square; recall: all of the square.
	want := 2 * 0.8 * 1 / (0.8 + 1)
	require.InDelta(t, want, SurfaceAgreement(withLeg, square, 0.05), 1e-9)
	require.Zero(t, SurfaceAgreement(nil, square, 0.05))
}

// A ring splits into two interleaved, evenly spaced halves of 6 to 12 photos
// where it can; the second half's frame is turned by its first photo's azimuth.
func TestSplitSpin(t *testing.T) {
	for n, want := range map[int]int{8: 0, 12: 2, 13: 0, 24: 2, 30: 2, 36: 4, 48: 4, 72: 6} {
		require.Equal(t, want, spinHalfStride(n), "a ring of %d", n)
	}
	ring := func(n int) SpinRing {
		r := SpinRing{ElevDeg: 30}
		for range n {
			r.Views = append(r.Views, &View{Distrust: true})
		}
		return r
	}
	rings := []SpinRing{ring(12), ring(36)}
	h, ok := SplitSpin(rings)
	require.True(t, ok)
	for half := range 2 {
		require.Len(t, h.sets[half], 2)
		require.Len(t, h.sets[half][0].Views, 6)
		require.Len(t, h.sets[half][1].Views, 9)
		require.Equal(t, 30.0, h.sets[half][1].ElevDeg)
		for _, v := range h.sets[half][0].Views {
			require.False(t, v.Distrust, "a half decides for itself which photos to leave out")
			for _, w := range rings[0].Views {
				require.NotSame(t, w, v, "a half searches copies of the views")
			}
		}
	}
	require.Zero(t, h.turn[0])
	require.InDelta(t, math.Pi/6, h.turn[1], 1e-12, "the second half starts one photo (30°) round")

	_, ok = SplitSpin([]SpinRing{ring(12), ring(8)})
	require.False(t, ok, "a ring of eight has no halves of six")
}
