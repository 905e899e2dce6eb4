package texture

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// AtlasQuality balances GLB size (the 2 MB budget) against visible JPEG artefacts.
const AtlasQuality = 88

// BuildAtlas cuts the object's region out of the photo as the model's only texture.
// Pixels outside the solid interior of the object (background and the anti-aliased
// edge, which mixes in backdrop colour) are replaced by a push-pull fill from the
// interior, so the rim and the stretched sides of the model continue the product's
// own edge colours instead of showing a halo of backdrop.
func BuildAtlas(ctx context.Context, p *segment.Photo, seg *segment.Segmentation) (*AtlasSource, UVMapper, error) {
	b := seg.Bbox
	margin := max(4, max(b.Dx(), b.Dy())/50)
	r := image.Rect(b.Min.X-margin, b.Min.Y-margin, b.Max.X+margin, b.Max.Y+margin).Intersect(image.Rect(0, 0, p.W, p.H))
	w, h := r.Dx(), r.Dy()
	col := make([][3]float32, w*h)
	wt := make([]float32, w*h)
	inner := make([]bool, w*h)
	for y := range h {
		row := p.Img.Pix[(r.Min.Y+y)*p.Img.Stride:]
		for x := range w {
			sx := r.Min.X + x
			i := y*w + x
			col[i] = [3]float32{float32(row[4*sx]), float32(row[4*sx+1]), float32(row[4*sx+2])}
			inner[i] = seg.Alpha[(r.Min.Y+y)*p.W+sx] >= 250
		}
	}
	// Two pixels inside the outline, camera sharpening halos and JPEG chroma
	// subsampling still carry backdrop colour; only trust pixels beyond them.
	inner = segment.Erode(segment.Erode(inner, w, h), w, h)
	solid := 0
	for i, in := range inner {
		if in {
			wt[i] = 1
			solid++
		}
	}
	if solid == 0 {
		for y := range h {
			for x := range w {
				if seg.Alpha[(r.Min.Y+y)*p.W+r.Min.X+x] >= 128 {
					wt[y*w+x] = 1
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, UVMapper{}, err
	}
	pushPull(col, wt, w, h)
	return &AtlasSource{Col: col, W: w, H: h}, UVMapper{X0: float64(r.Min.X), Y0: float64(r.Min.Y), w: float64(w), h: float64(h)}, nil
}

// AtlasSource is the filled crop the atlas JPEG is encoded from; it can be encoded
// again smaller when the GLB would exceed its size budget.
type AtlasSource struct {
	Col  [][3]float32
	W, H int
}

// Encode resamples to power-of-two sides (nearest in log scale, at most maxSide) so
// every viewer, including WebGL1-era ones, can mipmap the texture; UVs are
// normalised, so the anisotropic resize needs no geometry change.
func (a *AtlasSource) Encode(maxSide, quality int) ([]byte, error) {
	aw, ah := nearestPow2(a.W, maxSide), nearestPow2(a.H, maxSide)
	img := image.NewRGBA(image.Rect(0, 0, aw, ah))
	resampleInto(img, a.Col, a.W, a.H)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode atlas: %w", err)
	}
	return buf.Bytes(), nil
}

func ClampByte(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// pushPull fills pixels of weight < 1 from a pyramid of weighted averages of the
// known pixels (Gortler et al., "The Lumigraph"): smooth, hole-size independent and
// linear in the number of pixels.
func pushPull(col [][3]float32, wt []float32, w, h int) {
	if w <= 1 && h <= 1 {
		return
	}
	cw, ch := (w+1)/2, (h+1)/2
	ccol := make([][3]float32, cw*ch)
	cwt := make([]float32, cw*ch)
	for y := range ch {
		for x := range cw {
			var s [3]float32
			sw := float32(0)
			for dy := range 2 {
				for dx := range 2 {
					xx, yy := 2*x+dx, 2*y+dy
					if xx >= w || yy >= h {
						continue
					}
					k := wt[yy*w+xx]
					c := col[yy*w+xx]
					s[0] += c[0] * k
					s[1] += c[1] * k
					s[2] += c[2] * k
					sw += k
				}
			}
			i := y*cw + x
			if sw > 0 {
				ccol[i] = [3]float32{s[0] / sw, s[1] / sw, s[2] / sw}
			}
			cwt[i] = min(1, sw)
		}
	}
	pushPull(ccol, cwt, cw, ch)
	for y := range h {
		for x := range w {
			i := y*w + x
			k := wt[i]
			if k >= 1 {
				continue
			}
			c := ccol[(y/2)*cw+x/2]
			col[i] = [3]float32{
				col[i][0]*k + c[0]*(1-k),
				col[i][1]*k + c[1]*(1-k),
				col[i][2]*k + c[2]*(1-k),
			}
			wt[i] = 1
		}
	}
}

// nearestPow2 returns the power of two closest to n in log scale, capped at limit.
func nearestPow2(n, limit int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	if p < n && float64(n)/float64(p) > float64(2*p)/float64(n) {
		p *= 2
	}
	for p > limit && p > 1 {
		p /= 2
	}
	return p
}

// resampleInto fills dst from the w×h colour buffer: box-averaging when shrinking
// (no aliasing), bilinear when enlarging (no blockiness).
func resampleInto(dst *image.RGBA, col [][3]float32, w, h int) {
	aw, ah := dst.Rect.Dx(), dst.Rect.Dy()
	sx, sy := float64(w)/float64(aw), float64(h)/float64(ah)
	for ay := range ah {
		fy := (float64(ay)+0.5)*sy - 0.5
		y0 := min(max(int(math.Floor(fy)), 0), h-1)
		y1 := min(y0+1, h-1)
		ty := min(max(fy-float64(y0), 0), 1)
		// Box footprint in y when shrinking.
		by0, by1 := int(float64(ay)*sy), max(int(float64(ay)*sy)+1, int(float64(ay+1)*sy))
		for ax := range aw {
			var c [3]float32
			if sx > 1 || sy > 1 {
				bx0, bx1 := int(float64(ax)*sx), max(int(float64(ax)*sx)+1, int(float64(ax+1)*sx))
				n := float32(0)
				for y := by0; y < min(by1, h); y++ {
					for x := bx0; x < min(bx1, w); x++ {
						v := col[y*w+x]
						c[0] += v[0]
						c[1] += v[1]
						c[2] += v[2]
						n++
					}
				}
				if n > 0 {
					c[0], c[1], c[2] = c[0]/n, c[1]/n, c[2]/n
				}
			} else {
				fx := (float64(ax)+0.5)*sx - 0.5
				x0 := min(max(int(math.Floor(fx)), 0), w-1)
				x1 := min(x0+1, w-1)
				tx := float32(min(max(fx-float64(x0), 0), 1))
				t := float32(ty)
				for k := range 3 {
					top := col[y0*w+x0][k]*(1-tx) + col[y0*w+x1][k]*tx
					bot := col[y1*w+x0][k]*(1-tx) + col[y1*w+x1][k]*tx
					c[k] = top*(1-t) + bot*t
				}
			}
			o := dst.Pix[ay*dst.Stride+4*ax:]
			o[0], o[1], o[2], o[3] = ClampByte(c[0]), ClampByte(c[1]), ClampByte(c[2]), 255
		}
	}
}
