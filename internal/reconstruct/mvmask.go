package reconstruct

import (
	"image"
	"math"
)

// Multi-view masks. The single-photo segmenter is tuned to leave out anything that
// could be backdrop in shade, so a grey or off-white product part on a light sweep
// (a lamp's white base, a candle holder's grey foot) is often cut away. One photo
// cannot tell such a part from a shadow; carving from several photos can afford to
// keep it: a part of the backdrop wrongly kept in one photo is carved away by the
// others, while a part of the product missing from one photo is missing from the
// model for good. So each view's mask is grown by the cells next to it that differ
// from the fitted backdrop and do not look like the backdrop darkened by a shadow.

const (
	// mvGrowDist is the Lab distance from the fitted backdrop from which a cell may
	// be product (the segmenter's "surely object" level on a clean studio sweep).
	mvGrowDist = 5.0
	// mvGrowMax caps the grown mask, as a share of the frame: more means the
	// backdrop model failed (a busy or unevenly lit backdrop) and the segmenter's
	// mask is kept as it is.
	mvGrowMax = 0.4
	// mvGrowGap is the reach, in grid cells, of the flood that grows the mask.
	mvGrowGap = 2
)

// growMask sets v.alpha: the segmenter's alpha plus the grid cells connected to the
// mask that differ from the backdrop by at least mvGrowDist and are not shadow-like.
func (v *mvView) growMask() {
	seg := v.seg
	v.alpha = append([]uint8(nil), seg.alpha...)
	if seg.wholeFrame || v.p.hasAlpha || len(seg.slab) != seg.sw*seg.sh || len(seg.smask) != len(seg.slab) {
		return
	}
	sw, sh := seg.sw, seg.sh
	bg := fitBackground(seg.slab, sw, sh)
	cand := make([]bool, sw*sh)
	inMask := 0
	for i, c := range seg.slab {
		if seg.smask[i] {
			inMask++
			continue
		}
		q := bg.at(float64(i%sw), float64(i/sw))
		dl, da, db := float64(c.L-q.L), float64(c.A-q.A), float64(c.B-q.B)
		if math.Sqrt(dl*dl+da*da+db*db) < mvGrowDist || shadowLike(c, q) {
			continue
		}
		cand[i] = true
	}
	// Flood from the mask through the candidates, across gaps of up to mvGrowGap-1
	// cells (a thin stem lost between a shade and a base).
	added := make([]bool, sw*sh)
	var stack []int
	for i, in := range seg.smask {
		if in {
			stack = append(stack, i)
		}
	}
	n := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%sw, i/sw
		for dy := -mvGrowGap; dy <= mvGrowGap; dy++ {
			for dx := -mvGrowGap; dx <= mvGrowGap; dx++ {
				xx, yy := x+dx, y+dy
				if xx < 0 || yy < 0 || xx >= sw || yy >= sh {
					continue
				}
				j := yy*sw + xx
				if cand[j] && !added[j] {
					added[j] = true
					n++
					stack = append(stack, j)
				}
			}
		}
	}
	if n == 0 || float64(n+inMask) > mvGrowMax*float64(sw*sh) {
		return
	}
	f := seg.f
	for y := range seg.h {
		row := (y / f) * sw
		for x := range seg.w {
			if added[row+x/f] {
				v.alpha[y*seg.w+x] = 255
			}
		}
	}
}

// mvGrow switches growMask on (off: the segmenter's mask as it is).
var mvGrow = true

// alphaBounds is the box of the pixels with alpha ≥ 128; def when there are none.
func alphaBounds(alpha []uint8, w, h int, def image.Rectangle) image.Rectangle {
	x0, y0, x1, y1 := w, h, -1, -1
	for y := range h {
		row := alpha[y*w : (y+1)*w]
		for x, a := range row {
			if a >= 128 {
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return def
	}
	return image.Rect(x0, y0, x1+1, y1+1)
}
