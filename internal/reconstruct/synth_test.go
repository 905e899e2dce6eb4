package reconstruct

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// scene describes a synthetic product photo drawn by the tests: a shape over a
// backdrop, optionally with a soft contact shadow. Coverage is supersampled so edges
// are anti-aliased like a real photo's.
type scene struct {
	w, h     int
	inside   func(x, y float64) bool
	object   func(x, y float64) [3]float64
	backdrop func(x, y float64) [3]float64
	shadow   bool
	shadowY  float64 // centre line of the contact shadow
	shadowCX float64
	shadowRX float64
}

func (s scene) render() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, s.w, s.h))
	const ss = 4
	for y := range s.h {
		for x := range s.w {
			cov := 0.0
			for sy := range ss {
				for sx := range ss {
					if s.inside(float64(x)+(float64(sx)+0.5)/ss, float64(y)+(float64(sy)+0.5)/ss) {
						cov++
					}
				}
			}
			cov /= ss * ss
			fx, fy := float64(x)+0.5, float64(y)+0.5
			bg := s.backdrop(fx, fy)
			if s.shadow {
				dx := (fx - s.shadowCX) / s.shadowRX
				dy := (fy - s.shadowY) / (0.06 * s.shadowRX)
				k := 1 - 0.22*math.Exp(-(dx*dx+dy*dy))
				for c := range bg {
					bg[c] *= k
				}
			}
			var obj [3]float64
			if cov > 0 {
				obj = s.object(fx, fy)
			}
			var c color.NRGBA
			c.A = 255
			c.R = uint8(math.Round(cov*obj[0] + (1-cov)*bg[0]))
			c.G = uint8(math.Round(cov*obj[1] + (1-cov)*bg[1]))
			c.B = uint8(math.Round(cov*obj[2] + (1-cov)*bg[2]))
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// truth is the drawn shape as a binary mask (pixel centre inside).
func (s scene) truth() []bool {
	m := make([]bool, s.w*s.h)
	for y := range s.h {
		for x := range s.w {
			m[y*s.w+x] = s.inside(float64(x)+0.5, float64(y)+0.5)
		}
	}
	return m
}

func solid(r, g, b float64) func(x, y float64) [3]float64 {
	return func(float64, float64) [3]float64 { return [3]float64{r, g, b} }
}

// shaded colours an object like a lit cylinder: brighter in the middle of its width.
func shaded(r, g, b, cx, halfW float64) func(x, y float64) [3]float64 {
	return func(x, _ float64) [3]float64 {
		t := min(1, math.Abs(x-cx)/halfW)
		k := 0.8 + 0.25*math.Cos(t*math.Pi/2)
		return [3]float64{min(255, r*k), min(255, g*k), min(255, b*k)}
	}
}

func gradient(top, bottom [3]float64, h float64) func(x, y float64) [3]float64 {
	return func(_, y float64) [3]float64 {
		t := y / h
		return [3]float64{top[0]*(1-t) + bottom[0]*t, top[1]*(1-t) + bottom[1]*t, top[2]*(1-t) + bottom[2]*t}
	}
}

// bottleRadius is a wine-bottle profile: cap, neck, shoulder, body.
func bottleRadius(top, bottom, bodyR, neckR float64) func(y float64) float64 {
	H := bottom - top
	return func(y float64) float64 {
		t := (y - top) / H
		switch {
		case t < 0 || t > 1:
			return -1
		case t < 0.12:
			return neckR * 1.15
		case t < 0.32:
			return neckR
		case t < 0.48:
			u := (t - 0.32) / 0.16
			return neckR + (bodyR-neckR)*(1-math.Cos(u*math.Pi))/2
		}
		return bodyR
	}
}

func bottleScene(w, h int, bg func(x, y float64) [3]float64, shadow bool) scene {
	cx := float64(w) / 2
	top, bottom := 0.12*float64(h), 0.88*float64(h)
	bodyR, neckR := 0.16*float64(w), 0.05*float64(w)
	r := bottleRadius(top, bottom, bodyR, neckR)
	return scene{
		w: w, h: h,
		inside: func(x, y float64) bool {
			rr := r(y)
			return rr > 0 && math.Abs(x-cx) <= rr
		},
		object:   shaded(40, 110, 60, cx, bodyR),
		backdrop: bg,
		shadow:   shadow, shadowY: bottom, shadowCX: cx, shadowRX: bodyR * 1.6,
	}
}

// twoToneBottle has a red cap over a green body, which must become two parts.
func twoToneBottle(w, h int) scene {
	s := bottleScene(w, h, solid(250, 250, 250), false)
	top, bottom := 0.12*float64(h), 0.88*float64(h)
	body := shaded(40, 110, 60, float64(w)/2, 0.16*float64(w))
	cap := shaded(200, 30, 30, float64(w)/2, 0.06*float64(w))
	s.object = func(x, y float64) [3]float64 {
		if (y-top)/(bottom-top) < 0.2 {
			return cap(x, y)
		}
		return body(x, y)
	}
	return s
}

func rectScene(w, h int) scene {
	x0, x1 := 0.3*float64(w), 0.7*float64(w)
	y0, y1 := 0.2*float64(h), 0.8*float64(h)
	return scene{
		w: w, h: h,
		inside:   func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 },
		object:   solid(230, 200, 60),
		backdrop: solid(40, 70, 200),
	}
}

// blobInside is an irregular, clearly asymmetric outline.
func blobInside(cx, cy, r float64) func(x, y float64) bool {
	return func(x, y float64) bool {
		dx, dy := x-cx, y-cy
		th := math.Atan2(dy, dx)
		rr := r * (1 + 0.22*math.Sin(3*th+0.7) + 0.12*math.Cos(5*th) + 0.1*math.Cos(th))
		return dx*dx+dy*dy <= rr*rr
	}
}

func blobScene(w, h int, bg func(x, y float64) [3]float64) scene {
	cx, cy, r := 0.48*float64(w), 0.5*float64(h), 0.28*float64(min(w, h))
	return scene{
		w: w, h: h,
		inside:   blobInside(cx, cy, r),
		object:   solid(220, 120, 40),
		backdrop: bg,
		shadow:   true, shadowY: cy + 1.2*r, shadowCX: cx, shadowRX: r,
	}
}

// twoToneBlob is yellow on the left and purple on the right.
func twoToneBlob(w, h int) scene {
	s := blobScene(w, h, solid(245, 245, 245))
	cx := 0.48 * float64(w)
	s.shadow = false
	s.object = func(x, _ float64) [3]float64 {
		if x < cx {
			return [3]float64{235, 200, 40}
		}
		return [3]float64{110, 40, 160}
	}
	return s
}

func encodePNGBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func encodeJPEGBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}))
	return buf.Bytes()
}

func iou(a, b []bool) float64 {
	inter, union := 0, 0
	for i := range a {
		if a[i] && b[i] {
			inter++
		}
		if a[i] || b[i] {
			union++
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
