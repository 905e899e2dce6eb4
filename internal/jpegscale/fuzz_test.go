package jpegscale

import (
	"bytes"
	"image"
	"image/color"
	stdjpeg "image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// fuzzMaxPixels keeps one fuzz iteration fast; the seeds stay below it.
const fuzzMaxPixels = 1 << 20

// FuzzDecodeScaled feeds hostile bytes through the scaled decoder (every
// upload's JPEG passes here first). The seeds are real JPEGs of every kind
// in testdata plus photos large enough that the 1/2, 1/4 and 1/8 paths run,
// each with the long sides that select them; they run in every `go test`.
// Whatever the input: no panic, the reduction is the one chooseShift
// promises, the image has the reduced size, and the scaled decode fails
// exactly when the full-size decode fails.
func FuzzDecodeScaled(f *testing.F) {
	files, err := filepath.Glob("testdata/*.jpeg")
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, long := range []int{0, 150, 75, 38, 19, 1} { // 150×103: 1/1, 1/1, 1/2, 1/4, 1/8, 1/8
			f.Add(data, long)
		}
	}
	for _, im := range []image.Image{fuzzPhoto(640, 480, false), fuzzPhoto(333, 517, false), fuzzPhoto(512, 384, true)} {
		for _, q := range []int{40, 95} {
			var buf bytes.Buffer
			if err := stdjpeg.Encode(&buf, im, &stdjpeg.Options{Quality: q}); err != nil {
				f.Fatal(err)
			}
			long := max(im.Bounds().Dx(), im.Bounds().Dy())
			for _, n := range []int{1, 2, 4, 8} {
				f.Add(buf.Bytes(), (long+n-1)/n)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, minLong int) {
		cfg, err := DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > fuzzMaxPixels {
			return
		}
		var full decoder
		_, fullErr := full.decode(bytes.NewReader(data), false)
		d := decoder{minLong: minLong}
		img, err := d.decode(bytes.NewReader(data), false)
		if (err == nil) != (fullErr == nil) {
			t.Fatalf("scaled decode error %v, full decode error %v", err, fullErr)
		}
		if err != nil {
			return
		}
		if want := chooseShift(cfg.Width, cfg.Height, minLong); d.shift != want {
			t.Fatalf("%dx%d for long side %d: shift %d, want %d", cfg.Width, cfg.Height, minLong, d.shift, want)
		}
		n := 1 << d.shift
		if want := image.Rect(0, 0, (cfg.Width+n-1)/n, (cfg.Height+n-1)/n); !img.Bounds().Eq(want) {
			t.Fatalf("%dx%d at 1/%d: bounds %v, want %v", cfg.Width, cfg.Height, n, img.Bounds(), want)
		}
	})
}

// fuzzPhoto is a smooth gradient with some texture: a photo-like image whose
// JPEG has both DC and AC terms in every block.
func fuzzPhoto(w, h int, gray bool) image.Image {
	if gray {
		m := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				m.SetGray(x, y, color.Gray{uint8((x*255/w + (x*y)%17) % 256)})
			}
		}
		return m
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x ^ y) & 0xff), 255})
		}
	}
	return m
}
