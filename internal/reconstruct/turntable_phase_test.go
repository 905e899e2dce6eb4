package reconstruct

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A turntable video starts wherever the merchant pressed record, so the second
// ring of a spin set cut from videos need not start at the product's front:
// here it starts three photos (135°) round. Searched over the whole turn
// (AnyPhase), the chair comes back as well as from rings that both start at
// the front (F@5 within 0.05 of the exact-pose hull, as
// TestTurntableRebuildsAChairFromASpinSet asks); searched within half a step,
// as a spin set of photos is, it does not.
func TestTurntableFindsTheTurnOfARingThatStartsElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs sixteen photos")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests (ops/test.sh's
	// no-race step has a core to spare).
	t.Parallel()
	c := sixteenPhotoChair(t)
	photos := slices.Clone(c.photos)
	second := photos[8:]
	rotated := append(slices.Clone(second[3:]), second[:3]...)
	copy(photos[8:], rotated)
	spin, err := NewSpinSet(c.rings, photos)
	require.NoError(t, err)
	spin.Rings[1].AnyPhase = true
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
	require.NoError(t, err)
	ours := f5(alignedModel(t, res.GLB), alignTruth(c.m.base.tris))
	t.Logf("second ring started 135° round: F@5 %.3f (exact-pose hull %.3f), coherence %.3f", ours, c.hullF5, rep.Coherence)
	require.GreaterOrEqual(t, ours, c.hullF5-0.05)
	require.Greater(t, rep.Coherence, 0.85)
}
