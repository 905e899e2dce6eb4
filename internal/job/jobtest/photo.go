package jobtest

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"
)

// Photo draws a believable product shot: a two-tone vase (a round body and a
// neck) over a softly graded light backdrop, anti-aliased like a camera
// image, so the built-in reconstructor finds an object and two parts in it.
func Photo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	cx, cy := float64(w)/2, float64(h)*0.58
	rx, ry := float64(w)*0.26, float64(h)*0.28
	neckW, neckTop := float64(w)*0.09, float64(h)*0.14
	inside := func(x, y float64) (bool, bool) {
		dx, dy := (x-cx)/rx, (y-cy)/ry
		if dx*dx+dy*dy <= 1 {
			return true, false
		}
		if math.Abs(x-cx) <= neckW && y >= neckTop && y <= cy {
			return true, true
		}
		return false, false
	}
	const ss = 3
	for y := range h {
		for x := range w {
			var body, neck float64
			for sy := range ss {
				for sx := range ss {
					in, isNeck := inside(float64(x)+(float64(sx)+0.5)/ss, float64(y)+(float64(sy)+0.5)/ss)
					if in && isNeck {
						neck++
					} else if in {
						body++
					}
				}
			}
			body, neck = body/(ss*ss), neck/(ss*ss)
			g := 236 - 18*float64(y)/float64(h)
			shade := 0.75 + 0.25*math.Cos((float64(x)-cx)/rx*1.2)
			r := body*200*shade + neck*40*shade + (1-body-neck)*g
			gg := body*60*shade + neck*90*shade + (1-body-neck)*g
			b := body*50*shade + neck*170*shade + (1-body-neck)*(g+6)
			img.SetNRGBA(x, y, color.NRGBA{R: clamp(r), G: clamp(gg), B: clamp(b), A: 255})
		}
	}
	return img
}

func clamp(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

// PNG returns Photo(w, h) encoded as PNG.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, Photo(w, h)); err != nil {
		t.Fatalf("encode png: %v", err)
	}
	return buf.Bytes()
}

// JPEG returns Photo(w, h) encoded as JPEG.
func JPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, Photo(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatalf("encode jpeg: %v", err)
	}
	return buf.Bytes()
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// BrokenPNG is PNG(w, h) cut off in the middle of its pixel data: its header
// passes the upload checks (which read only the header), and the
// reconstructor genuinely fails to decode it, so the build fails at once.
// Tests use it to get a failed job without faking any part of the pipeline.
func BrokenPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	b := PNG(t, w, h)
	return b[:len(b)/2]
}

// CloseUp is what a merchant might upload by mistake: a close-up whose subject
// runs off three sides of the frame, on a busy patterned backdrop, so no single
// product can be separated (the reconstructor's ErrSubjectNotSeparated), as PNG.
func CloseUp(t testing.TB) []byte {
	t.Helper()
	const w, h = 400, 300
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := 128 + 90*math.Sin(float64(x)/7)*math.Cos(float64(y)/5)
			c := color.NRGBA{R: clamp(v), G: clamp(255 - v), B: clamp(v / 2), A: 255}
			if dx, dy := float64(x-200), float64(y-230); dx*dx+dy*dy <= 260*260 {
				c = color.NRGBA{R: 190, G: 120, B: 70, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatalf("encode png: %v", err)
	}
	return buf.Bytes()
}

// OffFrame is Photo(w, h) with the vase moved right until its body runs off
// the frame's right edge, as PNG: a spin-set photo taken too close.
func OffFrame(t testing.TB, w, h int) []byte {
	t.Helper()
	src := Photo(w, h)
	img := image.NewNRGBA(src.Rect)
	// Far enough for the body to cross the edge, not so far that the backdrop
	// seen on the borders is mostly vase (the segmenter then finds no product).
	shift := w * 5 / 16
	for y := range h {
		for x := range w {
			sx := x - shift
			if sx < 0 {
				sx = 0 // the backdrop's left column: its gradient runs top to bottom only
			}
			img.SetNRGBA(x, y, src.NRGBAAt(sx, y))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatalf("encode png: %v", err)
	}
	return buf.Bytes()
}
