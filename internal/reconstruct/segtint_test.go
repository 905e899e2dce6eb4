package reconstruct

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// darkSofaSceneW is darkSofaScene's width; darkSofaSceneBottom the row of the body's
// bottom edge.
const darkSofaSceneW, darkSofaSceneBottom = 512, 290

// darkSofaScene draws a wide near-black neutral body (a velvet sofa's seat and
// back, its top a little lighter than its front) on a bluish charcoal sweep with a
// soft contact shadow under it that keeps the sweep's tint, a little sensor noise and
// JPEG: the real set's sofa on the dark sweep, whose shaded arm alone stands out. Cell by cell the body is about what a
// shadow on that sweep would be (2–4 L* darker); only the tint it lacks tells it
// apart. It returns the photo and the true mask of the body.
func darkSofaScene(rng *rand.Rand) (data []byte, body []bool) {
	const w, h = darkSofaSceneW, 384
	const cx, top, bottom = 256.0, 130.0, darkSofaSceneBottom
	body = make([]bool, w*h)
	colour := func(fx, fy float64) (c [3]float64, in bool) {
		k := 1 - 0.17*fy/h
		c = [3]float64{36 * k, 35 * k, 39 * k}
		dx, dy := (fx-cx)/200, (fy-bottom+4)/12
		r := max(0, math.Hypot(dx, dy)-0.9)
		f := 1 - 0.45*math.Exp(-r*r/0.05)
		for ch := range c {
			c[ch] *= f
		}
		// The body: a rounded slab, its top (upper third) seen from above.
		half := 190 - 25*math.Pow(math.Abs(fy-(top+bottom)/2)/((bottom-top)/2), 4)
		if fy >= top && fy < bottom && math.Abs(fx-cx) <= half {
			g := 23.0
			switch {
			case fx-cx > half-30:
				g = 10 // the arm's side, in shade: what the colour cut keeps
			case fy < top+(bottom-top)/3:
				g = 27
			}
			c, in = [3]float64{g, g, g}, true
		}
		return c, in
	}
	for y := range h {
		for x := range w {
			_, body[y*w+x] = colour(float64(x)+0.5, float64(y)+0.5)
		}
	}
	return photoOfScene(w, h, rng, func(fx, fy float64) [3]float64 {
		c, _ := colour(fx, fy)
		return c
	}), body
}

// A near-black product on a charcoal sweep is kept whole, not taken for its own
// contact shadow, while that shadow (tint kept) stays backdrop. Without
// offTintRecover the cut keeps the shaded arm and little more (measured: 8 % of the
// body; the real set's sofa on the dark sweep: 2 %).
func TestSegmentKeepsBlackProductOnCharcoalSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("segments six 512×384 photos")
	}
	t.Parallel()
	for seed := range uint64(6) {
		data, body := darkSofaScene(rand.New(rand.NewPCG(11+seed, 3)))
		size, kept, shadowKept := partsKept(t, data, func(i int) bool { return i/darkSofaSceneW >= darkSofaSceneBottom }, body)
		bodyN, recall := size[0], kept[0]
		t.Logf("seed %d: body recall %.3f, shadow kept %d px", seed, recall, shadowKept)
		require.GreaterOrEqual(t, recall, 0.9, "seed %d: the black body must be kept whole", seed)
		require.LessOrEqual(t, float64(shadowKept), 0.02*float64(bodyN), "seed %d: the contact shadow must stay backdrop", seed)
	}
}

// standSceneW is standScene's width.
const standSceneW = 512

// Sweeps of standScene: a pale pink one, and the pale warm grey of the real set's
// light photos (sRGB 200/197/194 at the top: chroma about 2 ΔC*, so a shadow at a
// mid-grey part's lightness keeps about 1.3).
var (
	standPink     = [3]float64{238, 221, 229}
	standWarmGrey = [3]float64{200, 197, 194}
	// Bodies: a blue one, and a dark grey one (the real set's grey posts and lamp
	// bodies on that sweep).
	standBlue     = [3]float64{60, 90, 160}
	standDarkGrey = [3]float64{80, 80, 80}
)

// standScene draws a body standing on a wide neutral grey disc (a dress form on
// its stand, a lamp on its foot) seen from above on a pale pink sweep, with a soft
// contact shadow around the disc that keeps the sweep's tint, a little sensor noise
// and JPEG: the real set's Corset on the light sweep. Cell by cell the grey disc is
// about what a shadow on that sweep would be, and it touches its own shadow, so the
// two make one darker region whose mean keeps much of the tint. sweep is the sweep's
// sRGB colour at the top of the frame (standPink: a pale pink one); scale enlarges
// the standSceneW×384 frame (2: the grid cells of a phone photo at working size). It
// returns the photo and the true masks of the body and of the disc.
func standScene(rng *rand.Rand, grey float64, sweep, bodyColour [3]float64, scale int) (data []byte, body, disc []bool) {
	const w, h = standSceneW, 384
	const cx, cy, ax, ay = 256.0, 300.0, 150.0, 34.0
	colour := func(fx, fy float64) (c [3]float64, inBody, inDisc bool) {
		k := 1 - 0.05*fy/h
		c = [3]float64{sweep[0] * k, sweep[1] * k, sweep[2] * k}
		r := max(0, math.Hypot((fx-cx)/(ax+12), (fy-cy-8)/(ay+10))-0.85)
		f := 1 - 0.4*math.Exp(-r*r/0.06)
		for ch := range c {
			c[ch] *= f
		}
		if math.Hypot((fx-cx)/ax, (fy-cy)/ay) <= 1 {
			g := grey - 10*(fy-cy)/ay
			c, inDisc = [3]float64{g, g, g}, true
		}
		if fy >= 60 && fy < cy && math.Abs(fx-cx) <= 60 {
			s := 0.8 + 0.2*math.Cos((fx-cx)/60*1.3)
			c, inBody, inDisc = [3]float64{bodyColour[0] * s, bodyColour[1] * s, bodyColour[2] * s}, true, false
		}
		return c, inBody, inDisc
	}
	k := float64(scale)
	return twoPartPhoto(w*scale, h*scale, rng, func(fx, fy float64) ([3]float64, bool, bool) { return colour(fx/k, fy/k) })
}

