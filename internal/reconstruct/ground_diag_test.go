package reconstruct

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/stretchr/testify/require"
)

// TestRealSetGroundCueDiag prints, per real-set model and view, the ground-contact
// elevation estimate beside the true camera pitch (behind -realset.four).
func TestRealSetGroundCueDiag(t *testing.T) {
	if !*realFour {
		t.Skip("run with -realset.four")
	}
	if !realSetPresent() {
		t.Skip("real-product models missing")
	}
	ctx := context.Background()
	deg := 180 / math.Pi
	var sumPrior, sumCue, sumModel, sumModelPrior, sumHalf float64
	var nPrior, nCue int
	loose := os.Getenv("PHOTO3D_GROUNDLOOSE") != ""
	for _, e := range realManifest(t) {
		m := realMVScene(e.name, loadRealModel(t, e.name), 960, 720)
		var views []View
		for k, p := range m.photos() {
			views = append(views, View{Image: p, Azimuth: m.stated[k]})
		}
		vs, _, err := prepareViews(ctx, views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		line := ""
		var trueEls, cues []float64
		for i, v := range vs {
			_, te := trueAzEl(m.cams[i])
			trueEls = append(trueEls, te)
			src := v.Alpha
			if loose && v.Loose != nil {
				src = v.Loose
			}
			// The focal length the pose search starts from (a phone's main
			// camera), not the true one.
			c := multiview.GroundElevation(src, v.P.W, v.P.H, v.F0)
			if c.Ok {
				line += fmt.Sprintf(" v%d true %.1f cue %.1f (α %.1f w %.0f)", i, te, c.El*deg, c.Alpha*deg, c.Width)
				sumCue += math.Abs(c.El*deg - te)
				nCue++
				if c.El >= 0 {
					cues = append(cues, c.El*deg)
				}
			} else {
				line += fmt.Sprintf(" v%d true %.1f cue -- (w %.0f)", i, te, c.Width)
			}
			sumPrior += math.Abs(12 - te)
			nPrior++
		}
		// Per model: the median of the views' non-negative cues (12° without one),
		// against each view's true elevation.
		est := 12.0
		if len(cues) > 0 {
			slices.Sort(cues)
			k := len(cues) / 2
			est = cues[k]
			if len(cues)%2 == 0 {
				est = (cues[k-1] + cues[k]) / 2
			}
		}
		for _, te := range trueEls {
			sumModel += math.Abs(est - te)
			sumModelPrior += math.Abs(12 - te)
			sumHalf += math.Abs((12+est)/2 - te)
		}
		fmt.Printf("%-26s median %.1f |%s\n", e.name, est, line)
	}
	fmt.Printf("elevation error (loose masks %v): 12° prior mean %.1f° over %d views; cue mean %.1f° over the %d views with one; per-model median cue mean %.1f° (prior %.1f°); halfway between 12° and the median mean %.1f°\n",
		loose, sumPrior/float64(nPrior), nPrior, sumCue/float64(max(nCue, 1)), nCue, sumModel/float64(nPrior), sumModelPrior/float64(nPrior), sumHalf/float64(nPrior))
}
