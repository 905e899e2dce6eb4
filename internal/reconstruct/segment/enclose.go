package segment

import (
	"math"
	"slices"
)

// Edge-enclosure recovery. The colour cut decides each cell by how far its colour is
// from the backdrop's, so a product whose colour is close to the backdrop's (a white
// candle holder on a light grey sweep, a black sofa on a charcoal one, silver lamp
// stems) loses all but its shaded edges, and the rest of the model is then built from
// a sliver. Such a product still has an outline: a step in colour that the smooth
// backdrop (a quadratic field with noise and soft shadows) never has. So the backdrop
// is also found as what can be reached from the frame's border without crossing such
// a step, and what it cannot reach next to the colour cut's object is object too.
// A soft contact shadow is no step (its darkening keeps the backdrop's chroma and is
// discounted), so the flood passes it; a hole enclosed by the object (a bag's handle
// loop, a mug's handle) borders no reached backdrop and is not added.

const (
	encloseNoiseK    = 1.6  // a step is an edge above this many times the backdrop's 99th-percentile step …
	encloseMinStep   = 1.0  // … and above this ΔE at least
	encloseMaxCover  = 0.55 // the recovered object's largest share of the frame
	encloseShadowK   = 0.25 // weight of a shadow-like darkening in a step
	encloseMinGain   = 0.1  // of the mask's area: smaller additions (halos, specks) are left alone
	encloseBridge    = 2    // cells: outline gaps up to twice this are bridged
	encloseMaxShadow = 0.3  // share of shadow-coloured cells above which a region is a pocket of backdrop
	// encloseMinContrast is the least median plain ΔE from the backdrop model a
	// recovered region must have (a pocket of backdrop has about the noise).
	encloseMinContrast = 4.0
	encloseMaxContrast = 25.0
	// enclosePieceMin is the least size of a recovered region, of the mask's area.
	enclosePieceMin = 0.02
)

// StepDist is the colour step between neighbouring cells a and b, with a darkening
// that keeps the lighter cell's tint (a shadow's edge, shadowHueKept's test) discounted.
// A darkening that loses the tint is a grey or black part's edge and counts in full:
// with the looser 2·shadowChroma the step from a pale warm sweep to a neutral grey
// foot, or from a navy sweep to a black sleeve, was discounted below the edge
// threshold and the flood walked into the part.
func StepDist(a, b Lab) float64 {
	if a.L > b.L {
		a, b = b, a
	}
	if float64(a.L) >= shadowMaxRatio*float64(b.L) {
		// Darkening with the tint a shadow keeps (ShadowChromaDev within the
		// hue-kept tolerance).
		ref := [3]float64{float64(b.L), float64(b.A), float64(b.B)}
		dev := ShadowChromaDev(a, ref)
		if dev <= max(shadowHueFloor, shadowHueShare*shadowTint(a, ref)) {
			return math.Hypot(float64(b.L-a.L)*encloseShadowK, dev)
		}
	}
	return math.Sqrt(LabDist2(a, b))
}

