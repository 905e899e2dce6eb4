package reconstruct

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// CutoutOptions are the wizard's two toggles on the background-removed photo
// (issue 13, "verify" step). The chosen cutout is also what the model is built
// from, so both options change the model's silhouette and texture the way the
// merchant saw them.
type CutoutOptions struct {
	// CleanEdges refines the outline: one pixel of the backdrop-coloured fringe is
	// trimmed, the edge is feathered over a few pixels, and edge pixels take the
	// colour of the object just inside them, so no halo of the old backdrop stays.
	CleanEdges bool `json:"cleanEdges"`
	// KeepShadow restores the contact shadow under the object: the segmenter
	// deliberately treats soft shadows as backdrop, so this puts the darkening
	// below the object back as a translucent black layer (never opaque enough to
	// become geometry: its alpha stays under the 50 % the reconstructor keeps).
	KeepShadow bool `json:"keepShadow"`
}

// Shadow tuning: where a contact shadow may be, and how strong it may get.
const (
	shadowMaxAlpha  = 110  // < 128, so a rebuilt model never turns shadow into shape
	shadowBandAbove = 0.25 // share of the object's height above its base searched
	shadowBandBelow = 0.20 // … and below it
	shadowSideGrow  = 0.15 // share of its width searched beside it
	shadowMinDark   = 3.0  // Lab L* darkening ignored as noise
	shadowFullDark  = 30.0 // darkening that gives the full shadow alpha
	shadowMaxChroma = 15.0 // a chroma change this large is another object, not shade
	edgeFeather     = 2    // feather radius of Clean edges, pixels
)

// Cutout removes the photo's background with the reconstructor's own decoding and
// segmentation and returns the object as a PNG with alpha (cropped to the object
// plus a margin, at working resolution) and its size. Same photo and options, same
// bytes: the result is cached per (photo, options).
func Cutout(ctx context.Context, data []byte, o CutoutOptions) ([]byte, int, int, error) {
	p, err := segment.DecodePhoto(ctx, data, DefaultWorkingSize)
	if err != nil {
		return nil, 0, 0, err
	}
	seg, err := segment.Segment(ctx, p)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("segment photo: %w", err)
	}
	img := composeCutout(p, seg, o)
	out, err := encodePNG(img)
	if err != nil {
		return nil, 0, 0, err
	}
	return out, img.Rect.Dx(), img.Rect.Dy(), nil
}

// composeCutout applies the options to the segmentation and paints the result.
func composeCutout(p *segment.Photo, seg *segment.Segmentation, o CutoutOptions) *image.NRGBA {
	n := p.W * p.H
	obj := seg.Alpha
	if o.CleanEdges && !seg.WholeFrame {
		obj = featherAlpha(seg.Alpha, p.W, p.H)
	}
	var shadow []uint8
	if o.KeepShadow && !seg.WholeFrame && !p.HasAlpha {
		shadow = contactShadow(p, seg, obj)
	}
	// Crop to everything visible plus a margin, like the thumbnail's cut-out.
	minX, minY, maxX, maxY := p.W, p.H, -1, -1
	for i := range n {
		if obj[i] > 0 || shadow != nil && shadow[i] > 0 {
			x, y := i%p.W, i/p.W
			minX, maxX = min(minX, x), max(maxX, x)
			minY, maxY = min(minY, y), max(maxY, y)
		}
	}
	if maxX < 0 {
		minX, minY, maxX, maxY = 0, 0, p.W-1, p.H-1
	}
	margin := max(2, max(maxX-minX, maxY-minY)/20)
	r := image.Rect(minX-margin, minY-margin, maxX+1+margin, maxY+1+margin).Intersect(image.Rect(0, 0, p.W, p.H))
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		src := p.Img.Pix[y*p.Img.Stride:]
		dst := out.Pix[(y-r.Min.Y)*out.Stride:]
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*p.W + x
			// The photo's own alpha (a PNG that was already cut out) still counts.
			ao := float64(obj[i]) * float64(src[4*x+3]) / (255 * 255)
			as := 0.0
			if shadow != nil {
				as = float64(shadow[i]) / 255
			}
			a := ao + (1-ao)*as // object over its shadow
			d := dst[4*(x-r.Min.X):]
			if a <= 0 {
				continue
			}
			c := [3]float64{float64(src[4*x]), float64(src[4*x+1]), float64(src[4*x+2])}
			if o.CleanEdges && obj[i] < 255 && obj[i] > 0 {
				c = innerColour(p, obj, x, y, c)
			}
			// Shadow is black: premultiplied sum over the combined alpha.
			for k := range 3 {
				d[k] = uint8(min(255, c[k]*ao/a+0.5))
			}
			d[3] = uint8(min(255, a*255+0.5))
		}
	}
	return out
}

