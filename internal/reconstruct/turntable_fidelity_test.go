package reconstruct

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A spin set's fidelity score says whether its photos agree on the shape
// (multiview/agreement.go). A clean 24-photo spin set of a chair scores at least
// 80, the benchmark's bar for a model at F@5 0.9. The same set in which every
// other photo lost the chair's legs (a segmenter that took dark legs for the
// floor's shadow; rendered here without them) is scored under 70: the carve keeps
// only what every photo shows, so the model has no legs, and the half of the
// photos that show them rebuilds another shape. The clean set is the one the
// next test builds, its photos in the order a turntable turning the other way
// takes them (one build of 24 photos for both tests).
func TestSpinFidelityTellsAModelThePhotosAgreeOnFromOneTheyDispute(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 24 photos, and the next test's, and their halves")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests.
	t.Parallel()
	c := newSpinChair24()
	clean := cleanChairTurnedBackwards(t)
	t.Logf("clean spin set: fidelity %d, F@5 %.3f, surface disagreement %.3f", clean.score, clean.f, clean.rep.SurfaceDisagreement)
	require.GreaterOrEqual(t, clean.f, 0.9, "the clean set rebuilds the chair")
	require.GreaterOrEqual(t, clean.score, 80, "a model the photos agree on scores high")
	require.Less(t, clean.rep.SurfaceDisagreement, 0.05, "and they agree on its colours")

	score, f, rep := c.build(t, c.withoutLegs(func(i int) bool { return i%2 == 1 }))
	t.Logf("legs lost in every other photo: fidelity %d, F@5 %.3f", score, f)
	require.False(t, rep.TurnedBackwards, "the photos go round the way the search tries first")
	require.Less(t, f, clean.f-0.1, "the disputed photos build a worse model")
	require.Less(t, score, 70, "and it is flagged")
}

// A turntable that turns the other way takes the same photos in the opposite
// order round the product (each ring still starting at its first photo).
// Searched the usual way round, their outlines contradict each other: the
// chair came out as a shapeless lump (F@5 0.040, fidelity 6). The search
// settles the set both ways and keeps the way they agree on, so the merchant
// gets the same chair whichever way the turntable turned.
func TestSpinSetShotTurningTheOtherWayBuildsTheSameModel(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 24 photos and its halves")
	}
	t.Parallel()
	b := cleanChairTurnedBackwards(t)
	score, f, rep := b.score, b.f, b.rep
	t.Logf("the other way round: fidelity %d, F@5 %.3f, coherence %.3f, rings at %v", score, f, rep.Coherence, rep.RingElevations)
	require.True(t, rep.TurnedBackwards, "the search found the turntable turned the other way")
	require.GreaterOrEqual(t, f, 0.9, "and rebuilt the chair")
	require.GreaterOrEqual(t, score, 80, "which its halves agree on")
	require.Empty(t, rep.Dropped, "every photo kept")
}

// Two neighbouring photos whose masks lost the same part (here the chair's
// legs: a segmenter that took them for the floor's shadow, rendered without
// them) agree with each other: each matches the hull the other one carved, so
// neither stands out against the hull of the rest, and together they carve the
// legs away and pull the search towards a legless chair (the real-product
// benchmark's candle holder, whose base two neighbouring masks lost: F@5 0.255).
// Their silhouettes are much shorter than their neighbours', so the search
// leaves them out; measured against the hull of the photos it trusted, both
// disagree and stay out of the carve. The legs stay, and the fidelity score,
// whose halves do the same, calls the model sound.
func TestSpinSetLeavesOutNeighboursThatLostTheSamePart(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 24 photos and its halves")
	}
	t.Parallel()
	c := newSpinChair24()
	const first = 3 // the fourth and fifth photos of the level ring
	score, f, rep := c.build(t, c.withoutLegs(func(i int) bool { return i == first || i == first+1 }))
	t.Logf("two neighbours without legs: fidelity %d, F@5 %.3f, dropped %+v", score, f, rep.Dropped)
	var dropped []int
	for _, d := range rep.Dropped {
		dropped = append(dropped, d.Photo)
	}
	require.Subset(t, dropped, []int{first + 1, first + 2}, "both photos without legs are left out")
	require.LessOrEqual(t, len(dropped), 3, "and at most one other")
	require.GreaterOrEqual(t, f, 0.85, "the legs stay (without them: 0.2)")
	require.GreaterOrEqual(t, score, 80, "and the model is called sound")
}

