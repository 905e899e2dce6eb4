package multiview

import (
	"image"
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
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
func (v *View) growMask() {
	seg := v.Seg
	v.Alpha = append([]uint8(nil), seg.Alpha...)
	if seg.WholeFrame || v.P.HasAlpha || len(seg.Slab) != seg.Sw*seg.Sh || len(seg.Smask) != len(seg.Slab) {
		return
	}
	sw, sh := seg.Sw, seg.Sh
	bg := segment.FitBackground(seg.Slab, sw, sh)
	cand := make([]bool, sw*sh)
	// loose: every cell that differs from the backdrop, shadow-like or not.
	loose := make([]bool, sw*sh)
	inMask, nLoose := 0, 0
	for i, c := range seg.Slab {
		if seg.Smask[i] {
			inMask++
			continue
		}
		q := bg.At(float64(i%sw), float64(i/sw))
		dl, da, db := float64(c.L-q.L), float64(c.A-q.A), float64(c.B-q.B)
		if math.Sqrt(dl*dl+da*da+db*db) < mvGrowDist {
			continue
		}
		loose[i] = true
		nLoose++
		if segment.ShadowLike(c, q) {
			continue
		}
		cand[i] = true
	}
	// Flood from the mask through the candidates, across gaps of up to mvGrowGap-1
	// cells (a thin stem lost between a shade and a base).
	added := make([]bool, sw*sh)
	var stack []int
	for i, in := range seg.Smask {
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
	grown := n > 0 && float64(n+inMask) <= mvGrowMax*float64(sw*sh)
	kept := slices.Clone(seg.Smask)
	if grown {
		v.setCells(v.Alpha, added)
		for i, a := range added {
			kept[i] = kept[i] || a
		}
	}
	if UseTakeBack && float64(nLoose+inMask) <= mvGrowMax*float64(sw*sh) {
		v.Loose = slices.Clone(v.Alpha)
		v.setCells(v.Loose, LooseCells(loose, kept, sw, sh))
	}
}

// setCells sets alpha to 255 on the working pixels of the grid cells in cells.
func (v *View) setCells(alpha []uint8, cells []bool) {
	seg := v.Seg
	f := seg.F
	for y := range seg.H {
		row := (y / f) * seg.Sw
		for x := range seg.W {
			if cells[row+x/f] {
				alpha[y*seg.W+x] = 255
			}
		}
	}
}

// LooseCells is the take-back candidates (takeback.go) among the cells that
// differ from the backdrop (loose) but are not in the mask (kept): those that
// do not lie, along their row, between two kept cells. What a row's mask
// encloses is most often a see-through gap in shade (between a chair's or a
// table's legs, under a sofa's seat or a car's body, where the floor is in the
// product's shadow); a part lost in shade extends the outline instead (a lamp's
// base under its stem, a shoe's sole, the shaded half of a shade).
func LooseCells(loose, kept []bool, sw, sh int) []bool {
	out := make([]bool, len(loose))
	for y := range sh {
		row := kept[y*sw : (y+1)*sw]
		first, last := -1, -1
		for x, k := range row {
			if k {
				if first < 0 {
					first = x
				}
				last = x
			}
		}
		for x := range sw {
			i := y*sw + x
			if loose[i] && !row[x] && (first < 0 || x < first || x > last || !LooseOutside) {
				out[i] = true
			}
		}
	}
	return out
}

// Grow switches growMask on (off: the segmenter's mask as it is).
var Grow = true

// AlphaBounds is the box of the pixels with alpha ≥ 128; def when there are none.
func AlphaBounds(alpha []uint8, w, h int, def image.Rectangle) image.Rectangle {
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

// LooseOutside leaves what a row's mask encloses out of the loose mask.
var LooseOutside = true
