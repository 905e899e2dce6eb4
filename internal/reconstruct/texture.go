package reconstruct

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
)

// atlasQuality balances GLB size (the 2 MB budget) against visible JPEG artefacts.
const atlasQuality = 88

// buildAtlas cuts the object's region out of the photo as the model's only texture.
// Pixels outside the solid interior of the object (background and the anti-aliased
// edge, which mixes in backdrop colour) are replaced by a push-pull fill from the
// interior, so the rim and the stretched sides of the model continue the product's
// own edge colours instead of showing a halo of backdrop.
func buildAtlas(ctx context.Context, p *photo, seg *segmentation, maxSide int) ([]byte, uvMapper, error) {
	b := seg.bbox
	margin := max(4, max(b.Dx(), b.Dy())/50)
	r := image.Rect(b.Min.X-margin, b.Min.Y-margin, b.Max.X+margin, b.Max.Y+margin).Intersect(image.Rect(0, 0, p.w, p.h))
	w, h := r.Dx(), r.Dy()
	col := make([][3]float32, w*h)
	wt := make([]float32, w*h)
	inner := make([]bool, w*h)
	for y := range h {
		row := p.img.Pix[(r.Min.Y+y)*p.img.Stride:]
		for x := range w {
			sx := r.Min.X + x
			i := y*w + x
			col[i] = [3]float32{float32(row[4*sx]), float32(row[4*sx+1]), float32(row[4*sx+2])}
			inner[i] = seg.alpha[(r.Min.Y+y)*p.w+sx] >= 250
		}
	}
	// Two pixels inside the outline, camera sharpening halos and JPEG chroma
	// subsampling still carry backdrop colour; only trust pixels beyond them.
	inner = erode(erode(inner, w, h), w, h)
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
				if seg.alpha[(r.Min.Y+y)*p.w+r.Min.X+x] >= 128 {
					wt[y*w+x] = 1
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, uvMapper{}, err
	}
	pushPull(col, wt, w, h)
	scale := min(1, float64(maxSide)/float64(max(w, h)))
	aw, ah := max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
	img := image.NewRGBA(image.Rect(0, 0, aw, ah))
	for ay := range ah {
		y0, y1 := ay*h/ah, max(ay*h/ah+1, (ay+1)*h/ah)
		for ax := range aw {
			x0, x1 := ax*w/aw, max(ax*w/aw+1, (ax+1)*w/aw)
			var s [3]float32
			n := float32(0)
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					c := col[y*w+x]
					s[0] += c[0]
					s[1] += c[1]
					s[2] += c[2]
					n++
				}
			}
			o := img.Pix[ay*img.Stride+4*ax:]
			o[0], o[1], o[2], o[3] = clampByte(s[0]/n), clampByte(s[1]/n), clampByte(s[2]/n), 255
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: atlasQuality}); err != nil {
		return nil, uvMapper{}, fmt.Errorf("encode atlas: %w", err)
	}
	return buf.Bytes(), uvMapper{x0: float64(r.Min.X), y0: float64(r.Min.Y), w: float64(w), h: float64(h)}, nil
}

func clampByte(v float32) uint8 {
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
