package imagecheck

import (
	"bytes"
	"image"
	"image/draw"

	"github.com/bep/imagemeta"
)

// Orientation returns the EXIF orientation (1–8) stored in data, or 1 when there is
// none or it cannot be read. Broken metadata must never make a readable photo fail,
// so every metadata error degrades to "upright".
func Orientation(data []byte, format Format) int {
	var imf imagemeta.ImageFormat
	switch format {
	case FormatJPEG:
		imf = imagemeta.JPEG
	case FormatPNG:
		imf = imagemeta.PNG
	case FormatWebP:
		imf = imagemeta.WebP
	default:
		return 1
	}
	orientation := 1
	_, err := imagemeta.Decode(imagemeta.Options{
		R:           bytes.NewReader(data),
		ImageFormat: imf,
		Sources:     imagemeta.EXIF,
		ShouldHandleTag: func(ti imagemeta.TagInfo) bool {
			return ti.Tag == "Orientation"
		},
		HandleTag: func(ti imagemeta.TagInfo) error {
			if ti.Tag != "Orientation" {
				return nil
			}
			switch v := ti.Value.(type) {
			case uint16:
				orientation = int(v)
			case uint32:
				orientation = int(v)
			case int:
				orientation = v
			}
			return imagemeta.ErrStopWalking
		},
		LimitNumTags: 500,
	})
	if err != nil || orientation < 1 || orientation > 8 {
		return 1
	}
	return orientation
}

// applyOrientation returns img transformed so that EXIF orientation o becomes 1.
func applyOrientation(img image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	src := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := src.Pix[y*src.Stride : y*src.Stride+w*4]
		for x := range w {
			var dx, dy int
			switch o {
			case 2: // mirrored horizontally
				dx, dy = w-1-x, y
			case 3: // rotated 180°
				dx, dy = w-1-x, h-1-y
			case 4: // mirrored vertically
				dx, dy = x, h-1-y
			case 5: // transposed
				dx, dy = y, x
			case 6: // rotate 90° clockwise to view
				dx, dy = h-1-y, x
			case 7: // transversed
				dx, dy = h-1-y, w-1-x
			case 8: // rotate 90° counter-clockwise to view
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dy*dst.Stride+dx*4:dy*dst.Stride+dx*4+4], row[x*4:x*4+4])
		}
	}
	return dst
}
