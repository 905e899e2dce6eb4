package reconstruct

import (
	"context"
	"image"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// crop is the part r of img, as its own image with its origin at (0, 0).
func crop(img *image.NRGBA, r image.Rectangle) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(out.Pix[y*out.Stride:y*out.Stride+4*r.Dx()], img.Pix[(r.Min.Y+y)*img.Stride+4*r.Min.X:])
	}
	return out
}

// A bottle photographed so close that its cap runs off the top of the photo, or
// half of it off the left, is still built, and the merchant is told which edge
// cut it: the model stops at the frame. A bottle standing on the frame's lower
// edge, or clear of every edge, builds without a word.
func TestAProductCutOffByThePhotoIsBuiltWithAWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs four photos")
	}
	whole := twoToneBottle(320, 320).render()
	build := func(img *image.NRGBA) []string {
		t.Helper()
		res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, img), Options{StrictSubject: true}, nil)
		require.NoError(t, err, "a cut-off product is built, not refused")
		require.NotEmpty(t, res.GLB)
		return res.Warnings
	}

	require.Empty(t, build(whole), "the whole bottle, clear of every edge")
	require.Empty(t, build(crop(whole, image.Rect(0, 0, 320, 290))), "standing on the lower edge loses nothing a shopper looks at")
	require.Equal(t, []string{"The product runs off the top edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."},
		build(crop(whole, image.Rect(0, 60, 320, 320))), "the cap cut off at the top")
	require.Equal(t, []string{"The product runs off the left and top edges of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."},
		build(crop(whole, image.Rect(135, 60, 320, 320))), "the bottle's left side and its cap cut off")

	// Four hand-held photos, the third of them cut at its right edge: the warning names it.
	nan := math.NaN()
	views := make([]View, 4)
	for i := range views {
		img := whole
		if i == 2 {
			img = crop(whole, image.Rect(0, 0, 200, 320))
		}
		views[i] = View{Image: encodePNGBytes(t, img), Azimuth: nan}
	}
	res, err := NewBuiltin().(MultiViewReconstructor).ReconstructViews(context.Background(), views, Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"Photo 3: the product runs off the right edge of the photo, so the model may miss the part outside it. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."}, res.Warnings)
}
