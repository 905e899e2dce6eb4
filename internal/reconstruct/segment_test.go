package reconstruct

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
)

func photoFrom(img *image.NRGBA) *photo {
	return &photo{img: img, w: img.Rect.Dx(), h: img.Rect.Dy(), srcW: img.Rect.Dx(), srcH: img.Rect.Dy(), hasAlpha: meaningfulAlpha(img)}
}

func maskOf(s *segmentation) []bool {
	m := make([]bool, len(s.alpha))
	for i, a := range s.alpha {
		m[i] = a >= 128
	}
	return m
}

func TestSegmentIoU(t *testing.T) {
	t.Parallel()
	const w, h = 640, 640
	tests := []struct {
		name  string
		scene scene
	}{
		{"bottle on white", bottleScene(w, h, solid(252, 252, 252), false)},
		{"bottle on white with soft shadow", bottleScene(w, h, solid(245, 245, 245), true)},
		{"bottle on coloured backdrop", bottleScene(w, h, solid(230, 180, 60), true)},
		{"bottle on mild gradient with shadow", bottleScene(w, h, gradient([3]float64{235, 238, 245}, [3]float64{200, 205, 215}, h), true)},
		{"blob on blue", blobScene(w, h, solid(40, 70, 200))},
		{"blob on gradient", blobScene(w, h, gradient([3]float64{250, 250, 250}, [3]float64{215, 215, 220}, h))},
		{"rectangle on blue", rectScene(w, h)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := photoFrom(tc.scene.render())
			seg, err := segment(context.Background(), p)
			require.NoError(t, err)
			got := iou(maskOf(seg), tc.scene.truth())
			t.Logf("IoU %.4f", got)
			require.GreaterOrEqual(t, got, 0.97)
		})
	}
}

func TestSegmentUsesAlpha(t *testing.T) {
	t.Parallel()
	sc := blobScene(300, 240, solid(0, 0, 0))
	img := image.NewNRGBA(image.Rect(0, 0, sc.w, sc.h))
	truth := sc.truth()
	for i, in := range truth {
		if in {
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = 200, 90, 30, 255
		} else {
			// Transparent pixels carry a colour close to the object's on purpose: only
			// alpha may decide.
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = 190, 90, 30, 0
		}
	}
	img.SetNRGBA(5, 5, color.NRGBA{200, 90, 30, 255}) // a stray opaque speck is dropped
	p := photoFrom(img)
	require.True(t, p.hasAlpha)
	seg, err := segment(context.Background(), p)
	require.NoError(t, err)
	require.GreaterOrEqual(t, iou(maskOf(seg), truth), 0.99)
	require.Zero(t, seg.alpha[5*sc.w+5])
}
