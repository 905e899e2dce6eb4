package segment

import (
	"context"
	"fmt"
	"image"
	"image/color"

	"github.com/photo3d/photo3d/internal/imagecheck"
)

// Photo is the decoded, upright photo at working resolution. Pixels are
// non-premultiplied RGBA so colour statistics are not darkened by transparency.
type Photo struct {
	Img      *image.NRGBA
	W, H     int
	HasAlpha bool // some pixels are meaningfully transparent
	SrcW     int  // upright size before scaling
	SrcH     int
}

// DecodePhoto validates and decodes data (EXIF orientation first, via imagecheck; big
// JPEGs at a reduced scale) and area-averages it to at most maxSide pixels on the long side. Working at a bounded
// size keeps every later stage's cost independent of the camera's megapixels.
func DecodePhoto(ctx context.Context, data []byte, maxSide int) (*Photo, error) {
	// A big JPEG is decoded already reduced (to no less than maxSide), so
	// its full-size pixels never exist in the worker's memory.
	img, full, err := imagecheck.DecodeReduced(data, maxSide)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := ScaleToNRGBA(ctx, img, maxSide)
	if err != nil {
		return nil, err
	}
	p := &Photo{Img: out, W: out.Rect.Dx(), H: out.Rect.Dy(), SrcW: full.X, SrcH: full.Y}
	p.HasAlpha = MeaningfulAlpha(out)
	return p, nil
}

// MeaningfulAlpha reports whether the alpha channel separates an object from a
// transparent background (at least 0.5% clear and 0.5% opaque pixels).
func MeaningfulAlpha(img *image.NRGBA) bool {
	n := img.Rect.Dx() * img.Rect.Dy()
	clear, opaque := 0, 0
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] < 128 {
			clear++
		} else {
			opaque++
		}
	}
	return clear*200 >= n && opaque*200 >= n
}

// rowReader returns a function filling one source row as NRGBA bytes, with fast paths
// for the decoders' concrete types (JPEG → YCbCr, PNG → NRGBA/RGBA/Gray, WebP →
// YCbCr/NYCbCrA) and a generic fallback.
func rowReader(img image.Image) func(y int, dst []uint8) {
	b := img.Bounds()
	w := b.Dx()
	switch src := img.(type) {
	case *image.NRGBA:
		return func(y int, dst []uint8) {
			off := src.PixOffset(b.Min.X, b.Min.Y+y)
			copy(dst, src.Pix[off:off+4*w])
		}
	case *image.RGBA:
		return func(y int, dst []uint8) {
			off := src.PixOffset(b.Min.X, b.Min.Y+y)
			row := src.Pix[off : off+4*w]
			for x := range w {
				r, g, bb, a := row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]
				if a != 0 && a != 255 {
					r = uint8(min(255, int(r)*255/int(a)))
					g = uint8(min(255, int(g)*255/int(a)))
					bb = uint8(min(255, int(bb)*255/int(a)))
				}
				dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = r, g, bb, a
			}
		}
	case *image.YCbCr:
		// COffset is a row part plus a column part, so each pixel's chroma
		// column is looked up once per image rather than per pixel.
		ccol := chromaColumns(src.COffset, b, w)
		return func(y int, dst []uint8) {
			yi := src.YOffset(b.Min.X, b.Min.Y+y)
			ys := src.Y[yi : yi+w]
			ci := src.COffset(b.Min.X, b.Min.Y+y)
			cb, cr := src.Cb[ci:], src.Cr[ci:]
			dst = dst[:4*w]
			for x, yy := range ys {
				k := ccol[x]
				r, g, bb := color.YCbCrToRGB(yy, cb[k], cr[k])
				dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = r, g, bb, 255
			}
		}
	case *image.NYCbCrA:
		return func(y int, dst []uint8) {
			for x := range w {
				yi := src.YOffset(b.Min.X+x, b.Min.Y+y)
				ci := src.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bb := color.YCbCrToRGB(src.Y[yi], src.Cb[ci], src.Cr[ci])
				a := src.A[src.AOffset(b.Min.X+x, b.Min.Y+y)]
				dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = r, g, bb, a
			}
		}
	case *image.Gray:
		return func(y int, dst []uint8) {
			off := src.PixOffset(b.Min.X, b.Min.Y+y)
			for x := range w {
				v := src.Pix[off+x]
				dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = v, v, v, 255
			}
		}
	}
	return func(y int, dst []uint8) {
		for x := range w {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = c.R, c.G, c.B, c.A
		}
	}
}

