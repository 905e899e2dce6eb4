package segment

import (
	"context"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScaleToNRGBAOpaqueFastPath: for decoded JPEGs (YCbCr at every chroma
// subsampling, grey), at sub-image origins and sizes above and below the
// working size, ScaleToNRGBA gives exactly what the per-pixel colour lookup and
// the alpha-weighted box average give (refScaleToNRGBA, the path before the
// chroma-column table and the plain sums for opaque images).
func TestScaleToNRGBAOpaqueFastPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	for _, r := range ratios {
		for _, size := range [][2]int{{301, 203}, {517, 389}} {
			img := image.NewYCbCr(image.Rect(0, 0, size[0], size[1]), r)
			for i := range img.Y {
				img.Y[i] = uint8(rng.IntN(256))
			}
			for i := range img.Cb {
				img.Cb[i], img.Cr[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
			}
			sub := img.SubImage(image.Rect(3, 5, size[0]-2, size[1]-1))
			gray := image.NewGray(image.Rect(1, 1, size[0], size[1]))
			for i := range gray.Pix {
				gray.Pix[i] = uint8(rng.IntN(256))
			}
			for _, src := range []image.Image{img, sub, gray} {
				for _, maxSide := range []int{1024, 200, 97} {
					got, err := ScaleToNRGBA(ctx, src, maxSide)
					require.NoError(t, err)
					want := refScaleToNRGBA(src, maxSide)
					require.Equal(t, want.Rect, got.Rect)
					require.Equal(t, want.Pix, got.Pix, "%T %v max %d", src, r, maxSide)
				}
			}
		}
	}
}

// refScaleToNRGBA is ScaleToNRGBA as it was: each pixel's colour from
// YOffset/COffset (or Gray), every pixel weighted by its alpha.
func refScaleToNRGBA(img image.Image, maxSide int) *image.NRGBA {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	pixel := func(x, y int) [4]uint8 {
		switch src := img.(type) {
		case *image.YCbCr:
			yi := src.YOffset(b.Min.X+x, b.Min.Y+y)
			ci := src.COffset(b.Min.X+x, b.Min.Y+y)
			r, g, bb := color.YCbCrToRGB(src.Y[yi], src.Cb[ci], src.Cr[ci])
			return [4]uint8{r, g, bb, 255}
		case *image.Gray:
			v := src.Pix[src.PixOffset(b.Min.X+x, b.Min.Y+y)]
			return [4]uint8{v, v, v, 255}
		}
		panic("unexpected image type")
	}
	long := max(sw, sh)
	if long <= maxSide {
		out := image.NewNRGBA(image.Rect(0, 0, sw, sh))
		for y := range sh {
			for x := range sw {
				p := pixel(x, y)
				copy(out.Pix[y*out.Stride+4*x:], p[:])
			}
		}
		return out
	}
	scale := float64(maxSide) / float64(long)
	dw := max(1, int(float64(sw)*scale+0.5))
	dh := max(1, int(float64(sh)*scale+0.5))
	out := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	sy := 0
	for dy := range dh {
		y1 := min(sh, (dy+1)*sh/dh)
		acc := make([]uint64, 4*dw)
		cnt := make([]uint64, dw)
		for ; sy < y1; sy++ {
			for dx := range dw {
				for x := min(sw, dx*sw/dw); x < min(sw, (dx+1)*sw/dw); x++ {
					p := pixel(x, sy)
					a := uint64(p[3])
					acc[4*dx] += uint64(p[0]) * a
					acc[4*dx+1] += uint64(p[1]) * a
					acc[4*dx+2] += uint64(p[2]) * a
					acc[4*dx+3] += a
					cnt[dx]++
				}
			}
		}
		o := out.Pix[dy*out.Stride:]
		for dx := range dw {
			as := acc[4*dx+3]
			if as > 0 {
				o[4*dx] = uint8((acc[4*dx] + as/2) / as)
				o[4*dx+1] = uint8((acc[4*dx+1] + as/2) / as)
				o[4*dx+2] = uint8((acc[4*dx+2] + as/2) / as)
			}
			if cnt[dx] > 0 {
				o[4*dx+3] = uint8((as + cnt[dx]/2) / cnt[dx])
			}
		}
	}
	return out
}