// An open tray shot as a spin set, one ring of twelve from 35° above, which
// looks into it: no outline shows its inside, so the carve fills it, and both
// halves of the set carve the same filled tray, so they agree. The photos see
// the tray's floor and its inner walls, each wall another colour, through the
// model's flat top: they disagree about that top's colour, and the score says
// the model is not to be trusted (the olive dish of the real-product benchmark,
// 78 at F@5 0.48 before the colours capped it). Shot in two rings (5° and 35°)
// it builds and scores the same way (F@5 0.044, halves 0.864, disagreement
// 0.385, score 4) at six times the cost; docs/spin-experiments.md says why that
// model is so poor (the carve of a wide, low box, not the search).
func TestSpinFidelityFlagsAHollowTheCarveFilled(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs a spin set of 12 photos and its halves")
	}
	t.Parallel()
	const half, height, wall = 0.3, 0.4, 0.03
	s := &qscene{class: "tray", name: "open-tray"}
	s.tris = append(s.tris, boxTris(v3{-half, 0, -half}, v3{half, 0.04, half}, v3{230, 220, 200})...) // floor
	s.tris = append(s.tris, boxTris(v3{-half, 0.04, half - wall}, v3{half, height, half}, v3{200, 40, 40})...)
	s.tris = append(s.tris, boxTris(v3{-half, 0.04, -half}, v3{half, height, -half + wall}, v3{40, 70, 200})...)
	s.tris = append(s.tris, boxTris(v3{-half, 0.04, -half + wall}, v3{-half + wall, height, half - wall}, v3{40, 160, 60})...)
	s.tris = append(s.tris, boxTris(v3{half - wall, 0.04, -half + wall}, v3{half, height, half - wall}, v3{220, 190, 30})...)
	s.footprint = func(x, z float64) float64 {
		dx, dz := math.Abs(x)-half, math.Abs(z)-half
		return math.Hypot(max(dx, 0), max(dz, 0)) + min(max(dx, dz), 0)
	}
	s.footR = math.Sqrt2 * half
	rings := []RingSpec{{Photos: 12, ElevationDeg: 35}}
	m, _ := spinScene(s, math.Sqrt(2*half*half+height*height/4), rings, 480, 360, rand.New(rand.NewPCG(48, 25)), usualTurntableError)
	spin, err := NewSpinSet(rings, m.photos())
	require.NoError(t, err)
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Stats.Fidelity)
	f := f5(alignedModel(t, res.GLB), alignTruth(m.base.tris))
	t.Logf("open tray: fidelity %d, F@5 %.3f, halves' agreement %.3f, surface disagreement %.3f", *res.Stats.Fidelity, f, rep.HalvesAgreement, rep.SurfaceDisagreement)
	require.Less(t, f, 0.5, "the model is poor: the tray filled")
	require.GreaterOrEqual(t, rep.HalvesAgreement, 0.8, "both halves of the set carve the same filled tray")
	require.Greater(t, rep.SurfaceDisagreement, 0.1, "the photos disagree about the filled top's colour")
	require.Less(t, *res.Stats.Fidelity, 70, "and the model is flagged")
}

// spinChair24 is a chair shot as two rings of twelve, with the benchmark's
// turntable error.
type spinChair24 struct {
	m     *mvScene
	rings []RingSpec
	truth []qtri
	clean [][]byte
}

func newSpinChair24() *spinChair24 {
	base, radius := furnitureScene("chair", 1)
	rings := []RingSpec{{Photos: 12, ElevationDeg: 5}, {Photos: 12, ElevationDeg: 35}}
	m, _ := spinScene(base, radius, rings, 640, 480, rand.New(rand.NewPCG(48, 24)), usualTurntableError)
	return &spinChair24{m: m, rings: rings, truth: alignTruth(m.base.tris), clean: m.photos()}
}

// build reconstructs photos and returns the fidelity score, F@5 and the report.
func (c *spinChair24) build(t *testing.T, photos [][]byte) (int, float64, SpinReport) {
	b := c.built(photos)
	require.NoError(t, b.err)
	return b.score, f5(alignedModel(t, b.glb), c.truth), b.rep
}

// spinBuilt is a build of a spinChair24 set: its fidelity score, GLB and
// report (f, its F@5, filled in by the test that reads it).
type spinBuilt struct {
	score int
	glb   []byte
	truth []qtri
	f     float64
	rep   SpinReport
	err   error
}

func (c *spinChair24) built(photos [][]byte) spinBuilt {
	spin, err := NewSpinSet(c.rings, photos)
	if err != nil {
		return spinBuilt{err: err}
	}
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
	if err != nil {
		return spinBuilt{err: err}
	}
	if res.Stats.Fidelity == nil {
		return spinBuilt{err: errors.New("a spin set of two rings of twelve is not scored")}
	}
	return spinBuilt{score: *res.Stats.Fidelity, glb: res.GLB, truth: c.truth, rep: rep}
}

// cleanChairTurnedBackwards is spinChair24's clean set built in the order a
// turntable turning the other way takes its photos: built once, by the first
// of the two tests that read it, while the other waits.
func cleanChairTurnedBackwards(t *testing.T) spinBuilt {
	b := chairTurnedBackwards()
	require.NoError(t, b.err)
	b.f = f5(alignedModel(t, b.glb), b.truth)
	return b
}

var chairTurnedBackwards = sync.OnceValue(func() spinBuilt {
	c := newSpinChair24()
	return c.built(turnedBackwards(c.rings, c.clean))
})

// withoutLegs is the clean set with the photos which picks rendered without
// the chair's legs (the last four boxes furnitureScene adds).
func (c *spinChair24) withoutLegs(which func(int) bool) [][]byte {
	legless := *c.m.base
	legless.tris = legless.tris[:len(legless.tris)-4*12]
	out := append([][]byte(nil), c.clean...)
	for i, p := range legless.photosAt(c.m, which) {
		out[i] = p
	}
	return out
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
