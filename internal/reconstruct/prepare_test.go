package reconstruct

import (
	"context"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/stretchr/testify/require"
)

// A set's photos are decoded and segmented two at a time (prepare.go). A
// merchant gets the same views, so the same model, as when each photo was
// prepared alone, one after the other; a set with bad photos is refused
// naming the first, as before; the progress bar moves forward in the set's
// order; and no goroutine is left behind. ops/test.sh runs this test with the
// race detector on the shape packages. Not parallel: it counts the goroutines
// preparing photos, which other builds would start.
func TestPhotosPreparedSideBySideAreTheSameViews(t *testing.T) {
	spin := smallSpinChair(t)
	var views []View
	for k, img := range spin.Rings[0].Images {
		views = append(views, View{Image: img, Azimuth: 30 * float64(k)})
	}
	opts := Options{}.WithDefaults()
	fields := func(vs []*multiview.View) []any {
		var all []any
		for _, v := range vs {
			all = append(all, v.P.Img.Pix, v.Seg.Alpha, v.Alpha, v.Loose, v.Lcov, v.LcovLoose, v.Az, v.El, v.Ls, v.Du, v.Dv, v.Lf, v.Cam, v.BaseZ)
		}
		return all
	}
	var progress []int
	vs, warnings, err := prepareViews(context.Background(), views, opts, &progressReporter{fn: func(s Step, p int) {
		require.Equal(t, StepAnalyzing, s)
		progress = append(progress, p)
	}})
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Len(t, progress, len(views), "one step of progress a photo")
	for k, p := range progress {
		require.Equal(t, 5+20*(k+1)/len(views), p, "progress in the set's order")
	}
	requireNoPreparing(t)
	if !raceDetector { // the detector watches the two goroutines; the uninstrumented run compares
		az := Azimuths(views)
		var alone []*multiview.View
		for i, v := range views {
			view, warning, err := prepareView(context.Background(), v.Image, az[i], opts, i)
			require.NoError(t, err)
			require.False(t, warning)
			alone = append(alone, view)
		}
		require.Equal(t, fields(alone), fields(vs), "the same views, in the set's order, as each photo prepared alone")
	}

	// Photos 4 and 9 are not photos: the set is refused naming photo 4,
	// whichever of the two goroutines reads photo 9 first.
	bad := append([]View(nil), views...)
	bad[3].Image, bad[8].Image = []byte("not a photo at all"), []byte("nor this")
	_, _, err = prepareViews(context.Background(), bad, opts, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "photo 4:")
	requireNoPreparing(t)
}

// requireNoPreparing fails when a goroutine is still preparing photos.
func requireNoPreparing(t *testing.T) {
	t.Helper()
	require.Zero(t, preparing.Load(), "a photo still being prepared")
}
