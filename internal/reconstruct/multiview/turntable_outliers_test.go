package multiview

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// ringOfHeights is a ring of views whose silhouettes are h[k] pixels tall.
func ringOfHeights(h []float64) SpinRing {
	var r SpinRing
	for _, x := range h {
		r.Views = append(r.Views, &View{bbox: [4]float64{100, 50, 200, 50 + x}})
	}
	return r
}

// Within a turntable ring a silhouette's height changes smoothly as the
// product turns. A photo whose height jumps from its neighbours' (a mask that
// lost the base, or took in the turntable) is a suspect, even when its
// neighbour lost the same part; a smooth swing of a long product seen from
// above is not, nor an extreme its photo half a turn round shares; a ring too small to judge has none; and at most a quarter of
// the set is suspected, the largest jumps first.
func TestSizeSuspects(t *testing.T) {
	smooth := make([]float64, 12)
	for k := range smooth { // ±15 % over half a turn, as a long sofa's ring from above
		smooth[k] = 300 * (1 + 0.15*math.Cos(4*math.Pi*float64(k)/12))
	}
	require.Equal(t, make([]bool, 12), sizeSuspects([]SpinRing{ringOfHeights(smooth)}))

	bad := append([]float64(nil), smooth...)
	bad[3], bad[4] = 0.55*bad[3], 0.55*bad[4] // two neighbours lost the base
	bad[11] = 1.4 * bad[11]                   // one took in the turntable
	want := make([]bool, 24)
	want[12+3], want[12+4], want[12+11] = true, true, true
	require.Equal(t, want, sizeSuspects([]SpinRing{ringOfHeights(smooth), ringOfHeights(bad)}))

	endOn := append([]float64(nil), smooth...)
	endOn[2], endOn[8] = 0.7*endOn[2], 0.75*endOn[8] // a long product end-on, twice a turn
	require.Equal(t, make([]bool, 12), sizeSuspects([]SpinRing{ringOfHeights(endOn)}), "an extreme half a turn round too is the shape")
	endOn[8] = smooth[8]
	require.True(t, sizeSuspects([]SpinRing{ringOfHeights(endOn)})[2], "an extreme alone is the mask")

	require.Equal(t, make([]bool, 5), sizeSuspects([]SpinRing{ringOfHeights([]float64{300, 100, 300, 300, 300})}), "a ring of five photos is too small to judge")

	many := append([]float64(nil), smooth...)
	for _, k := range []int{0, 3, 5, 8} { // none half a turn from another
		many[k] *= 0.5
	}
	many[8] *= 0.8 // the largest jump
	got := sizeSuspects([]SpinRing{ringOfHeights(many)})
	require.Equal(t, 3, count(got), "at most a quarter of 12")
	require.True(t, got[8])
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
