package reconstruct

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A spin set's fidelity score says whether its photos agree on the shape
// (multiview/agreement.go). A clean 24-photo spin set of a chair scores at least
// 80, the benchmark's bar for a model at F@5 0.9. The same set in which every
// other photo lost the chair's legs (a segmenter that took dark legs for the
// floor's shadow; rendered here without them) is scored under 70: the carve keeps
// only what every photo shows, so the model has no legs, and the half of the
// photos that show them rebuilds another shape.
func TestSpinFidelityTellsAModelThePhotosAgreeOnFromOneTheyDispute(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs two spin sets of 24 photos and their halves")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests.
	t.Parallel()
	base, radius := furnitureScene("chair", 1)
	rings := []RingSpec{{Photos: 12, ElevationDeg: 5}, {Photos: 12, ElevationDeg: 35}}
	m, _ := spinScene(base, radius, rings, 640, 480, rand.New(rand.NewPCG(48, 24)), usualTurntableError)
	truth := alignTruth(m.base.tris)
	build := func(photos [][]byte) (int, float64) {
		spin, err := NewSpinSet(rings, photos)
		require.NoError(t, err)
		res, _, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
		require.NoError(t, err)
		require.NotNil(t, res.Stats.Fidelity, "a spin set of two rings of twelve is scored")
		return *res.Stats.Fidelity, f5(alignedModel(t, res.GLB), truth)
	}

	clean := m.photos()
	score, cleanF := build(clean)
	t.Logf("clean spin set: fidelity %d, F@5 %.3f", score, cleanF)
	require.GreaterOrEqual(t, cleanF, 0.9, "the clean set rebuilds the chair")
	require.GreaterOrEqual(t, score, 80, "a model the photos agree on scores high")

	// The chair's four legs are the last four boxes furnitureScene adds.
	legless := *m.base
	legless.tris = base.tris[:len(base.tris)-4*12]
	disputed := make([][]byte, len(clean))
	copy(disputed, clean)
	legs := legless.photosAt(m, func(i int) bool { return i%2 == 1 })
	for i, p := range legs {
		disputed[i] = p
	}
	score, f := build(disputed)
	t.Logf("legs lost in every other photo: fidelity %d, F@5 %.3f", score, f)
	require.Less(t, f, cleanF-0.1, "the disputed photos build a worse model")
	require.Less(t, score, 70, "and it is flagged")
}

// photosAt renders s from the cameras of m whose index which accepts, each with
// the noise m.photos gives that photo.
func (s qscene) photosAt(m *mvScene, which func(int) bool) map[int][]byte {
	out := map[int][]byte{}
	for k, c := range m.cams {
		if !which(k) {
			continue
		}
		s.cam = c
		out[k] = s.photo(rand.New(rand.NewPCG(uint64(k)+11, 5)))
	}
	return out
}
