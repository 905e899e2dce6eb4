package reconstruct

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// footSceneW is footScene's width; footSceneBottom the row of the foot's bottom edge.
const footSceneW, footSceneBottom = 384, 400

// footScene draws a tan body standing on a neutral grey foot on a pale warm-grey
// sweep, with a soft contact shadow (the sweep darkened, its tint kept) around the
// foot, a little sensor noise and JPEG: the real set's candle holder and wall lamp in
// two dimensions. The grey foot is, cell by cell, about what a shadow on that sweep
// would be; only its missing tint tells it apart. It returns the photo and the true
// mask of the body and of the foot.
func footScene(rng *rand.Rand) (data []byte, body, foot []bool) {
	const w, h = footSceneW, 512
	const cx, footTop, footBottom = 192.0, 330.0, footSceneBottom
	// colour is the scene at a point; inBody/inFoot its true labels.
	colour := func(fx, fy float64) (c [3]float64, inBody, inFoot bool) {
		// The sweep: warm grey (a* ≈ 0.5, b* ≈ 2), a little lighter at the top.
		k := 1 - 0.06*fy/h
		c = [3]float64{203 * k, 199 * k, 194 * k}
		// The foot's contact shadow on the floor: an ellipse under the foot that
		// fades out over a few per cent of the frame.
		dx, dy := (fx-cx)/95, (fy-footBottom+6)/14
		r := max(0, math.Hypot(dx, dy)-0.8)
		f := 1 - 0.45*math.Exp(-r*r/0.08)
		for ch := range c {
			c[ch] *= f
		}
		// The foot: a truncated cone, neutral grey, lit from above.
		if fy >= footTop && fy < footBottom {
			t := (fy - footTop) / (footBottom - footTop)
			half := 60 + 22*t
			if math.Abs(fx-cx) <= half {
				g := 176 - 8*t - 5*math.Abs(fx-cx)/half
				c, inFoot = [3]float64{g, g, g}, true
			}
		}
		// The body: a tan cylinder, shaded across.
		if fy >= 110 && fy < footTop && math.Abs(fx-cx) <= 52 {
			s := 0.8 + 0.2*math.Cos((fx-cx)/52*1.3)
			c, inBody, inFoot = [3]float64{196 * s, 160 * s, 118 * s}, true, false
		}
		return c, inBody, inFoot
	}
	return twoPartPhoto(w, h, rng, colour)
}

// twoPartPhoto renders a drawn scene of two labelled parts (colour gives the sRGB
// colour at a point and whether it lies in each part) with photoOfScene, and returns
// the photo with each part's true mask (pixel centres).
func twoPartPhoto(w, h int, rng *rand.Rand, colour func(fx, fy float64) (c [3]float64, inA, inB bool)) (data []byte, a, b []bool) {
	a, b = make([]bool, w*h), make([]bool, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			_, a[i], b[i] = colour(float64(x)+0.5, float64(y)+0.5)
		}
	}
	return photoOfScene(w, h, rng, func(fx, fy float64) [3]float64 {
		c, _, _ := colour(fx, fy)
		return c
	}), a, b
}

// photoOfScene renders colour (sRGB 0–255 at a point of the w×h frame) as a camera
// would: each pixel the mean of 3×3 samples (the edge averaged), a little sensor
// noise from rng, JPEG at quality 92.
func photoOfScene(w, h int, rng *rand.Rand, colour func(fx, fy float64) [3]float64) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			var c [3]float64
			for k := range 9 {
				v := colour(float64(x)+(float64(k%3)+0.5)/3, float64(y)+(float64(k/3)+0.5)/3)
				for ch := range c {
					c[ch] += v[ch] / 9
				}
			}
			px := color.NRGBA{A: 255}
			for ch, v := range c {
				u := uint8(min(255, max(0, math.Round(v+rng.NormFloat64()*1.5))))
				switch ch {
				case 0:
					px.R = u
				case 1:
					px.G = u
				default:
					px.B = u
				}
			}
			img.SetNRGBA(x, y, px)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// A neutral grey part on a pale tinted sweep is not taken for a contact shadow by the
// edge-enclosure recovery: a shadow keeps the sweep's tint and the grey foot has none,
// so the backdrop's flood stops at the foot's outline and the foot is kept, while its
// own soft shadow (tint kept) stays backdrop. The tint is the only cue and a faint one
// (about 2.5 units of chroma): where the foot's lower corners meet their shadow at
// equal lightness, sensor noise sometimes opens the outline, so the test asks for most
// of the foot in most photos (measured: 10 of 12, mean 0.67). Fails with segment.ShadowLike in
// place of shadowHueKept in encloseRecover (the foot is mostly lost in 7 of 12 photos:
// the scene's tint sits at the old tolerance, so the old rule keeps it only by the
// noise's luck).
func TestSegmentKeepsGreyFootOnTintedSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("segments twelve 384×512 photos")
	}
	t.Parallel()
	const photos = 12
	kept, sum := 0, 0.0
	for seed := range uint64(photos) {
		data, body, foot := footScene(rand.New(rand.NewPCG(5+seed, 7)))
		size, recall, shadowKept := partsKept(t, data, func(i int) bool { return i/footSceneW >= footSceneBottom }, foot, body)
		footN, footRecall, bodyRecall := size[0], recall[0], recall[1]
		t.Logf("seed %d: foot recall %.3f, body recall %.3f, shadow kept %d px", seed, footRecall, bodyRecall, shadowKept)
		require.GreaterOrEqual(t, bodyRecall, 0.95, "seed %d: the tan body must be kept", seed)
		// The foot's soft shadow below it stays backdrop (a few pixels of its rim
		// at most, where refine re-decides the foot's bottom edge).
		require.LessOrEqual(t, float64(shadowKept), 0.02*float64(footN), "seed %d: the foot's soft shadow must stay backdrop", seed)
		sum += footRecall
		if footRecall >= 0.6 {
			kept++
		}
	}
	require.GreaterOrEqual(t, kept, 3*photos/4, "the grey foot was mostly taken for the contact shadow in %d of %d photos", photos-kept, photos)
	require.GreaterOrEqual(t, sum/photos, 0.6, "mean share of the grey foot kept")
}

// TestStepLosingTheTintIsAnEdge: on a pale warm sweep, the step down to a neutral
// grey part is an edge of the part, while the same darkening that keeps the sweep's
// tint (a soft shadow's rim) is discounted. With the looser allowance of twice
// shadowChroma both were discounted alike (ΔE about 5), under the edge threshold of
// the real photos' noise, and the flood of the edge-enclosure recovery walked into
// grey feet and black sleeves.
func TestStepLosingTheTintIsAnEdge(t *testing.T) {
	sweep := segment.Lab{L: 80, A: 1.3, B: 1.1}
	k := float32(60+16) / (80 + 16)
	shadow := segment.Lab{L: 60, A: 1.3 * k, B: 1.1 * k}
	grey := segment.Lab{L: 60}
	require.Less(t, segment.StepDist(shadow, sweep), 6.0, "a tint-keeping darkening is discounted")
	require.Greater(t, segment.StepDist(grey, sweep), 3*segment.StepDist(shadow, sweep), "a grey part's step is an edge")
	// Order does not matter: the lighter cell is the reference.
	require.InDelta(t, segment.StepDist(sweep, grey), segment.StepDist(grey, sweep), 1e-9)
}