// chromaColumns returns, for each of the w columns of b, coff(x, y) −
// coff(b.Min.X, y): the same for every row y.
func chromaColumns(coff func(x, y int) int, b image.Rectangle, w int) []int {
	out := make([]int, w)
	c0 := coff(b.Min.X, b.Min.Y)
	for x := range w {
		out[x] = coff(b.Min.X+x, b.Min.Y) - c0
	}
	return out
}

// opaqueSource reports whether every pixel read from img has alpha 255.
func opaqueSource(img image.Image) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray:
		return true
	}
	return false
}

// ScaleToNRGBA converts img to NRGBA and, when its long side exceeds maxSide,
// box-filters it down with alpha-weighted averaging so transparent pixels' hidden
// colours do not bleed into the object's edge.
func ScaleToNRGBA(ctx context.Context, img image.Image, maxSide int) (*image.NRGBA, error) {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	read := rowReader(img)
	long := max(sw, sh)
	if long <= maxSide {
		out := image.NewNRGBA(image.Rect(0, 0, sw, sh))
		for y := range sh {
			if y%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			read(y, out.Pix[y*out.Stride:y*out.Stride+4*sw])
		}
		return out, nil
	}
	scale := float64(maxSide) / float64(long)
	dw := max(1, int(float64(sw)*scale+0.5))
	dh := max(1, int(float64(sh)*scale+0.5))
	out := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	// Column boundaries of each destination pixel in source coordinates.
	x0s := make([]int, dw+1)
	for dx := 0; dx <= dw; dx++ {
		x0s[dx] = min(sw, dx*sw/dw)
	}
	row := make([]uint8, 4*sw)
	acc := make([]uint64, 4*dw) // premultiplied r,g,b and alpha sums
	cnt := make([]uint64, dw)
	opaque := opaqueSource(img)
	sy := 0
	for dy := range dh {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scale photo: %w", err)
		}
		y1 := min(sh, (dy+1)*sh/dh)
		clear(acc)
		clear(cnt)
		for ; sy < y1; sy++ {
			read(sy, row)
			if opaque {
				// Every alpha is 255: the plain sums, weighted below.
				for dx := range dw {
					var r, g, bb uint64
					px := row[4*x0s[dx] : 4*x0s[dx+1]]
					for x := 0; x+3 < len(px); x += 4 {
						r += uint64(px[x])
						g += uint64(px[x+1])
						bb += uint64(px[x+2])
					}
					acc[4*dx] += r
					acc[4*dx+1] += g
					acc[4*dx+2] += bb
					cnt[dx] += uint64(x0s[dx+1] - x0s[dx])
				}
				continue
			}
			for dx := range dw {
				for x := x0s[dx]; x < x0s[dx+1]; x++ {
					a := uint64(row[4*x+3])
					acc[4*dx] += uint64(row[4*x]) * a
					acc[4*dx+1] += uint64(row[4*x+1]) * a
					acc[4*dx+2] += uint64(row[4*x+2]) * a
					acc[4*dx+3] += a
				}
				cnt[dx] += uint64(x0s[dx+1] - x0s[dx])
			}
		}
		if opaque {
			// The sums the weighted loop gives with a = 255 throughout.
			for dx := range dw {
				acc[4*dx] *= 255
				acc[4*dx+1] *= 255
				acc[4*dx+2] *= 255
				acc[4*dx+3] = 255 * cnt[dx]
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
	return out, nil
}
