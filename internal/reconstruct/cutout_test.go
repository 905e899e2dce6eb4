package reconstruct

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

func decodeCutout(t *testing.T, b []byte) *image.NRGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	n, ok := img.(*image.NRGBA)
	require.True(t, ok, "cutout is NRGBA with alpha, got %T", img)
	return n
}

// TestCutoutOptions: the plain cutout drops the backdrop and its shadow; Keep
// shadow brings back a translucent dark band under the base (never opaque enough
// to become geometry); Clean edges feathers the outline.
func TestCutoutOptions(t *testing.T) {
	s := bottleScene(320, 400, solid(235, 235, 235), true)
	photo := encodePNGBytes(t, s.render())
	ctx := context.Background()

	plainPNG, w, h, err := Cutout(ctx, photo, CutoutOptions{})
	require.NoError(t, err)
	plain := decodeCutout(t, plainPNG)
	require.Equal(t, [2]int{w, h}, [2]int{plain.Rect.Dx(), plain.Rect.Dy()})
	require.Less(t, w, 320, "cropped to the object")
	require.Zero(t, plain.Pix[3], "corner is transparent")

	shadowPNG, sw, sh, err := Cutout(ctx, photo, CutoutOptions{KeepShadow: true})
	require.NoError(t, err)
	shadow := decodeCutout(t, shadowPNG)
	require.GreaterOrEqual(t, sh, h, "the crop grows to hold the shadow")
	require.GreaterOrEqual(t, sw, w)
	translucent := func(img *image.NRGBA) (n int) {
		for i := 3; i < len(img.Pix); i += 4 {
			if a := img.Pix[i]; a > 20 && a < 128 {
				n++
			}
		}
		return n
	}
	require.Greater(t, translucent(shadow), translucent(plain)+200, "shadow pixels are back")
	// The rows below the object hold only shadow: translucent, never shape.
	require.Greater(t, sh, h)
	for y := sh - (sh-h)/2; y < sh; y++ {
		for x := range sw {
			require.LessOrEqual(t, int(shadow.Pix[y*shadow.Stride+4*x+3]), shadowMaxAlpha+1)
		}
	}

	cleanPNG, _, _, err := Cutout(ctx, photo, CutoutOptions{CleanEdges: true})
	require.NoError(t, err)
	clean := decodeCutout(t, cleanPNG)
	soft := func(img *image.NRGBA) (n int) {
		for i := 3; i < len(img.Pix); i += 4 {
			if a := img.Pix[i]; a > 0 && a < 255 {
				n++
			}
		}
		return n
	}
	require.Greater(t, soft(clean), soft(plain), "feathered edge is wider")
	require.NotEqual(t, plainPNG, cleanPNG)

	again, _, _, err := Cutout(ctx, photo, CutoutOptions{CleanEdges: true})
	require.NoError(t, err)
	require.Equal(t, cleanPNG, again, "deterministic, so caching by options is sound")
}

// TestCutoutFeedsReconstruction: a cutout is a photo with alpha, which the
// reconstructor trusts, so a model built from it has the cutout's silhouette.
func TestCutoutFeedsReconstruction(t *testing.T) {
	s := bottleScene(240, 320, solid(235, 235, 235), true)
	cut, _, _, err := Cutout(context.Background(), encodePNGBytes(t, s.render()), CutoutOptions{KeepShadow: true, CleanEdges: true})
	require.NoError(t, err)
	p, err := segment.DecodePhoto(context.Background(), cut, DefaultWorkingSize)
	require.NoError(t, err)
	require.True(t, p.HasAlpha)
	seg, err := segment.Segment(context.Background(), p)
	require.NoError(t, err)
	require.False(t, seg.WholeFrame)
	require.Less(t, seg.Bbox.Max.Y, p.H, "the shadow band below the base is not part of the shape")
}

func BenchmarkCutout(b *testing.B) {
	s := bottleScene(1600, 1200, solid(235, 235, 235), true)
	photo := encodeJPEGBytes(b, s.render())
	for b.Loop() {
		if _, _, _, err := Cutout(context.Background(), photo, CutoutOptions{CleanEdges: true, KeepShadow: true}); err != nil {
			b.Fatal(err)
		}
	}
}
