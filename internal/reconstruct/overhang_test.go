package reconstruct

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Lamps seen from 20–25° above, which used to come out with a cone-shaped skirt under
// the shade, a pinched stem and a domed base (F@5% 0.83–0.86): the shade must be open
// underneath, the stem straight and the base flat, so the surface matches the true
// one (F@5%) and the re-rendered outline matches the photo's (IoU).
func TestLampsHaveOpenShadesStraightStemsAndFlatBases(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs three photos")
	}
	for _, i := range []int{1, 2, 7} { // lamp-b, lamp-c, lamp-h
		s := makeScene("lamp", i, 384, 512)
		photo := s.photo(rand.New(rand.NewPCG(uint64(i), 5)))
		res, err := NewBuiltin().Reconstruct(context.Background(), photo, Options{}, nil)
		require.NoError(t, err, s.name)
		require.Equal(t, ShapeLathe, res.Stats.ShapeKind, s.name)
		sc := scoreScene(t, s, res.GLB)
		t.Logf("%s: IoU %.3f F@5%% %.3f", s.name, sc.IoU, sc.F5)
		require.GreaterOrEqual(t, sc.F5, 0.95, "%s: F@5%% of the lamp", s.name)
		require.GreaterOrEqual(t, sc.IoU, 0.93, "%s: silhouette IoU of the lamp", s.name)
	}
}

// The rim ellipses of a lamp (shade rim near the middle of the photo, base rims near
// the bottom) seen through a known camera give that camera back: the depth of each
// ellipse is the sine of the viewing angle at its row, stretched by the row's
// distance from the optical axis.
func TestSolveCameraFromRimEllipses(t *testing.T) {
	const perMM = 1280 / 43.27 // 768×1024 photo
	for _, c := range []struct{ mm, pitch float64 }{{24, 0.43}, {35, 0.2}, {50, 0.05}} {
		f := c.mm * perMM
		off := -512.0
		var ells []rimEllipse
		for _, row := range []float64{480, 700, 716} {
			phi := math.Atan((row + off) / f)
			R := 150.0
			ells = append(ells, rimEllipse{row: row, radius: R, depth: R * math.Abs(math.Sin(c.pitch+phi)) / math.Cos(phi)})
		}
		gotF, gotPitch, ok := solveCamera(ells, off, perMM)
		require.True(t, ok, "%v", c)
		require.InDelta(t, c.mm, gotF/perMM, 1, "focal length, %v", c)
		require.InDelta(t, c.pitch, gotPitch, 0.01, "pitch, %v", c)
	}
	// Rims too close together cannot tell focal length from pitch.
	_, _, ok := solveCamera([]rimEllipse{{500, 40, 150}, {520, 42, 150}}, -512, perMM)
	require.False(t, ok)
}

// A shade's profile (top down to the rim) becomes an open shell: down the outside,
// back up the inside a thickness in, to a ceiling under the top; no disc across the
// rim. A shade too short to hollow stays closed.
func TestShadeShellIsOpenBelow(t *testing.T) {
	prof := []profilePoint{{50, 100}, {80, 150}, {100, 200}}
	got := shadeShell(append([]profilePoint(nil), prof...), 100, 5)
	require.Equal(t, prof, got[:3], "outside unchanged")
	require.Equal(t, profilePoint{95, 200}, got[3], "rim: only the wall's thickness across")
	require.Equal(t, profilePoint{75, 150}, got[4])
	require.InDelta(t, 48, got[5].r, 1e-9, "inside at the ceiling")
	require.Equal(t, 105.0, got[5].y)
	require.Equal(t, profilePoint{0, 105}, got[6], "ceiling closes under the top")
	short := []profilePoint{{50, 100}, {60, 108}}
	require.Equal(t, short, shadeShell(append([]profilePoint(nil), short...), 100, 5))
}