// checkGreyStand segments standScene photos of each grey stand (seeds from pcg)
// on sweep under a body of bodyColour at scale, and requires the stand's recall to be
// minStand, the body's minBody, and its contact shadow (pixels kept below the
// stand's centre outside it) at most 5 % of the stand.
func checkGreyStand(t *testing.T, sweep, bodyColour [3]float64, scale int, greys []float64, seeds, pcg uint64, minStand, minBody float64) {
	t.Helper()
	for _, grey := range greys {
		for seed := range seeds {
			data, body, disc := standScene(rand.New(rand.NewPCG(pcg+seed, 3)), grey, sweep, bodyColour, scale)
			row := scale * standSceneW
			size, kept, shadowKept := partsKept(t, data, func(i int) bool { return i/row > scale*300 }, body, disc)
			discN, bodyRecall, recall := size[1], kept[0], kept[1]
			t.Logf("grey %.0f seed %d: stand recall %.3f, body recall %.3f, shadow kept %d px", grey, seed, recall, bodyRecall, shadowKept)
			require.GreaterOrEqual(t, bodyRecall, minBody, "grey %.0f seed %d: the body must be kept", grey, seed)
			require.GreaterOrEqual(t, recall, minStand, "grey %.0f seed %d: the grey stand must be kept", grey, seed)
			require.LessOrEqual(t, float64(shadowKept), 0.05*float64(discN), "grey %.0f seed %d: its contact shadow must stay backdrop", grey, seed)
		}
	}
}

// A grey stand under a product on a tinted sweep is kept, and its contact shadow is
// not: the stand and its shadow are one darker region whose mean keeps too much of
// the tint to be taken whole, so the recovery splits off the cells that lost the
// tint. Without that split the stand is lost (measured: recall 0.00 for the darker
// grey, 0.74 for the lighter; with it 0.90–0.92).
func TestSegmentKeepsGreyStandBesideItsShadow(t *testing.T) {
	if testing.Short() {
		t.Skip("segments six 512×384 photos")
	}
	t.Parallel()
	checkGreyStand(t, standPink, standBlue, 1, []float64{150, 180}, 3, 21, 0.85, 0.95)
}

// On a pale warm-grey sweep (the real set's light backdrop, tinted about 2 ΔC*), a
// shadow at the lightness of a mid-grey stand keeps a tint of only about 1.3, under
// reconstruct 1.3.8's floor of 1.8, so the stand was taken for shadow (the real set's
// Corset, barn lamp and candle holder from −35°: mask IoU 0.46–0.70). Averaged over a
// region that tint is still far above the grid's noise: the stand is kept and its
// shadow is not. Measured: stand recall 0.73–0.82 (1.3.8: 0.00); the refine's colour
// test still trims a ring along the stand's rim (the history of docs/reconstruction.md (git log -p), 1.3.9). The
// photos are twice the size, as a phone photo reaches the segmenter: 4-pixel grid
// cells (at 2 pixels a cell's chroma is as noisy as the tint is small).
func TestSegmentKeepsGreyStandOnPaleWarmSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("segments eight 1024×768 photos")
	}
	t.Parallel()
	checkGreyStand(t, standWarmGrey, standDarkGrey, 2, []float64{110, 127}, 4, 41, 0.65, 0.95)
}

// The region test's floor is on the sweep's tint, not on the miss: on a sweep with a
// tint to miss (2 ΔC*, a charcoal one) a region missing 0.89 of it is product even
// though that is under 1.8 ΔC* (the real set's WaterBottle sleeve on the dark sweep:
// 1.78 of 2.01), and so is one missing a pale warm sweep's 1.3 (reconstruct 1.3.9),
// while on a near-neutral sweep (under 1 ΔC*) nothing is recovered however much of
// its little tint a region misses, and a region keeping most of the tint is shadow.
func TestOffTintRegionFloorIsOnTheTint(t *testing.T) {
	const w, h = 20, 20
	s := &segment.Segmentation{Sw: w, Sh: h}
	mask := make([]bool, w*h)
	for i := range w * 5 { // the product above
		mask[i] = true
	}
	region := make([]bool, w*h)
	for i := w * 5; i < w*10; i++ { // 100 cells touching it
		region[i] = true
	}
	for _, c := range []struct {
		name       string
		miss, tint float64
		want       bool
	}{
		{"tinted sweep, tint missed", 1.78, 2.01, true},
		{"pale warm sweep, tint missed", 1.3, 1.3, true},
		{"near-neutral sweep", 0.9, 0.9, false},
		{"tint kept: a shadow", 0.6, 2.01, false},
		{"pale warm sweep, tint kept", 0.5, 1.3, false},
	} {
		miss, tint := make([]float64, w*h), make([]float64, w*h)
		for i, v := range region {
			if v {
				miss[i], tint[i] = c.miss, c.tint
			}
		}
		out, added := s.OffTintRegions(mask, region, miss, tint, nil)
		require.Equal(t, c.want, added != nil, c.name)
		require.Equal(t, c.want, out[w*7+3], c.name)
	}
}
