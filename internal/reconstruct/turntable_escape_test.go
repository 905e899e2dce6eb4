package reconstruct

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/stretchr/testify/require"
)

// dishScene is a wide, shallow dish (a foot, then a bowl flaring to a rim about
// five times as wide as the dish is tall), the kind of flat product whose
// further ring's height the silhouettes pin down only loosely.
func dishScene(seed uint64) (*qscene, float64) {
	rng := rand.New(rand.NewPCG(seed, 77))
	c1, c2 := randColour(rng), randColour(rng)
	R := 2.4 + rng.Float64()*0.6
	foot := R * 0.55
	s := &qscene{class: "dish", gradient: rng.IntN(2) == 0}
	s.tris = latheTris([]profileBand{
		{sampleProfile(func(float64) float64 { return foot }, 0, 0.15, 2), c2},
		{sampleProfile(func(y float64) float64 { return foot + (R-foot)*math.Sqrt((y-0.15)/0.85) }, 0.15, 1, 16), c1},
	}, 96)
	s.footprint = func(x, z float64) float64 { return math.Hypot(x, z) - foot }
	s.footR = foot
	s.name = "dish"
	return s, math.Hypot(R, 0.5)
}

// A flat dish's spin set (8 photos level with it, 8 from 30° above, the
// turntable's usual error): the search's descent settles the higher ring 5.7°
// under its true height, in a basin its steps do not leave; moving each ring's
// height 5° and settling again finds the better-agreeing layout, within 3° of
// the truth (2.7° off; 12 and 12 photos do the same at half as much again of
// the time). Without the escape the test's own first half fails, so it cannot
// pass by accident.
func TestTurntableSearchEscapesAShallowBasin(t *testing.T) {
	if testing.Short() {
		t.Skip("searches a 16-photo spin set twice")
	}
	base, radius := dishScene(2)
	rings := []RingSpec{{Photos: 8, ElevationDeg: 0}, {Photos: 8, ElevationDeg: 30}}
	m, _ := spinScene(base, radius, rings, 640, 480, rand.New(rand.NewPCG(2, 3)), usualTurntableError)
	truth := trueRingElevations(m, rings)
	photos := m.photos()
	search := func(escapeDeg float64) ([]float64, float64) {
		var views []View
		for k, p := range photos {
			views = append(views, View{Image: p, Azimuth: m.stated[k]})
		}
		vs, _, err := prepareViews(context.Background(), views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		spin := []multiview.SpinRing{{Views: vs[:8], ElevDeg: 0}, {Views: vs[8:], ElevDeg: 30}}
		defer func(old float64) { multiview.SpinEscapeDeg = old }(multiview.SpinEscapeDeg)
		multiview.SpinEscapeDeg = escapeDeg
		_, fit, err := multiview.SearchTurntable(context.Background(), spin, nil)
		require.NoError(t, err)
		return fit.ElevDeg, fit.Coherence
	}
	stuck, stuckCoherence := search(0)
	t.Logf("without the escape: rings at %.1f° (true %.1f°), coherence %.3f", stuck, truth, stuckCoherence)
	require.Greater(t, math.Abs(stuck[1]-truth[1]), 5.0, "the plain descent's basin (the case the escape is for)")

	found, coherence := search(multiview.SpinEscapeDeg)
	t.Logf("with the escape: rings at %.1f° (true %.1f°), coherence %.3f", found, truth, coherence)
	for i := range truth {
		require.InDelta(t, truth[i], found[i], 3, "ring %d's height", i+1)
	}
	require.Greater(t, coherence, stuckCoherence+0.01, "the photos agree better where the escape settles")
}
