package imagecheck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func twoToneImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{220, 20, 20, 255}
			if x >= w/2 {
				c = color.NRGBA{20, 20, 220, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func encodeJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}))
	return buf.Bytes()
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// withEXIFOrientation inserts an APP1 Exif segment holding only the Orientation tag
// right after the JPEG SOI marker, the way phone cameras store rotation.
func withEXIFOrientation(t *testing.T, jpg []byte, orientation uint16) []byte {
	t.Helper()
	var tiff bytes.Buffer
	tiff.WriteString("II*\x00")
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(8)) // IFD0 offset
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(1)) // one entry
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(0x0112))
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(3)) // SHORT
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(1))
	_ = binary.Write(&tiff, binary.LittleEndian, orientation)
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(0))
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// pngHeaderOnly is a tiny PNG whose IHDR declares w×h pixels: it costs nothing to
// upload but would need gigabytes to decode.
func pngHeaderOnly(w, h uint32) []byte {
	var buf bytes.Buffer
	buf.Write(magicPNG)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2
	_ = binary.Write(&buf, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	buf.Write(chunk)
	_ = binary.Write(&buf, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	buf.Write(make([]byte, 400))
	return buf.Bytes()
}

func TestSniffUsesMagicBytes(t *testing.T) {
	t.Parallel()
	jpg := encodeJPEG(t, twoToneImage(8, 8))
	pngData := encodePNG(t, twoToneImage(8, 8))
	webp := []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")
	tests := []struct {
		name string
		head []byte
		want Format
		err  error
	}{
		{"jpeg bytes named photo.png", jpg, FormatJPEG, nil},
		{"png", pngData, FormatPNG, nil},
		{"webp", webp, FormatWebP, nil},
		{"text file", []byte("hello, I am a text file pretending to be .jpg"), "", ErrInvalidType},
		{"empty", nil, "", ErrInvalidType},
		{"gif", []byte("GIF89a......"), "", ErrInvalidType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Sniff(tc.head)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestErrorMessagesAreTheSpecText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Invalid file type. Please select a JPEG, PNG, or WebP image.", ErrInvalidType.Error())
	require.Equal(t, "File is too large. Please select an image under 10MB.", ErrTooLarge.Error())
	require.Equal(t, "Unable to upload this file. Please try another image.", ErrUnreadable.Error())
	require.Contains(t, ErrDimensions.Error(), "40 megapixels")
}

func TestCheck(t *testing.T) {
	t.Parallel()
	jpg := encodeJPEG(t, twoToneImage(30, 20))
	truncated := append([]byte{}, encodePNG(t, twoToneImage(30, 20))[:20]...)
	tests := []struct {
		name string
		data []byte
		err  error
		info Info
	}{
		{"valid jpeg", jpg, nil, Info{Format: FormatJPEG, Width: 30, Height: 20, ContentType: "image/jpeg"}},
		{"oversize", append(append([]byte{}, jpg...), make([]byte, MaxUploadBytes)...), ErrTooLarge, Info{}},
		{"text", []byte(strings.Repeat("text ", 10)), ErrInvalidType, Info{}},
		{"declares 20000x20000", pngHeaderOnly(20000, 20000), ErrDimensions, Info{}},
		{"declares a side over 16384", pngHeaderOnly(20000, 10), ErrDimensions, Info{}},
		{"corrupt png", truncated, ErrUnreadable, Info{}},
		{"jpeg magic then garbage", []byte{0xFF, 0xD8, 0xFF, 0x00, 1, 2, 3, 4, 5, 6, 7, 8}, ErrUnreadable, Info{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			info, err := Check(tc.data)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, tc.err.Error(), err.Error(), "user sees the spec message only")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.info, info)
		})
	}
}

func TestCheckReaderStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	_, _, err := CheckReader(bytes.NewReader(make([]byte, MaxUploadBytes+100)))
	require.ErrorIs(t, err, ErrTooLarge)
	jpg := encodeJPEG(t, twoToneImage(10, 10))
	info, data, err := CheckReader(bytes.NewReader(jpg))
	require.NoError(t, err)
	require.Equal(t, jpg, data)
	require.Equal(t, FormatJPEG, info.Format)
}

func TestDecodeRejectsHugeDeclaredSizeBeforeDecoding(t *testing.T) {
	t.Parallel()
	_, err := Decode(pngHeaderOnly(20000, 20000))
	require.ErrorIs(t, err, ErrDimensions)
}

func TestDecodeRejectsTruncatedPixels(t *testing.T) {
	t.Parallel()
	full := encodePNG(t, twoToneImage(64, 64))
	_, err := Check(full[:60])
	require.NoError(t, err, "the header alone is intact")
	_, err = Decode(full[:60])
	require.ErrorIs(t, err, ErrUnreadable)
}

func TestDecodeAppliesEXIFOrientation(t *testing.T) {
	t.Parallel()
	jpg := withEXIFOrientation(t, encodeJPEG(t, twoToneImage(40, 20)), 6)
	require.Equal(t, 6, Orientation(jpg, FormatJPEG))
	img, err := Decode(jpg)
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 20, 40), img.Bounds(), "orientation 6 swaps width and height")
	// Stored left half (red) becomes the top half once rotated 90° clockwise.
	r, _, b, _ := img.At(10, 5).RGBA()
	require.Greater(t, r, b)
	r, _, b, _ = img.At(10, 35).RGBA()
	require.Greater(t, b, r)
}

func TestOrientationMapping(t *testing.T) {
	t.Parallel()
	src := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	src.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255}) // marker in the stored top-left
	want := map[int]image.Point{
		1: {0, 0}, 2: {2, 0}, 3: {2, 1}, 4: {0, 1}, 5: {0, 0}, 6: {1, 0}, 7: {1, 2}, 8: {0, 2},
	}
	for o := 1; o <= 8; o++ {
		out := applyOrientation(src, o)
		p := want[o]
		r, _, _, _ := out.At(p.X, p.Y).RGBA()
		require.Equal(t, uint32(0xFFFF), r, "orientation %d marker at %v", o, p)
	}
}

func TestOrientationDefaultsToUpright(t *testing.T) {
	t.Parallel()
	require.Equal(t, 1, Orientation(encodeJPEG(t, twoToneImage(4, 4)), FormatJPEG))
	require.Equal(t, 1, Orientation([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF}, FormatJPEG))
	require.Equal(t, 1, Orientation(encodePNG(t, twoToneImage(4, 4)), FormatPNG))
}

func TestCheckErrorKeepsCause(t *testing.T) {
	t.Parallel()
	_, err := Check([]byte{0xFF, 0xD8, 0xFF, 0x00, 1, 2, 3, 4, 5, 6, 7, 8})
	require.ErrorIs(t, err, ErrUnreadable)
	var ce *checkError
	require.True(t, errors.As(err, &ce))
	require.Error(t, ce.cause)
}
