package reconstruct

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// photo40MP is a 7744×5164 (40 MP, the upload limit) camera-like JPEG under
// the 10 MB upload cap: smooth shading, an object and sensor-like noise.
var photo40MP = sync.OnceValues(func() ([]byte, error) {
	const w, h = 7744, 5164
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			dx, dy := float64(x-w/2)/float64(w), float64(y-h/2)/float64(h)
			v := 200 - 60*(dx*dx+dy*dy)*4
			if dx*dx+dy*dy < 0.06 {
				v = 90 + 40*dx
			}
			img.Y[y*img.YStride+x] = uint8(max(0, min(255, v+rng.NormFloat64()*3)))
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			img.Cb[y*img.CStride+x] = uint8(128 + 20*float64(x)/float64(w))
			img.Cr[y*img.CStride+x] = uint8(140 - 10*float64(y)/float64(h))
		}
	}
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	return buf.Bytes(), err
})

// BenchmarkDecodePhoto40MP is the worker's first stage on a 40 MP JPEG:
// "reduced" is segment.DecodePhoto (the JPEG decoded at 1/4, then area-averaged to
// the working size); "full" is the earlier path, a full-size decode followed
// by the same averaging. B/op is the memory each costs (nothing is retained
// between iterations, so it bounds the peak heap the stage adds).
func BenchmarkDecodePhoto40MP(b *testing.B) {
	data, err := photo40MP()
	if err != nil {
		b.Fatal(err)
	}
	if len(data) > imagecheck.MaxUploadBytes {
		b.Fatalf("test photo is %d bytes, over the upload cap", len(data))
	}
	ctx := context.Background()
	b.Run("reduced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := segment.DecodePhoto(ctx, data, DefaultWorkingSize); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			img, err := imagecheck.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := segment.ScaleToNRGBA(ctx, img, DefaultWorkingSize); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodePhotoReducedMatchesFull: the reduced decode gives the working
// image the full decode gave, to within a couple of levels, at the same size,
// and reports the photo's full size.
func TestDecodePhotoReducedMatchesFull(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	src := image.NewNRGBA(image.Rect(0, 0, 4100, 2300))
	for y := range 2300 {
		for x := range 4100 {
			src.Set(x, y, color.NRGBA{uint8(x / 17), uint8(y / 9), uint8((x + y) / 25), 255})
		}
	}
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := segment.DecodePhoto(ctx, buf.Bytes(), DefaultWorkingSize)
	if err != nil {
		t.Fatal(err)
	}
	img, err := imagecheck.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want, err := segment.ScaleToNRGBA(ctx, img, DefaultWorkingSize)
	if err != nil {
		t.Fatal(err)
	}
	if p.Img.Rect != want.Rect || p.SrcW != 4100 || p.SrcH != 2300 {
		t.Fatalf("got %v from %dx%d, want %v from 4100x2300", p.Img.Rect, p.SrcW, p.SrcH, want.Rect)
	}
	var sum, n float64
	for i := range want.Pix {
		d := float64(want.Pix[i]) - float64(p.Img.Pix[i])
		sum += max(d, -d)
		n++
	}
	if mean := sum / n; mean > 2 {
		t.Fatalf("mean difference %.2f levels", mean)
	}
}
