package reconstruct

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// encodePNG uses the fastest compression: these images are small and produced on
// every job, where CPU time matters more than a few kilobytes.
func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// cutout returns the object over transparency, cropped to its bounds plus a margin
// and scaled so its long side is at most maxSide (0: no scaling).
func cutout(p *segment.Photo, seg *segment.Segmentation, maxSide int) *image.NRGBA {
	b := seg.Bbox
	margin := max(2, max(b.Dx(), b.Dy())/20)
	r := image.Rect(b.Min.X-margin, b.Min.Y-margin, b.Max.X+margin, b.Max.Y+margin).Intersect(image.Rect(0, 0, p.W, p.H))
	w, h := r.Dx(), r.Dy()
	scale := 1.0
	if maxSide > 0 && max(w, h) > maxSide {
		scale = float64(maxSide) / float64(max(w, h))
	}
	ow, oh := max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	for oy := range oh {
		y0, y1 := r.Min.Y+oy*h/oh, r.Min.Y+max(oy*h/oh+1, (oy+1)*h/oh)
		for ox := range ow {
			x0, x1 := r.Min.X+ox*w/ow, r.Min.X+max(ox*w/ow+1, (ox+1)*w/ow)
			var s [3]float64
			sa, n := 0.0, 0.0
			for y := y0; y < y1; y++ {
				row := p.Img.Pix[y*p.Img.Stride:]
				for x := x0; x < x1; x++ {
					a := float64(seg.Alpha[y*p.W+x]) * float64(row[4*x+3]) / 255
					s[0] += float64(row[4*x]) * a
					s[1] += float64(row[4*x+1]) * a
					s[2] += float64(row[4*x+2]) * a
					sa += a
					n++
				}
			}
			o := out.Pix[oy*out.Stride+4*ox:]
			if sa > 0 {
				o[0], o[1], o[2] = uint8(s[0]/sa+0.5), uint8(s[1]/sa+0.5), uint8(s[2]/sa+0.5)
			}
			o[3] = uint8(sa/n + 0.5)
		}
	}
	return out
}

func thumbnailPNG(p *segment.Photo, seg *segment.Segmentation) ([]byte, error) {
	return encodePNG(cutout(p, seg, glbio.ThumbnailSize))
}

// maskPNG stores the soft alpha so the web app can show or reuse the cut-out.
func maskPNG(seg *segment.Segmentation) ([]byte, error) {
	img := &image.Gray{Pix: seg.Alpha, Stride: seg.W, Rect: image.Rect(0, 0, seg.W, seg.H)}
	return encodePNG(img)
}

// partsMapPNG paints each part in its mean colour on the segmentation grid (long side
// ≤ 256 px), transparent elsewhere, so the configurator can highlight parts on the
// photo.
func partsMapPNG(pm *segment.PartMap) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, pm.W, pm.H))
	cols := make([]color.NRGBA, len(pm.Parts))
	for i, p := range pm.Parts {
		r, g, b := p.MeanRGB()
		cols[i] = color.NRGBA{uint8(r + 0.5), uint8(g + 0.5), uint8(b + 0.5), 255}
	}
	for i, l := range pm.Labels {
		if l >= 0 {
			img.SetNRGBA(i%pm.W, i/pm.W, cols[l])
		}
	}
	return encodePNG(img)
}

// RemoveBackground returns the photo's object as a PNG over transparency, for the
// wizard's "Remove background" step. It runs the same decoding and segmentation as a
// reconstruction, so what the merchant verifies is what the model will be built from.
func RemoveBackground(ctx context.Context, image []byte) ([]byte, error) {
	p, err := segment.DecodePhoto(ctx, image, DefaultWorkingSize)
	if err != nil {
		return nil, err
	}
	seg, err := segment.Segment(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("segment photo: %w", err)
	}
	return encodePNG(cutout(p, seg, 0))
}