// featherAlpha trims one pixel of fringe and feathers the outline: a box blur of
// the eroded binary mask, so the interior stays fully opaque.
func featherAlpha(alpha []uint8, w, h int) []uint8 {
	bin := make([]bool, w*h)
	for i, a := range alpha {
		bin[i] = a >= 128
	}
	bin = segment.Erode(bin, w, h)
	// Separable box blur over the binary mask (counts), radius edgeFeather.
	rad := edgeFeather
	rows := make([]uint16, w*h)
	for y := range h {
		sum := 0
		row := bin[y*w : (y+1)*w]
		for x := -rad; x < w+rad; x++ {
			if x+rad < w && x+rad >= 0 && row[x+rad] {
				sum++
			}
			if x-rad-1 >= 0 && x-rad-1 < w && row[x-rad-1] {
				sum--
			}
			if x >= 0 && x < w {
				rows[y*w+x] = uint16(sum)
			}
		}
	}
	side := 2*rad + 1
	out := make([]uint8, w*h)
	for x := range w {
		sum := 0
		for y := -rad; y < h+rad; y++ {
			if y+rad < h && y+rad >= 0 {
				sum += int(rows[(y+rad)*w+x])
			}
			if y-rad-1 >= 0 && y-rad-1 < h {
				sum -= int(rows[(y-rad-1)*w+x])
			}
			if y >= 0 && y < h {
				// Inside pixels keep full opacity; the fade happens outwards from
				// the trimmed edge, so the object does not shrink visibly.
				if bin[y*w+x] {
					out[y*w+x] = uint8(max(128, 255*min(sum*2, side*side)/(side*side)))
				} else {
					out[y*w+x] = uint8(min(127, 255*sum/(side*side)))
				}
			}
		}
	}
	return out
}

// innerColour replaces an edge pixel's colour (a mix of object and old backdrop)
// by the mean of the fully opaque object pixels near it.
func innerColour(p *segment.Photo, obj []uint8, x, y int, fallback [3]float64) [3]float64 {
	const r = 3
	var s [3]float64
	cnt := 0
	for yy := max(0, y-r); yy <= min(p.H-1, y+r); yy++ {
		row := p.Img.Pix[yy*p.Img.Stride:]
		for xx := max(0, x-r); xx <= min(p.W-1, x+r); xx++ {
			if obj[yy*p.W+xx] == 255 {
				s[0] += float64(row[4*xx])
				s[1] += float64(row[4*xx+1])
				s[2] += float64(row[4*xx+2])
				cnt++
			}
		}
	}
	if cnt == 0 {
		return fallback
	}
	return [3]float64{s[0] / float64(cnt), s[1] / float64(cnt), s[2] / float64(cnt)}
}

// contactShadow measures how much darker than the fitted backdrop each pixel in a
// band around the object's base is, with little change of hue, and turns that into
// a translucent shadow alpha that fades out below the base.
func contactShadow(p *segment.Photo, seg *segment.Segmentation, obj []uint8) []uint8 {
	bg := segment.FitBackground(seg.Slab, seg.Sw, seg.Sh)
	b := seg.Bbox
	bh, bw := float64(b.Dy()), float64(b.Dx())
	y0 := max(0, b.Max.Y-int(shadowBandAbove*bh))
	y1 := min(p.H, b.Max.Y+int(shadowBandBelow*bh)+1)
	x0 := max(0, b.Min.X-int(shadowSideGrow*bw))
	x1 := min(p.W, b.Max.X+int(shadowSideGrow*bw)+1)
	out := make([]uint8, p.W*p.H)
	table := segment.SrgbLinearTable()
	inv := 1 / float64(seg.F)
	below := max(1, float64(y1-b.Max.Y))
	for y := y0; y < y1; y++ {
		row := p.Img.Pix[y*p.Img.Stride:]
		gy := (float64(y)+0.5)*inv - 0.5
		fade := 1.0
		if y >= b.Max.Y {
			fade = 1 - float64(y-b.Max.Y)/below
		}
		for x := x0; x < x1; x++ {
			i := y*p.W + x
			if obj[i] == 255 {
				continue
			}
			c := segment.ToLab(table, row[4*x], row[4*x+1], row[4*x+2])
			q := bg.At((float64(x)+0.5)*inv-0.5, gy)
			dark := float64(q.L - c.L)
			if dark <= shadowMinDark {
				continue
			}
			chroma := math.Hypot(float64(c.A-q.A), float64(c.B-q.B))
			hue := max(0, 1-chroma/shadowMaxChroma)
			s := segment.Clamp01((dark-shadowMinDark)/(shadowFullDark-shadowMinDark)) * hue * fade
			out[i] = uint8(s*shadowMaxAlpha + 0.5)
		}
	}
	return out
}
