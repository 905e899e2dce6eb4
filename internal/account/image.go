package account

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/imagecheck"
)

// Upload limits for account images.
const (
	// MaxAvatarBytes is spec §9's "Avatar max 5MB", enforced here.
	MaxAvatarBytes = 5 << 20
	// MaxLogoBytes caps logos at 2 MB.
	MaxLogoBytes = 2 << 20
	// AvatarSize is the side of the stored square avatar.
	AvatarSize = 256
	// MaxImagePixels caps the declared size of avatars and logos before
	// they are decoded: 16 MP is a modern phone photo, and decoding it
	// costs at most 64 MB (a 16-bit PNG of 40 MP cost ≈ 320 MB).
	MaxImagePixels = 16_000_000
	// MaxLogoSide is the largest side a stored logo keeps (it is shown in
	// a page header); larger logos are scaled down when re-encoded.
	MaxLogoSide = 1024
)

var (
	errAvatarTooLarge = fault.New(fault.TooLarge, "file_too_large", "Avatar images must be 5 MB or smaller.")
	errAvatarType     = fault.New(fault.UnsupportedMedia, "unsupported_file_type", "Avatar must be a PNG or JPEG image.")
	errAvatarUnread   = fault.New(fault.Invalid, "unreadable_image", "This image could not be read. Please try another PNG or JPEG file.")
	errLogoTooLarge   = fault.New(fault.TooLarge, "file_too_large", "Logos must be 2 MB or smaller.")
	errLogoType       = fault.New(fault.UnsupportedMedia, "unsupported_file_type", "Logo must be a PNG, JPEG or SVG image.")
	errLogoUnread     = fault.New(fault.Invalid, "unreadable_image", "This logo could not be read. Please try another PNG, JPEG or SVG file.")
	errImagePixels    = fault.New(fault.TooLarge, "image_too_large", "Images must be at most 16 megapixels (for example 4000 × 4000). Please use a smaller image.")
)

// checkPixels reads only the header and refuses images whose declared size
// exceeds MaxImagePixels, before any pixel memory is allocated.
func checkPixels(data []byte) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil // the decoder reports unreadable files with its own message
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return errImagePixels
	}
	return nil
}

// processedImage is an image ready to store.
type processedImage struct {
	Data        []byte
	ContentType string
	Ext         string
}

// ProcessAvatar checks an uploaded avatar (PNG or JPEG by magic bytes, at
// most 5 MB), applies EXIF orientation, centre-crops it to a square and
// resizes it to 256×256. PNGs stay PNG (they may be transparent); JPEGs stay JPEG.
func ProcessAvatar(data []byte) (processedImage, error) {
	if len(data) > MaxAvatarBytes {
		return processedImage{}, errAvatarTooLarge
	}
	format, err := imagecheck.Sniff(data)
	if err != nil || (format != imagecheck.FormatPNG && format != imagecheck.FormatJPEG) {
		return processedImage{}, errAvatarType
	}
	if err := checkPixels(data); err != nil {
		return processedImage{}, err
	}
	img, err := imagecheck.Decode(data)
	if err != nil {
		return processedImage{}, fault.Wrap(err, fault.Invalid, "unreadable_image", errAvatarUnread.Message)
	}
	return encodeImage(CenterSquare(img, AvatarSize), format)
}

// encodeImage writes pixels only: whatever metadata the upload carried
// (EXIF with GPS position, camera serials, comments) is not copied.
func encodeImage(img image.Image, format imagecheck.Format) (processedImage, error) {
	var buf bytes.Buffer
	var err error
	if format == imagecheck.FormatPNG {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88})
	}
	if err != nil {
		return processedImage{}, fmt.Errorf("encode image: %w", err)
	}
	return processedImage{Data: buf.Bytes(), ContentType: format.ContentType(), Ext: format.Extension()}, nil
}

// fitWithin scales img down (never up) so neither side exceeds side.
func fitWithin(img image.Image, side int) image.Image {
	b := img.Bounds()
	if b.Dx() <= side && b.Dy() <= side {
		return img
	}
	w, h := side, b.Dy()*side/b.Dx()
	if b.Dy() > b.Dx() {
		w, h = b.Dx()*side/b.Dy(), side
	}
	dst := image.NewNRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// CenterSquare crops the largest centred square out of img and scales it to
// size×size with a Catmull-Rom filter.
func CenterSquare(img image.Image, size int) *image.NRGBA {
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	x0 := b.Min.X + (b.Dx()-side)/2
	y0 := b.Min.Y + (b.Dy()-side)/2
	src := image.Rect(x0, y0, x0+side, y0+side)
	dst := image.NewNRGBA(image.Rect(0, 0, size, size))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, src, draw.Src, nil)
	return dst
}

// ProcessLogo checks an uploaded logo: PNG or JPEG (at most 16 MP, decoded
// with its orientation and re-encoded like avatars, so EXIF and GPS data
// never reach the public share pages; scaled to fit 1024×1024) or SVG
// (rebuilt by SanitizeSVG), at most 2 MB.
func ProcessLogo(data []byte) (processedImage, error) {
	if len(data) > MaxLogoBytes {
		return processedImage{}, errLogoTooLarge
	}
	if format, err := imagecheck.Sniff(data); err == nil {
		if format != imagecheck.FormatPNG && format != imagecheck.FormatJPEG {
			return processedImage{}, errLogoType
		}
		if err := checkPixels(data); err != nil {
			return processedImage{}, err
		}
		img, err := imagecheck.Decode(data)
		if err != nil {
			return processedImage{}, fault.Wrap(err, fault.Invalid, "unreadable_image", errLogoUnread.Message)
		}
		return encodeImage(fitWithin(img, MaxLogoSide), format)
	}
	if !LooksLikeSVG(data) {
		return processedImage{}, errLogoType
	}
	clean, err := SanitizeSVG(data)
	if err != nil {
		return processedImage{}, fault.Wrap(err, fault.UnsupportedMedia, "unsupported_file_type", errLogoType.Message)
	}
	return processedImage{Data: clean, ContentType: "image/svg+xml", Ext: ".svg"}, nil
}
