package reconstruct

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The benchmark's scorer and baselines behave as their definitions say, with no
// extracted models needed: the truth scores perfectly against itself at any scale
// and position; from a photo of a can, the prism cut from the silhouette (as deep as
// wide) is close to the truth and the thin card is not, with the depth ratios to
// match; and the renderer's camera sees the truth where the photo shows it.
func TestShapeScoreAndBaselines(t *testing.T) {
	s := makeScene("can", 0, 384, 512)
	truth := alignTruth(s.tris)

	moved := make([]qtri, len(truth))
	for i, tr := range truth {
		for k := range 3 {
			moved[i].p[k] = vadd(vmul(tr.p[k], 3.5), v3{2, 1, -4})
		}
	}
	self := scoreShape(truth, moved)
	require.InDelta(t, 1, self.F5, 1e-9)
	require.Less(t, self.Chamfer, 1.0)
	require.InDelta(t, 1, self.IoUFront, 0.01)
	require.InDelta(t, 1, self.IoUSide, 0.01)
	require.InDelta(t, 1, self.IoUTop, 0.01)
	require.InDelta(t, 1, self.DepthRatio, 1e-6)

	sh := newStudioShot("can", truth, studioView{Azimuth: 30, Elevation: 10, F35: 28}, 384, 512)
	photo := sh.scene.photo(rand.New(rand.NewPCG(1, 2)))
	require.NotEmpty(t, photo)
	card, prism := naiveBaselines(sh)
	require.Greater(t, prism.F5, 0.6, "a can is about as deep as it is wide")
	require.Less(t, card.F5, prism.F5-0.2)
	require.InDelta(t, 1, prism.DepthRatio, 0.1)
	require.Less(t, card.DepthRatio, 0.1)
	require.Greater(t, prism.IoUFront, 0.8, "the photo's outline includes the top rim seen from above")

	// Turning a can about its axis changes nothing: the shot's truth still scores 1
	// against the unturned truth.
	require.InDelta(t, 1, scoreShape(truth, sh.truth).F5, 0.01)
}

// Rank correlation handles ties and the two coefficients agree on a monotone pair.
func TestCorrelations(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	require.InDelta(t, 1, pearson(x, []float64{2, 4, 6, 8, 10}), 1e-12)
	require.InDelta(t, -1, spearman(x, []float64{50, 40, 30, 20, 1}), 1e-12)
	require.InDelta(t, 1, spearman(x, []float64{1, 4, 9, 16, 25}), 1e-12)
	require.Equal(t, []float64{1.5, 1.5, 3}, ranks([]float64{7, 7, 9}))
	require.Zero(t, pearson(x, []float64{3, 3, 3, 3, 3}))
}
