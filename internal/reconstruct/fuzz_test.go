package reconstruct

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// FuzzDecodeSegment feeds malformed and odd images through decoding and segmentation,
// the stages that see untrusted bytes first. They may reject input, never panic.
func FuzzDecodeSegment(f *testing.F) {
	f.Add(encodePNGBytes(f, blobScene(48, 40, solid(40, 70, 200)).render()))
	f.Add(encodeJPEGBytes(f, bottleScene(40, 48, solid(250, 250, 250), true).render()))
	f.Add(encodePNGBytes(f, image.NewGray(image.Rect(0, 0, 3, 1))))
	alpha := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	alpha.SetNRGBA(8, 8, color.NRGBA{255, 0, 0, 255})
	f.Add(encodePNGBytes(f, alpha))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10, 'E', 'x', 'i', 'f', 0, 0, 'I', 'I', '*', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := imagecheck.Check(data)
		if err == nil && info.Width*info.Height > 1<<20 {
			return // keep each fuzz iteration fast; big inputs are covered elsewhere
		}
		p, err := segment.DecodePhoto(context.Background(), data, 128)
		if err != nil {
			if !errors.Is(err, imagecheck.ErrInvalidType) && !errors.Is(err, imagecheck.ErrUnreadable) &&
				!errors.Is(err, imagecheck.ErrDimensions) && !errors.Is(err, imagecheck.ErrTooLarge) {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		seg, err := segment.Segment(context.Background(), p)
		if err != nil {
			t.Fatalf("segment: %v", err)
		}
		if seg.Area <= 0 || seg.Bbox.Empty() {
			t.Fatalf("segmentation must always keep an object, got area %d bbox %v", seg.Area, seg.Bbox)
		}
		if _, err := segment.DetectParts(context.Background(), seg); err != nil {
			t.Fatalf("parts: %v", err)
		}
	})
}