// encloseRecover returns mask with the enclosed object regions next to it added, and
// the added cells (nil when nothing was added). d is the backdrop distance per cell;
// shadowed marks the cells the contact-shadow model took out of the cut, which stay
// backdrop here too (a grey stand's base disc on a grey sweep is read as shadow, as
// before, rather than reopened by its crisp rim).
func (s *Segmentation) encloseRecover(mask []bool, d []float64, bg *bgModel, shadowed []bool) ([]bool, []bool) {
	w, h := s.Sw, s.Sh
	n := w * h
	if w < 8 || h < 8 {
		return mask, nil
	}
	// Noise: the steps along the border strip, where the backdrop is.
	bw := max(1, int(math.Round(0.03*float64(min(w, h)))))
	var border []float64
	for y := range h {
		for x := 0; x+1 < w; x++ {
			if (x < bw || y < bw || x >= w-bw || y >= h-bw) && !mask[y*w+x] && !mask[y*w+x+1] {
				border = append(border, StepDist(s.Slab[y*w+x], s.Slab[y*w+x+1]))
			}
		}
	}
	if len(border) == 0 {
		return mask, nil
	}
	// The backdrop's own steps (sensor noise, JPEG blocks, the banding of a smooth
	// gradient) are mostly zero at grid scale with rare larger ones, so the gauge is
	// a high quantile rather than the median.
	slices.Sort(border)
	thr := max(encloseMinStep, encloseNoiseK*border[len(border)*99/100])
	// An edge between two cells marks the one farther from the backdrop, so the
	// outline is on the object's side and the object is not grown by a cell.
	edge := make([]bool, n)
	for y := range h {
		for x := range w {
			i := y*w + x
			for _, j := range [2]int{i + 1, i + w} {
				if j == i+1 && x+1 >= w || j == i+w && y+1 >= h {
					continue
				}
				if StepDist(s.Slab[i], s.Slab[j]) > thr {
					if d[i] >= d[j] {
						edge[i] = true
					} else {
						edge[j] = true
					}
				}
			}
		}
	}
	// Gaps in the outline, where the shading of a curved product crosses the
	// backdrop's brightness, are bridged by thickening the edges for the flood; the
	// flooded backdrop is grown back by as much afterwards, so the object is not
	// grown by it.
	for range encloseBridge {
		edge = dilate(edge, w, h)
	}
	// Flood the backdrop from the border through cells that are neither edge nor
	// object.
	reached := make([]bool, n)
	queue := make([]int32, 0, 4096)
	// A contact shadow's rim can be a step sharp enough to count as an edge, and with
	// the object's legs it would enclose the backdrop under a table: shadow-coloured
	// cells in the bottom band of the outline (contactShadow's band) stay passable.
	// Shadow-coloured here means the sweep's tint kept (shadowHueKept): a neutral grey
	// foot on a warm grey sweep is, by lightness and the looser ShadowLike, its own
	// shadow, and passing it let the flood into the part.
	top, bottom := h, -1
	for i, v := range mask {
		if v {
			top, bottom = min(top, i/w), max(bottom, i/w)
		}
	}
	bandTop := bottom - int(shadowBand*float64(bottom-top+1))
	passShadow := func(i int) bool {
		return i/w >= bandTop && shadowHueKept(s.Slab[i], bg.At(float64(i%w), float64(i/w)))
	}
	push := func(i int) {
		if !reached[i] && (!edge[i] || shadowed[i] || passShadow(i)) && !mask[i] {
			reached[i] = true
			queue = append(queue, int32(i))
		}
	}
	for x := range w {
		push(x)
		push((h-1)*w + x)
	}
	for y := range h {
		push(y * w)
		push(y*w + w - 1)
	}
	for q := 0; q < len(queue); q++ {
		c := int(queue[q])
		x, y := c%w, c/w
		if x > 0 {
			push(c - 1)
		}
		if x+1 < w {
			push(c + 1)
		}
		if y > 0 {
			push(c - w)
		}
		if y+1 < h {
			push(c + w)
		}
	}
	for range encloseBridge {
		grown := dilate(reached, w, h)
		for i := range n {
			reached[i] = grown[i] && !mask[i]
		}
	}
	// Components of unreached, unmasked cells: added when they touch the object and
	// border reached backdrop (holes enclosed by the object do not).
	area := countTrue(mask)
	// A piece the cut lost whole (a lamp's pale base under its shade) is separated
	// from the object by a gap of backdrop no wider than the bridged outline gaps.
	near := mask
	for range encloseBridge + 1 {
		near = dilate(near, w, h)
	}
	detached := false
	var des []float64
	out := slices.Clone(mask)
	added := make([]bool, n)
	seen := make([]bool, n)
	gain := 0
	for i := range n {
		if reached[i] || mask[i] || seen[i] {
			continue
		}
		seen[i] = true
		queue = append(queue[:0], int32(i))
		touchObj, touchNear, touchBack := false, false, false
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			x, y := c%w, c/w
			for _, dd := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				xx, yy := x+dd[0], y+dd[1]
				if xx < 0 || yy < 0 || xx >= w || yy >= h {
					continue
				}
				j := yy*w + xx
				touchNear = touchNear || near[j]
				switch {
				case mask[j]:
					touchObj = true
				case reached[j]:
					touchBack = true
				case !seen[j]:
					seen[j] = true
					queue = append(queue, int32(j))
				}
			}
		}
		// Backdrop seen through the object (under a table, between a chair's legs)
		// can be closed off by the rim of the shadow on the floor, and a narrow
		// concave notch (under a vase's flared lip) by the bridged gaps: such a
		// pocket is largely shadow-coloured or, by plain colour distance, the
		// backdrop itself; a lost part of the product is neither.
		sh := 0
		des = des[:0]
		for _, c := range queue {
			q := bg.At(float64(int(c)%w), float64(int(c)/w))
			if shadowHueKept(s.Slab[c], q) || shadowed[c] {
				sh++
			}
			des = append(des, math.Sqrt(LabDist2(s.Slab[c], q)))
		}
		// A region far from the backdrop's colour that the cut still left out was
		// left out on purpose (read as a contact shadow, or a separate piece):
		// recovery is for parts close to the backdrop's colour.
		md := Median(des)
		distinct := md >= max(encloseMinContrast, 2*thr) && md <= encloseMaxContrast
		// Slivers (a notch between a neck and the shoulders, a cell of halo) are
		// left to the colour cut: they change little but the outline's symmetry.
		big := float64(len(queue)) >= enclosePieceMin*float64(area)
		if (touchObj || touchNear) && touchBack && distinct && big && float64(sh) < encloseMaxShadow*float64(len(queue)) {
			for _, c := range queue {
				out[c], added[c] = true, true
			}
			gain += len(queue)
			detached = detached || !touchObj
		}
	}
	if detached {
		// Join the detached piece to the object across the gap, as the cut's own
		// stacked pieces are (bridgeStacked).
		joined := bridgeStacked(out, w, h)
		for i := range n {
			if joined[i] && !out[i] {
				out[i], added[i] = true, true
			}
		}
	}
	if float64(gain) < encloseMinGain*float64(area) {
		return mask, nil
	}
	// A recovered object that covers most of the frame or runs off its sides is the
	// backdrop's own texture closing the flood, not a product.
	if float64(countTrue(out)) > encloseMaxCover*float64(n) || sidesTouched(out, w, h) > sidesTouched(mask, w, h) {
		return mask, nil
	}
	return out, added
}

// sidesTouched counts the frame sides a grid mask reaches.
func sidesTouched(m []bool, w, h int) int {
	top, bottom, left, right := false, false, false, false
	for x := range w {
		top = top || m[x]
		bottom = bottom || m[(h-1)*w+x]
	}
	for y := range h {
		left = left || m[y*w]
		right = right || m[y*w+w-1]
	}
	c := 0
	for _, v := range []bool{top, bottom, left, right} {
		if v {
			c++
		}
	}
	return c
}
