package reconstruct

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/stretchr/testify/require"
)

// The spin set's halves are searched on a goroutine beside the whole set's
// search (multiview/beside.go). A merchant gets the same model and the same
// fidelity score, byte for byte, as when they ran after it on one core: they
// share nothing either writes. ops/test.sh runs this test with the race
// detector on the shape packages, which every other run builds without it.
// Not parallel: it switches multiview.SpinHalvesBeside, which parallel tests
// read, and only while they wait for it.
// Under the race detector it builds the set once, beside; the byte-for-byte
// comparison is the uninstrumented run's.
func TestSpinHalvesBesideTheSearchBuildTheSameModel(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 12 photos twice")
	}
	spin := smallSpinChair(t)
	// One round and no escape (instrumented, the search runs five to ten
	// times slower) still walk every step the two goroutines take side by side.
	defer keepSpinSearch()()
	multiview.SpinRounds, multiview.SpinEscapeDeg = 1, 0
	build := func(beside bool) (*Result, SpinReport) {
		was := multiview.SpinHalvesBeside
		multiview.SpinHalvesBeside = beside
		defer func() { multiview.SpinHalvesBeside = was }()
		res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
		require.NoError(t, err)
		require.NotNil(t, res.Stats.Fidelity, "a ring of twelve is scored")
		return res, rep
	}
	beside, repBeside := build(true)
	t.Logf("fidelity %d, halves %.3f, coherence %.3f", *beside.Stats.Fidelity, repBeside.HalvesAgreement, repBeside.Coherence)
	require.Greater(t, repBeside.HalvesAgreement, 0.5, "the halves rebuilt the chair")
	requireNoHalvesRunning(t)
	if raceDetector {
		return // the detector watched both goroutines; the uninstrumented run compares
	}
	after, repAfter := build(false)
	require.Equal(t, *after.Stats.Fidelity, *beside.Stats.Fidelity, "the same fidelity score")
	require.Equal(t, repAfter, repBeside, "the same report: rings, coherence, halves' agreement, photos left out")
	require.True(t, bytes.Equal(after.GLB, beside.GLB), "the same GLB, byte for byte")
}

// A build cancelled while its halves are being searched returns the
// cancellation, and leaves no search running behind it.
func TestSpinBuildCancelledStopsItsHalves(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 12 photos")
	}
	spin := smallSpinChair(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The whole set's search begins at StepDeconstructing 25 and the halves
	// start once it has found which way the photos go round; it checks for
	// cancellation in its descent, after that.
	_, _, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(ctx, spin, Options{}, func(s Step, p int) {
		if s == StepDeconstructing {
			cancel()
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	requireNoHalvesRunning(t)
}

// keepSpinSearch returns a func that puts back the search's settings a test changes.
func keepSpinSearch() func() {
	rounds, escape := multiview.SpinRounds, multiview.SpinEscapeDeg
	return func() { multiview.SpinRounds, multiview.SpinEscapeDeg = rounds, escape }
}

// smallSpinChair is a chair photographed in one ring of twelve at 320×240
// (the fewest photos that split into halves), small enough for the race
// detector.
func smallSpinChair(t *testing.T) SpinSet {
	base, radius := furnitureScene("chair", 1)
	rings := []RingSpec{{Photos: 12, ElevationDeg: 20}}
	m, _ := spinScene(base, radius, rings, 320, 240, rand.New(rand.NewPCG(48, 24)), usualTurntableError)
	spin, err := NewSpinSet(rings, m.photos())
	require.NoError(t, err)
	return spin
}

// requireNoHalvesRunning fails when any build's halves are still being
// searched or carved. It counts the works under way (multiview.HalvesRunning)
// rather than reading a goroutine dump: a work that has finished and closed
// its channel can still be in the dump, on its way out, on a busy machine.
func requireNoHalvesRunning(t *testing.T) {
	t.Helper()
	require.Zero(t, multiview.HalvesRunning(), "a halves' search still running")
}
