// Package imagecheck validates uploaded product photos once, in one place, so the
// HTTP API, the worker and the offline convert command reject exactly the same files
// with exactly the same user-facing messages (spec "Upload image" validation rules).
//
// The checks are ordered from cheapest to most expensive and never trust the client:
// the format comes from magic bytes (not the file name or Content-Type), and the
// declared dimensions are read with image.DecodeConfig before any pixel buffer is
// allocated, because a few hundred kilobytes of PNG can declare a 20000×20000 image.
package imagecheck

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // registers the JPEG decoder used by Check and Decode
	_ "image/png"  // registers the PNG decoder used by Check and Decode
	"io"

	_ "golang.org/x/image/webp" // registers the WebP decoder (decode-only)

	"github.com/photo3d/photo3d/internal/jpegscale"
)

// Upload limits from the product spec; exported so the API can size request readers.
const (
	// MaxUploadBytes is the 10MB upload cap named in the spec.
	MaxUploadBytes = 10485760
	// MaxPixels bounds decoded memory (40 MP × 4 bytes ≈ 160 MB).
	MaxPixels = 40_000_000
	// MaxSide bounds either dimension, whatever the pixel count.
	MaxSide = 16384
)

// Sentinel errors. Their Error() strings are the user messages from the spec, word for
// word, so the HTTP layer can show err.Error() after matching with errors.Is.
var (
	// ErrInvalidType means the bytes are not a JPEG, PNG or WebP image.
	ErrInvalidType = errors.New("Invalid file type. Please select a JPEG, PNG, or WebP image.") //nolint:staticcheck // user-facing message from the spec
	// ErrTooLarge means the file exceeds MaxUploadBytes.
	ErrTooLarge = errors.New("File is too large. Please select an image under 10MB.") //nolint:staticcheck // user-facing message from the spec
	// ErrDimensions means the declared image size exceeds MaxPixels or MaxSide.
	ErrDimensions = errors.New("Image dimensions are too large. Please use an image under 40 megapixels and 16,384 px per side.") //nolint:staticcheck // user-facing message
	// ErrUnreadable means the file claims a supported format but cannot be decoded.
	ErrUnreadable = errors.New("Unable to upload this file. Please try another image.") //nolint:staticcheck // user-facing message from the spec
)

// checkError keeps the technical cause for logs while Error() stays the user message.
type checkError struct {
	user  error
	cause error
}

func (e *checkError) Error() string   { return e.user.Error() }
func (e *checkError) Unwrap() []error { return []error{e.user, e.cause} }

// withCause attaches a technical cause to a sentinel without changing its message.
func withCause(user, cause error) error {
	if cause == nil {
		return user
	}
	return &checkError{user: user, cause: cause}
}

// Format is an accepted image format, detected from magic bytes.
type Format string

// The accepted formats.
const (
	FormatJPEG Format = "jpeg"
	FormatPNG  Format = "png"
	FormatWebP Format = "webp"
)

// ContentType is the MIME type to store and serve the file with.
func (f Format) ContentType() string {
	switch f {
	case FormatJPEG:
		return "image/jpeg"
	case FormatPNG:
		return "image/png"
	case FormatWebP:
		return "image/webp"
	}
	return "application/octet-stream"
}

// Extension is the canonical file extension (with dot) for storage keys.
func (f Format) Extension() string {
	switch f {
	case FormatJPEG:
		return ".jpg"
	case FormatPNG:
		return ".png"
	case FormatWebP:
		return ".webp"
	}
	return ""
}

// SniffLen is how many leading bytes Sniff needs to recognise every format.
const SniffLen = 12

var (
	magicJPEG = []byte{0xFF, 0xD8, 0xFF}
	magicPNG  = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}
)

// Sniff identifies the format from the first bytes of a file. It ignores names and
// declared content types on purpose: both are client-controlled.
func Sniff(head []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(head, magicJPEG):
		return FormatJPEG, nil
	case bytes.HasPrefix(head, magicPNG):
		return FormatPNG, nil
	case len(head) >= 12 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return FormatWebP, nil
	}
	return "", ErrInvalidType
}

// Info describes a photo that passed every check without decoding its pixels.
type Info struct {
	Format      Format
	Width       int
	Height      int
	ContentType string
}

// Check validates size, magic bytes and declared dimensions of a complete file.
func Check(data []byte) (Info, error) {
	if len(data) > MaxUploadBytes {
		return Info{}, ErrTooLarge
	}
	format, err := Sniff(data)
	if err != nil {
		return Info{}, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Info{}, withCause(ErrUnreadable, fmt.Errorf("decode %s header: %w", format, err))
	}
	if err := checkDimensions(cfg.Width, cfg.Height); err != nil {
		return Info{}, err
	}
	return Info{Format: format, Width: cfg.Width, Height: cfg.Height, ContentType: format.ContentType()}, nil
}

// CheckReader reads at most MaxUploadBytes+1 bytes from r and checks them, returning
// the bytes so callers (such as an HTTP handler) read the body exactly once.
func CheckReader(r io.Reader) (Info, []byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxUploadBytes+1))
	if err != nil {
		return Info{}, nil, withCause(ErrUnreadable, fmt.Errorf("read upload: %w", err))
	}
	info, err := Check(data)
	if err != nil {
		return Info{}, nil, err
	}
	return info, data, nil
}

func checkDimensions(w, h int) error {
	if w <= 0 || h <= 0 {
		return withCause(ErrUnreadable, fmt.Errorf("image declares %dx%d pixels", w, h))
	}
	if w > MaxSide || h > MaxSide || int64(w)*int64(h) > MaxPixels {
		return withCause(ErrDimensions, fmt.Errorf("image declares %dx%d pixels", w, h))
	}
	return nil
}

// Decode checks data and decodes it with its EXIF orientation already applied, so
// every later stage sees the photo the way the merchant saw it on their phone.
func Decode(data []byte) (image.Image, error) {
	info, err := Check(data)
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, withCause(ErrUnreadable, fmt.Errorf("decode %s: %w", info.Format, err))
	}
	b := img.Bounds()
	if err := checkDimensions(b.Dx(), b.Dy()); err != nil {
		return nil, err
	}
	return applyOrientation(img, Orientation(data, info.Format)), nil
}

// DecodeReduced is Decode for callers that scale the photo down to about
// minLongSide pixels anyway (the reconstruction works at about a thousand):
// a JPEG is decoded at the largest of 1/2, 1/4 and 1/8 that keeps its long
// side at least minLongSide, so a 40 MP photo costs a sixteenth of the memory
// and most of the time of a full decode. PNG and WebP decode in full. It also
// returns the photo's full upright size, which the reduction hides.
func DecodeReduced(data []byte, minLongSide int) (image.Image, image.Point, error) {
	info, err := Check(data)
	if err != nil {
		return nil, image.Point{}, err
	}
	if info.Format != FormatJPEG || minLongSide <= 0 {
		img, err := Decode(data)
		if err != nil {
			return nil, image.Point{}, err
		}
		return img, img.Bounds().Size(), nil
	}
	img, err := jpegscale.DecodeScaled(bytes.NewReader(data), minLongSide)
	if err != nil {
		return nil, image.Point{}, withCause(ErrUnreadable, fmt.Errorf("decode %s: %w", info.Format, err))
	}
	o := Orientation(data, info.Format)
	full := image.Pt(info.Width, info.Height)
	if o >= 5 && o <= 8 { // rotated a quarter turn
		full = image.Pt(info.Height, info.Width)
	}
	return applyOrientation(img, o), full, nil
}
