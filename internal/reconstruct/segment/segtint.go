package segment

import "math"

// Off-tint recovery. The colour cut forgives darkening that keeps the backdrop's
// chroma (shadowDist), and on a dark backdrop it forgives a darkening of a third of
// the backdrop's lightness outright: that is what a contact shadow looks like. A
// near-black product on a charcoal sweep (a velvet sofa, a bottle's rubber sleeve)
// is such a darkening cell by cell, so the cut keeps only its shaded edge and the
// model is built from a sliver (the real-product set's sofa seen from 25° on the
// dark sweep: 2 % of it kept, F@5 0.03). Over a whole region the two differ: a shadow
// multiplies the backdrop, so it keeps the sweep's tint scaled with its lightness
// (measured: 0.20–0.32 of the predicted chroma off on every dark-sweep photo of the
// set), while a neutral or coloured part misses it by about the whole tint,
// or by its own colour. Per cell that difference (2–3 units of chroma on a bluish
// charcoal sweep) is within the JPEG noise; averaged over a region of a few hundred
// cells it is not. So a region darker than the backdrop, next to the object, large
// enough for its mean to be trusted, whose mean chroma misses the shadow model by
// offTintShare of the tint is product, where the tint there is offTintNeutral at least.

const (
	offTintDarken   = 1.5 // L* below the backdrop model for a cell to be a candidate
	offTintMinCells = 50  // least region size (grid cells) whose mean is trusted
	offTintShare    = 0.8 // of the tint a shadow keeps: the mean miss of a product region
	// offTintNeutral (ΔC*) is the tint under which a sweep counts as neutral: a
	// shadow there has no tint to keep and a grey part none to miss. It bounds a
	// region's mean tint (since reconstruct 1.3.7 the tint rather than the miss: a
	// black sleeve on the dark sweep missed 0.89 of a 2.0 tint, 1.78, and was left
	// out by a floor on the miss), and in the second pass it is the tint under which
	// every darker cell is a candidate. Until reconstruct 1.3.9 the region's floor
	// was 1.8: on the real set's pale warm-grey sweep (chroma about 2 at L* 75–80)
	// a shadow at a grey part's lightness keeps a tint of 1.0–1.6, so the grey bases,
	// shades and posts of four photos were taken for shadow (mask IoU 0.46–0.70).
	// Averaged over offTintMinCells cells, 1.0 is still well above the grid's chroma
	// noise (the history of docs/reconstruction.md (git log -p), "Reconstruct 1.3.9").
	offTintNeutral = 1.0
	// offTintCellShare is the least miss, of the tint a shadow keeps, for a cell of an
	// accepted region to be added.
	offTintCellShare = 0.5
	// offTintOwnShare: in the second pass (see offTintRecover) a candidate cell's own
	// chroma is at most this share of the tint a shadow there would keep: it lost
	// the tint rather than took another hue.
	offTintOwnShare = 0.5
)

// offTintRecover returns mask with the off-tint regions next to it added, and the
// added cells (nil when none). It looks for them twice. First among every cell
// darker than the backdrop: a product region that misses the tint as a whole (the
// black sofa, a green car's shaded side). Then, in what is left, among the cells that
// lost the tint: a grey part lost beside its own contact shadow joins the shadow into
// one region whose mean keeps the tint (the real barn lamp's base, the candle
// holder's knob, the shoe's white sole, the dress form's stand: 20–60 % of their
// masks' misses), and taking only tint-less cells splits the part off. Cells that
// took a hue of their own are left out of that pass: on the synthetic scenes they are
// the shadow band next to a coloured product, tinted by JPEG's bleed of its colour.
func (s *Segmentation) offTintRecover(mask []bool, bg *bgModel) ([]bool, []bool) {
	n := s.Sw * s.Sh
	dark, lost := make([]bool, n), make([]bool, n)
	// Per darker cell: how far its chroma is off the shadow model, and the tint a
	// shadow there would keep.
	miss, tint := make([]float64, n), make([]float64, n)
	for i := range n {
		if mask[i] {
			continue
		}
		q := bg.At(float64(i%s.Sw), float64(i/s.Sw))
		if float64(q.L-s.Slab[i].L) < offTintDarken {
			continue
		}
		c := s.Slab[i]
		ref := [3]float64{float64(q.L), float64(q.A), float64(q.B)}
		miss[i], tint[i] = ShadowChromaDev(c, ref), shadowTint(c, ref)
		dark[i] = true
		lost[i] = tint[i] < offTintNeutral || math.Hypot(float64(c.A), float64(c.B)) <= offTintOwnShare*tint[i]
	}
	out, added := s.OffTintRegions(mask, dark, miss, tint, nil)
	for i := range n {
		lost[i] = lost[i] && !out[i]
	}
	return s.OffTintRegions(out, lost, miss, tint, added)
}

// OffTintRegions adds to mask the 4-connected regions of candidate cells that touch
// it, are at least offTintMinCells large, whose mean tint is at least offTintNeutral and
// whose mean miss is at least offTintShare of it; within such a region only the cells
// missing offTintCellShare of the tint are added. added collects the added cells
// (allocated when the first is).
func (s *Segmentation) OffTintRegions(mask, cand []bool, miss, tint []float64, added []bool) ([]bool, []bool) {
	n := s.Sw * s.Sh
	seen := make([]bool, n)
	var stack, cells []int
	for i := range n {
		if !cand[i] || seen[i] {
			continue
		}
		seen[i] = true
		stack = append(stack[:0], i)
		cells = cells[:0]
		touches := false
		var sumMiss, sumTint float64
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cells = append(cells, c)
			sumMiss += miss[c]
			sumTint += tint[c]
			x, y := c%s.Sw, c/s.Sw
			for _, o := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				xx, yy := x+o[0], y+o[1]
				if xx < 0 || yy < 0 || xx >= s.Sw || yy >= s.Sh {
					continue
				}
				j := yy*s.Sw + xx
				touches = touches || mask[j]
				if cand[j] && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		m := float64(len(cells))
		if !touches || len(cells) < offTintMinCells || sumTint/m < offTintNeutral || sumMiss/m < offTintShare*sumTint/m {
			continue
		}
		if added == nil {
			added = make([]bool, n)
		}
		// The region's own shadow, darker and tint kept, touches it and joins it;
		// cell by cell it is told apart well enough (and refine trims the rest).
		for _, c := range cells {
			added[c] = added[c] || miss[c] >= offTintCellShare*tint[c]
		}
	}
	if added == nil {
		return mask, nil
	}
	// Cells added by an earlier call are in mask already.
	out := make([]bool, n)
	for i := range n {
		out[i] = mask[i] || added[i]
	}
	return out, added
}
