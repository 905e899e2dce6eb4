package segment

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
)

// Segmentation separates the product from its background. Everything downstream
// (silhouette, parts, texture, thumbnail) depends on it, so it combines three cues:
// an explicit alpha channel when the photo has one; otherwise a model of the backdrop
// fitted to the image border (a smooth quadratic colour field for gradients and
// vignetting plus colour clusters for patterned or two-tone backdrops) with a
// soft-shadow-tolerant colour distance; and a GrabCut-style energy (colour mixtures +
// contrast-sensitive smoothness) minimised exactly with a graph cut on a downscaled
// grid, then refined per pixel along the edge at working resolution.
type Segmentation struct {
	W, H  int
	Alpha []uint8 // soft alpha at working resolution (0 = background)
	Bbox  image.Rectangle
	Area  int // pixels with alpha ≥ 128

	// The downscaled grid the graph cut ran on; parts reuse its colours.
	F      int // working pixels per grid pixel (per side)
	Sw, Sh int
	Smask  []bool
	Slab   []Lab
	Srgb   [][3]float32

	// WholeFrame is set when nothing could be told apart from the backdrop and the
	// mask fell back to the whole photo.
	WholeFrame bool
	// confidence is the share of the graph cut's foreground that the kept object
	// holds (1 for an alpha cut-out): low when the cut found many unconnected
	// things, as on a busy backdrop, so "the object" is a guess.
	confidence float64
}

// segGridSide is the long side of the graph-cut grid: large enough for accurate
// outlines after edge refinement, small enough to keep the cut in the tens of ms.
const segGridSide = 256

// Segment computes the object mask of p.
func Segment(ctx context.Context, p *Photo) (*Segmentation, error) {
	s := &Segmentation{W: p.W, H: p.H, confidence: 1}
	s.F = max(1, (max(p.W, p.H)+segGridSide-1)/segGridSide)
	s.Sw = (p.W + s.F - 1) / s.F
	s.Sh = (p.H + s.F - 1) / s.F
	s.downscale(p)
	if p.HasAlpha {
		s.fromAlpha(p)
	} else {
		smooth := FitBackground(s.Slab, s.Sw, s.Sh)
		// A textured backdrop (a wooden tabletop, a patterned cloth: merchant
		// walk 4, H11) is described by its colour clusters, and that outline
		// is kept when it is one object clear of the frame. Otherwise (a plain
		// backdrop, or a product so large that its own colours fill the
		// border) the smooth model decides, as for every studio photo.
		if tb := fitTexturedBackground(smooth, s.Slab, s.Sw, s.Sh); tb != nil {
			ts := *s
			if err := ts.fromColour(ctx, p, tb); err != nil {
				return nil, err
			}
			ts.Finish()
			if SubjectSeparated(&ts) {
				return &ts, nil
			}
		}
		if err := s.fromColour(ctx, p, smooth); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.Finish()
	return s, nil
}

// downscale fills the grid colours (alpha-weighted box averages).
func (s *Segmentation) downscale(p *Photo) {
	n := s.Sw * s.Sh
	s.Srgb = make([][3]float32, n)
	s.Slab = make([]Lab, n)
	acc := make([][4]float32, n)
	for y := range p.H {
		row := p.Img.Pix[y*p.Img.Stride:]
		sy := y / s.F
		for x := range p.W {
			a := float32(row[4*x+3])
			c := &acc[sy*s.Sw+x/s.F]
			c[0] += float32(row[4*x]) * a
			c[1] += float32(row[4*x+1]) * a
			c[2] += float32(row[4*x+2]) * a
			c[3] += a
		}
	}
	table := SrgbLinearTable()
	for i := range acc {
		c := acc[i]
		if c[3] > 0 {
			s.Srgb[i] = [3]float32{c[0] / c[3], c[1] / c[3], c[2] / c[3]}
		}
		s.Slab[i] = ToLab(table, uint8(s.Srgb[i][0]+0.5), uint8(s.Srgb[i][1]+0.5), uint8(s.Srgb[i][2]+0.5))
	}
}

// fromAlpha trusts a meaningful alpha channel: cut-outs from other tools are already
// better than anything we could infer.
func (s *Segmentation) fromAlpha(p *Photo) {
	n := p.W * p.H
	s.Alpha = make([]uint8, n)
	bin := make([]bool, n)
	for i := range n {
		a := p.Img.Pix[4*i+3]
		s.Alpha[i] = a
		bin[i] = a >= 128
	}
	keep := LargestComponent(bin, p.W, p.H)
	filled := fillHoles(keep, p.W, p.H, 0.04)
	for i := range n {
		switch {
		case !keep[i] && !filled[i]:
			s.Alpha[i] = 0
		case filled[i] && !keep[i]:
			s.Alpha[i] = 255
		}
	}
	// Derive the grid mask from the cleaned alpha so both agree.
	s.Smask = downscaleMask(s.Alpha, p.W, p.H, s.F, s.Sw, s.Sh)
}

// downscaleMask marks grid cells whose mean alpha is at least one half.
func downscaleMask(alpha []uint8, w, h, f, sw, sh int) []bool {
	sum := make([]int, sw*sh)
	cnt := make([]int, sw*sh)
	for y := range h {
		for x := range w {
			i := (y/f)*sw + x/f
			sum[i] += int(alpha[y*w+x])
			cnt[i]++
		}
	}
	out := make([]bool, sw*sh)
	for i := range out {
		out[i] = cnt[i] > 0 && sum[i] >= 128*cnt[i]
	}
	return out
}

// bgModel predicts the backdrop colour anywhere in the frame from the border.
type bgModel struct {
	coef     [3][6]float64 // quadratic colour field per Lab channel
	clusters [][3]float64  // dominant border colours
	tLo, tHi float64       // "surely background" / "surely object" distances
	sw, sh   int
	// textured: the border is a texture (wood grain, a patterned cloth), told
	// by its colour clusters (fitTexturedBackground). Darker streaks are then
	// the texture, not legs or a shadow's edge.
	textured bool
}

func quadBasis(x, y float64) [6]float64 { return [6]float64{1, x, y, x * x, y * y, x * y} }

// At evaluates the quadratic field at grid coordinates (gx, gy).
func (m *bgModel) At(gx, gy float64) Lab {
	x := 2*gx/float64(max(1, m.sw-1)) - 1
	y := 2*gy/float64(max(1, m.sh-1)) - 1
	b := quadBasis(x, y)
	var out [3]float64
	for c := range 3 {
		for k := range 6 {
			out[c] += m.coef[c][k] * b[k]
		}
	}
	return Lab{float32(out[0]), float32(out[1]), float32(out[2])}
}

// shadowDist is a colour distance that forgives moderate darkening that keeps the
// backdrop's chroma: soft contact shadows and vignetting belong to the backdrop, not
// the product. Darkening scales a* and b* with L*+16 (CIELAB's cube roots), so a
// shadow's chroma is compared with the backdrop's scaled by that ratio: a beige leg
// in the shade of a pink-white sweep keeps its own hue and stays apart, where a plain
// chroma difference would have forgiven it.
func shadowDist(c Lab, ref [3]float64) float64 {
	dl := float64(c.L) - ref[0]
	da := float64(c.A) - ref[1]
	db := float64(c.B) - ref[2]
	chroma := math.Sqrt(da*da + db*db)
	if dl < 0 {
		// On a dark backdrop a shadow can darken it only a little in L*, while a
		// black product is far darker relative to it: forgive a share of the
		// backdrop's own lightness, at most 14, and count the rest fully there.
		light := backdropLightness(ref[0])
		dark := -dl
		chroma = max(0, chroma-0.35*dark)
		dl = max(0, dark-min(14, 0.3*ref[0])) * (1 - 0.4*light)
	}
	return math.Sqrt(dl*dl + chroma*chroma)
}

// backdropLightness is 0 for a dark backdrop (L* ≤ 25), 1 for a light or mid-grey one
// (L* ≥ 50).
func backdropLightness(l float64) float64 { return Clamp01((l - 25) / 25) }

// shadowTint is the chroma a shadow on the backdrop ref keeps at c's L*: darkening
// scales a* and b* with L*+16 (see shadowDist).
func shadowTint(c Lab, ref [3]float64) float64 {
	return (float64(c.L) + 16) / max(1, ref[0]+16) * math.Hypot(ref[1], ref[2])
}

// ShadowChromaDev is how far c's chroma is from the backdrop ref darkened to c's L*.
func ShadowChromaDev(c Lab, ref [3]float64) float64 {
	k := (float64(c.L) + 16) / max(1, ref[0]+16)
	return math.Hypot(float64(c.A)-ref[1]*k, float64(c.B)-ref[2]*k)
}

// ShadowLike reports whether c is the backdrop q darkened by a shadow: darker, not
// nearly black, and with the chroma the shadow model predicts.
func ShadowLike(c, q Lab) bool {
	dl := float64(q.L - c.L)
	if dl < shadowMinDarken || float64(c.L) < shadowMaxRatio*float64(q.L) {
		return false
	}
	return ShadowChromaDev(c, [3]float64{float64(q.L), float64(q.A), float64(q.B)}) <= shadowChroma
}

// Hue-kept shadows. A shadow scales the backdrop's chroma with its lightness, so on a
// tinted sweep it keeps the tint, while a grey part has its own (usually none): a
// neutral grey foot on a warm grey sweep. The fixed tolerance shadowChroma forgives
// any deviation up to the whole tint of such pale sweeps, so for the edge-enclosure
// recovery, where being taken for a shadow lets the backdrop flood into the part, the
// tolerance is a share of the tint the shadow should have, with a floor for the noise
// of the grid's chroma. The contact-shadow model itself keeps ShadowLike: with the
// stricter test it leaves hard synthetic shadows under a chair in the cut.
const (
	shadowHueShare = 0.5 // of the shadow model's chroma: the deviation a hue-kept shadow may have
	shadowHueFloor = 1.0 // least tolerance (grid-cell chroma noise after JPEG)
)

// shadowHueKept reports whether c is the backdrop q darkened by a shadow that keeps
// the backdrop's tint (see above); stricter than ShadowLike on pale, tinted sweeps.
func shadowHueKept(c, q Lab) bool {
	if !ShadowLike(c, q) {
		return false
	}
	ref := [3]float64{float64(q.L), float64(q.A), float64(q.B)}
	tol := max(shadowHueFloor, shadowHueShare*shadowTint(c, ref))
	return ShadowChromaDev(c, ref) <= tol
}

// dist is the backdrop distance of colour c at grid position (gx, gy).
func (m *bgModel) dist(c Lab, gx, gy float64) float64 {
	q := m.At(gx, gy)
	d := shadowDist(c, [3]float64{float64(q.L), float64(q.A), float64(q.B)})
	for _, cl := range m.clusters {
		d = min(d, shadowDist(c, cl)+2)
	}
	return d
}

// FitBackground fits the backdrop model to a border strip with robust re-weighting so
// an object touching the frame edge does not drag the model towards its colours.
func FitBackground(slab []Lab, sw, sh int) *bgModel {
	m := &bgModel{sw: sw, sh: sh}
	bw := max(1, int(math.Round(0.03*float64(min(sw, sh)))))
	var idx []int
	for y := range sh {
		for x := range sw {
			if x < bw || y < bw || x >= sw-bw || y >= sh-bw {
				idx = append(idx, y*sw+x)
			}
		}
	}
	inlier := make([]bool, len(idx))
	for i := range inlier {
		inlier[i] = true
	}
	resid := make([]float64, len(idx))
	for round := range 4 {
		var ata [6][6]float64
		var atb [3][6]float64
		for k, i := range idx {
			if !inlier[k] {
				continue
			}
			x := 2*float64(i%sw)/float64(max(1, sw-1)) - 1
			y := 2*float64(i/sw)/float64(max(1, sh-1)) - 1
			b := quadBasis(x, y)
			v := [3]float64{float64(slab[i].L), float64(slab[i].A), float64(slab[i].B)}
			for r := range 6 {
				for c := range 6 {
					ata[r][c] += b[r] * b[c]
				}
				for ch := range 3 {
					atb[ch][r] += b[r] * v[ch]
				}
			}
		}
		for r := range 6 {
			ata[r][r] += 1e-3 // ridge: keeps the system solvable on tiny borders
		}
		for ch := range 3 {
			m.coef[ch] = solve6(ata, atb[ch])
		}
		for k, i := range idx {
			q := m.At(float64(i%sw), float64(i/sw))
			c := slab[i]
			dl, da, db := float64(c.L-q.L), float64(c.A-q.A), float64(c.B-q.B)
			resid[k] = math.Sqrt(dl*dl + da*da + db*db)
		}
		if round == 3 {
			break
		}
		med := Median(resid)
		cut := max(6, 3.5*1.4826*med)
		for k := range idx {
			inlier[k] = resid[k] <= cut
		}
	}
	// Colour clusters of the inlier border (two-tone or patterned backdrops).
	var samples []Lab
	for k, i := range idx {
		if inlier[k] {
			samples = append(samples, slab[i])
		}
	}
	if g := fitGMM(subsample(samples, 4000), 3, 7); g != nil {
		m.clusters = g.mean
	}
	noise := 1.4826 * Median(resid)
	// Lab compresses dark colours: on a charcoal sweep a dark brown shade is only a
	// few units away, yet far above the (also smaller) noise, so the floors shrink
	// with the backdrop's lightness.
	var ls []float64
	for k, i := range idx {
		if inlier[k] {
			ls = append(ls, float64(slab[i].L))
		}
	}
	fl := 0.35 + 0.65*backdropLightness(Median(ls))
	m.tLo = max(5*fl, 2.5*noise)
	m.tHi = max(14*fl, 5*noise, m.tLo+6*fl)
	return m
}

// Textured backdrops. The smooth field's residual on a wood-grained or
// patterned border is its texture, so thresholds set from it (FitBackground's
// noise) can swallow the product as well. Such a border is a handful of
// colours, not one: texturedClusters of them describe it, the thresholds
// follow from each border cell's distance to the nearest, and darker streaks
// are not taken for legs (recoverLegs).
const (
	texturedClusters = 8
	// texturedMinGain: the clusters must describe the border at least this
	// many times more tightly than the smooth field did, or the border is not
	// a texture but a product running off the frame (or noise), and the smooth
	// model's verdict stands.
	texturedMinGain = 1.5
	// texturedMinNoise is the smooth field's border noise (CIELAB units, the
	// robust spread of its residual) from which a border is a texture: studio
	// sweeps, gradients and vignettes stay under 1, wood grain is 6 to 11.
	texturedMinNoise = 3.0
)

// fitTexturedBackground re-describes smooth's border (FitBackground's strip)
// by texturedClusters colour clusters, with thresholds from their own noise;
// nil when that does not describe it much better than the smooth field.
func fitTexturedBackground(smooth *bgModel, slab []Lab, sw, sh int) *bgModel {
	bw := max(1, int(math.Round(0.03*float64(min(sw, sh)))))
	var border []Lab
	var pos []int
	for y := range sh {
		for x := range sw {
			if x < bw || y < bw || x >= sw-bw || y >= sh-bw {
				border = append(border, slab[y*sw+x])
				pos = append(pos, y*sw+x)
			}
		}
	}
	g := fitGMM(subsample(border, 4000), texturedClusters, 17)
	if g == nil {
		return nil
	}
	m := &bgModel{coef: smooth.coef, clusters: g.mean, sw: sw, sh: sh, textured: true}
	nearestD := make([]float64, len(border))
	smoothD := make([]float64, len(border))
	var ls []float64
	for k, c := range border {
		best := math.MaxFloat64
		for _, cl := range m.clusters {
			best = min(best, sqDist(c, cl))
		}
		nearestD[k] = math.Sqrt(best)
		q := smooth.At(float64(pos[k]%sw), float64(pos[k]/sw))
		smoothD[k] = math.Sqrt(LabDist2(c, q))
		ls = append(ls, float64(c.L))
	}
	noise, smoothNoise := 1.4826*Median(nearestD), 1.4826*Median(smoothD)
	if smoothNoise < texturedMinNoise || texturedMinGain*noise > smoothNoise {
		return nil
	}
	// The border's own spread: most of the texture must stay below tLo.
	sorted := append([]float64(nil), nearestD...)
	slices.Sort(sorted)
	p90 := sorted[len(sorted)*9/10]
	fl := 0.35 + 0.65*backdropLightness(Median(ls))
	m.tLo = max(5*fl, 2.5*noise, p90)
	m.tHi = max(14*fl, 5*noise, m.tLo+6*fl)
	return m
}

func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}

func subsample(v []Lab, n int) []Lab {
	if len(v) <= n {
		return v
	}
	out := make([]Lab, 0, n)
	step := float64(len(v)) / float64(n)
	for i := range n {
		out = append(out, v[int(float64(i)*step)])
	}
	return out
}

// solve6 solves a 6×6 linear system by Gaussian elimination with partial pivoting.
func solve6(a [6][6]float64, b [6]float64) [6]float64 {
	for c := range 6 {
		p := c
		for r := c + 1; r < 6; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		if a[c][c] == 0 {
			continue
		}
		for r := c + 1; r < 6; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < 6; k++ {
				a[r][k] -= f * a[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	var x [6]float64
	for r := 5; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < 6; k++ {
			s -= a[r][k] * x[k]
		}
		if a[r][r] != 0 {
			x[r] = s / a[r][r]
		}
	}
	return x
}

// Energy weights of the graph cut, in nats scaled to integers by cutScale.
const (
	cutScale     = 16.0
	cutGamma     = 50.0 // smoothness weight (GrabCut's value)
	cutSpatial   = 3.0  // weight of the backdrop-distance prior
	cutMaxUnary  = 30.0 // clamps outliers so a single odd pixel cannot dominate
	cutMixtures  = 5
	cutMaxSample = 20000
)

// fromColour segments a photo without alpha.
func (s *Segmentation) fromColour(ctx context.Context, p *Photo, bg *bgModel) error {
	n := s.Sw * s.Sh
	d := make([]float64, n)
	fgCount := 0
	for i := range n {
		d[i] = bg.dist(s.Slab[i], float64(i%s.Sw), float64(i/s.Sw))
		if d[i] > bg.tHi {
			fgCount++
		}
	}
	if fgCount*500 < n {
		// Nothing stands out from the backdrop: keep the whole frame rather than invent
		// an outline, so the merchant still gets a (flat) model of what they uploaded.
		s.WholeFrame = true
		s.Smask = make([]bool, n)
		for i := range s.Smask {
			s.Smask[i] = true
		}
		s.Alpha = make([]uint8, p.W*p.H)
		for i := range s.Alpha {
			s.Alpha[i] = 255
		}
		return nil
	}
	label := make([]bool, n)
	for i := range n {
		label[i] = d[i] > (bg.tLo+bg.tHi)/2
	}
	var fgModel, bgMix *gmm
	beta := contrastBeta(s.Slab, s.Sw, s.Sh)
	shadowed := make([]bool, n) // cells the contact-shadow model took out
	for iter := range 2 {
		if err := ctx.Err(); err != nil {
			return err
		}
		var fgS, bgS []Lab
		for i := range n {
			switch {
			case iter == 0 && d[i] > bg.tHi, iter > 0 && label[i]:
				fgS = append(fgS, s.Slab[i])
			case iter == 0 && d[i] < bg.tLo, iter > 0 && !label[i]:
				bgS = append(bgS, s.Slab[i])
			}
		}
		fgModel = fitGMM(subsample(fgS, cutMaxSample), cutMixtures, 11)
		bgMix = fitGMM(subsample(bgS, cutMaxSample), cutMixtures, 13)
		if fgModel == nil || bgMix == nil {
			break
		}
		cut, err := s.graphCutOnce(ctx, d, bg, fgModel, bgMix, beta)
		if err != nil {
			return err
		}
		label = cut
		// A contact shadow is backdrop, not product: take it out of the labels and
		// make it sure background for the second cut and its colour models.
		for i, v := range s.contactShadow(label, bg) {
			if v {
				label[i] = false
				d[i] = 0
				shadowed[i] = true
			}
		}
	}
	if fgModel == nil || bgMix == nil {
		return fmt.Errorf("segment photo: empty colour model")
	}
	// Confidence is measured on the raw cut's pieces (stacked ones bridged), as the
	// honest-failure threshold was set on it; the mask itself is joined by JoinPieces.
	bridged := bridgeStacked(label, s.Sw, s.Sh)
	cutFg := countTrue(bridged)
	s.confidence = float64(countTrue(LargestComponent(bridged, s.Sw, s.Sh))) / float64(max(1, cutFg))
	mask := LargestComponent(JoinPieces(label, s.Sw, s.Sh), s.Sw, s.Sh)
	mask = closeMask(mask, s.Sw, s.Sh)
	mask, legs := s.recoverLegs(mask, d, bg)
	// Enclosed and off-tint cells (segtint.go) inside the recovered outline are kept
	// whole through refine (their colour is near the backdrop's, or forgiven as its
	// shadow, which is why the cut lost them); those on the outline are re-decided by
	// colour like the rest, which trims the backdrop the grid cells straddle.
	mask, enclosed := s.encloseRecover(mask, d, bg, shadowed)
	mask, offTint := s.offTintRecover(mask, bg)
	for _, added := range [][]bool{enclosed, offTint} {
		if added == nil {
			continue
		}
		inner := Erode(mask, s.Sw, s.Sh)
		if legs == nil {
			legs = make([]bool, len(mask))
		}
		for i, v := range added {
			legs[i] = legs[i] || v && inner[i]
		}
	}
	mask = fillHoles(mask, s.Sw, s.Sh, 0.04)
	s.Smask = mask
	return s.refine(ctx, p, bg, fgModel, bgMix, legs)
}

// contrastBeta is GrabCut's β = 1 / (2·E[‖Δc‖²]) over neighbouring grid pixels, which
// adapts the smoothness term to the photo's overall contrast.
func contrastBeta(c []Lab, w, h int) float64 {
	sum, cnt := 0.0, 0
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				sum += LabDist2(c[i], c[i+1])
				cnt++
			}
			if y+1 < h {
				sum += LabDist2(c[i], c[i+w])
				cnt++
			}
		}
	}
	if sum == 0 {
		return 1
	}
	return float64(cnt) / (2 * sum)
}

func LabDist2(a, b Lab) float64 {
	dl, da, db := float64(a.L-b.L), float64(a.A-b.A), float64(a.B-b.B)
	return dl*dl + da*da + db*db
}

// graphCutOnce builds the GrabCut energy on the grid and returns the min-cut labels.
func (s *Segmentation) graphCutOnce(ctx context.Context, d []float64, bg *bgModel, fgM, bgM *gmm, beta float64) ([]bool, error) {
	w, h := s.Sw, s.Sh
	n := w * h
	g := newGraphCut(n, 4*n)
	span := bg.tHi - bg.tLo
	for i := range n {
		ufg := min(fgM.nll(s.Slab[i]), cutMaxUnary)
		ubg := min(bgM.nll(s.Slab[i]), cutMaxUnary)
		ufg += cutSpatial * Clamp01((bg.tHi-d[i])/span)
		ubg += cutSpatial * Clamp01((d[i]-bg.tLo)/span)
		base := min(ufg, ubg)
		src := int32((ubg - base) * cutScale)
		snk := int32((ufg - base) * cutScale)
		x, y := i%w, i/w
		if (x == 0 || y == 0 || x == w-1 || y == h-1) && d[i] < bg.tLo {
			snk = capInfinite
		}
		g.addTerminal(i, src, snk)
	}
	diag := 1 / math.Sqrt2
	for y := range h {
		for x := range w {
			i := y*w + x
			link := func(j int, wgt float64) {
				c := int32(cutScale * cutGamma * wgt * math.Exp(-beta*LabDist2(s.Slab[i], s.Slab[j])))
				if c > 0 {
					g.addEdge(i, j, c, c)
				}
			}
			if x+1 < w {
				link(i+1, 1)
			}
			if y+1 < h {
				link(i+w, 1)
				if x+1 < w {
					link(i+w+1, diag)
				}
				if x > 0 {
					link(i+w-1, diag)
				}
			}
		}
	}
	if err := g.maxflow(ctx); err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = g.inSource(i)
	}
	return out, nil
}

func Clamp01(v float64) float64 { return min(max(v, 0), 1) }

// refine upsamples the grid mask to working resolution and re-decides every pixel near
// the outline from its own colour, so edges are accurate to a pixel or two instead of
// to a grid cell, then softens the outline into an anti-aliased alpha.
//
// Cells in keep (recovered legs, nil for none) stay object whole: their colours lost
// the graph cut, so the per-pixel colour test would drop them again.
func (s *Segmentation) refine(ctx context.Context, p *Photo, bg *bgModel, fgM, bgM *gmm, keep []bool) error {
	sw, sh, f := s.Sw, s.Sh, s.F
	soft := blurMask(s.Smask, sw, sh)
	bin := make([]bool, p.W*p.H)
	table := SrgbLinearTable()
	inv := 1 / float64(f)
	span := bg.tHi - bg.tLo
	for y := range p.H {
		if y%128 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		gy := (float64(y)+0.5)*inv - 0.5
		y0 := min(max(int(math.Floor(gy)), 0), sh-1)
		y1 := min(y0+1, sh-1)
		fy := Clamp01(gy - float64(y0))
		row := p.Img.Pix[y*p.Img.Stride:]
		for x := range p.W {
			gx := (float64(x)+0.5)*inv - 0.5
			x0 := min(max(int(math.Floor(gx)), 0), sw-1)
			x1 := min(x0+1, sw-1)
			fx := Clamp01(gx - float64(x0))
			m := (soft[y0*sw+x0]*(1-fx)+soft[y0*sw+x1]*fx)*(1-fy) +
				(soft[y1*sw+x0]*(1-fx)+soft[y1*sw+x1]*fx)*fy
			switch {
			case m >= 0.97, keep != nil && keep[(y/f)*sw+x/f]:
				bin[y*p.W+x] = true
				continue
			case m <= 0.03:
				continue
			}
			c := ToLab(table, row[4*x], row[4*x+1], row[4*x+2])
			llr := min(max(bgM.nll(c)-fgM.nll(c), -6), 6)
			dd := bg.dist(c, gx, gy)
			spatial := cutSpatial * (Clamp01((dd-bg.tLo)/span) - Clamp01((bg.tHi-dd)/span))
			score := llr + spatial + 8*(m-0.5)
			bin[y*p.W+x] = score > 0
		}
	}
	bin = LargestComponent(bin, p.W, p.H)
	bin = fillHoles(bin, p.W, p.H, 0.04)
	s.Alpha = softEdge(bin, p.W, p.H)
	return nil
}

// blurMask is a 3×3 box blur of a binary grid, giving the band where refine looks.
func blurMask(m []bool, w, h int) []float64 {
	out := make([]float64, w*h)
	for y := range h {
		for x := range w {
			sum, cnt := 0, 0
			for dy := -1; dy <= 1; dy++ {
				yy := y + dy
				if yy < 0 || yy >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					xx := x + dx
					if xx < 0 || xx >= w {
						continue
					}
					cnt++
					if m[yy*w+xx] {
						sum++
					}
				}
			}
			out[y*w+x] = float64(sum) / float64(cnt)
		}
	}
	return out
}

// softEdge turns a binary mask into alpha with a one-pixel anti-aliased edge.
func softEdge(bin []bool, w, h int) []uint8 {
	out := make([]uint8, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			edge := false
			if x > 0 && bin[i-1] != bin[i] || x+1 < w && bin[i+1] != bin[i] ||
				y > 0 && bin[i-w] != bin[i] || y+1 < h && bin[i+w] != bin[i] {
				edge = true
			}
			if !edge {
				if bin[i] {
					out[i] = 255
				}
				continue
			}
			sum, cnt := 0, 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					cnt++
					if bin[yy*w+xx] {
						sum++
					}
				}
			}
			a := 255 * sum / cnt
			// Keep the binary decision recoverable at the 128 threshold.
			if bin[i] {
				a = max(a, 128)
			} else {
				a = min(a, 127)
			}
			out[i] = uint8(a)
		}
	}
	return out
}

// Finish computes bounding box and area from the final alpha.
func (s *Segmentation) Finish() {
	minX, minY, maxX, maxY := s.W, s.H, -1, -1
	s.Area = 0
	for y := range s.H {
		for x := range s.W {
			if s.Alpha[y*s.W+x] >= 128 {
				s.Area++
				minX, maxX = min(minX, x), max(maxX, x)
				minY, maxY = min(minY, y), max(maxY, y)
			}
		}
	}
	if maxX < 0 {
		// Degenerate: keep the whole frame so later stages always have an object.
		s.WholeFrame = true
		for i := range s.Alpha {
			s.Alpha[i] = 255
		}
		s.Area = s.W * s.H
		minX, minY, maxX, maxY = 0, 0, s.W-1, s.H-1
		for i := range s.Smask {
			s.Smask[i] = true
		}
	}
	s.Bbox = image.Rect(minX, minY, maxX+1, maxY+1)
}

// LargestComponent keeps the biggest 8-connected true region: the product is the main
// object, specks and neighbouring props are not.
func LargestComponent(m []bool, w, h int) []bool {
	lbl := make([]int32, len(m))
	var best, bestSize int32 = 0, 0
	next := int32(0)
	queue := make([]int32, 0, 1024)
	for i := range m {
		if !m[i] || lbl[i] != 0 {
			continue
		}
		next++
		lbl[i] = next
		queue = append(queue[:0], int32(i))
		size := int32(0)
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			size++
			cx, cy := c%w, c/w
			for dy := -1; dy <= 1; dy++ {
				yy := cy + dy
				if yy < 0 || yy >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					xx := cx + dx
					if xx < 0 || xx >= w {
						continue
					}
					j := yy*w + xx
					if m[j] && lbl[j] == 0 {
						lbl[j] = next
						queue = append(queue, int32(j))
					}
				}
			}
		}
		if size > bestSize {
			best, bestSize = next, size
		}
	}
	out := make([]bool, len(m))
	if best == 0 {
		return out
	}
	for i := range m {
		out[i] = lbl[i] == best
	}
	return out
}

// fillHoles fills enclosed background regions smaller than maxFrac of the object area:
// specular highlights and labels that look like the backdrop are part of the product,
// while large openings (a mug's handle) stay open.
func fillHoles(m []bool, w, h int, maxFrac float64) []bool {
	area := 0
	for _, v := range m {
		if v {
			area++
		}
	}
	limit := int(maxFrac * float64(area))
	out := slices.Clone(m)
	seen := make([]bool, len(m))
	queue := make([]int32, 0, 1024)
	for i := range m {
		if m[i] || seen[i] {
			continue
		}
		seen[i] = true
		queue = append(queue[:0], int32(i))
		touches := false
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			cx, cy := c%w, c/w
			if cx == 0 || cy == 0 || cx == w-1 || cy == h-1 {
				touches = true
			}
			for _, j := range [4]int{c - 1, c + 1, c - w, c + w} {
				switch {
				case j == c-1 && cx == 0, j == c+1 && cx == w-1, j < 0, j >= len(m):
					continue
				}
				if !m[j] && !seen[j] {
					seen[j] = true
					queue = append(queue, int32(j))
				}
			}
		}
		if !touches && len(queue) <= limit {
			for _, c := range queue {
				out[c] = true
			}
		}
	}
	return out
}

// closeMask is a 3×3 morphological closing that seals one-pixel cracks in the outline.
func closeMask(m []bool, w, h int) []bool {
	return Erode(dilate(m, w, h), w, h)
}

func dilate(m []bool, w, h int) []bool {
	out := make([]bool, len(m))
	for y := range h {
		for x := range w {
			v := false
			for dy := -1; dy <= 1 && !v; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < w && yy < h && m[yy*w+xx] {
						v = true
						break
					}
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

func Erode(m []bool, w, h int) []bool {
	out := make([]bool, len(m))
	for y := range h {
		for x := range w {
			v := true
			for dy := -1; dy <= 1 && v; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < w && yy < h && !m[yy*w+xx] {
						v = false
						break
					}
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// JoinPieces makes the graph cut's labels one object before the largest piece is kept.
// One-pixel cracks are sealed first (closeMask), and only then are stacked pieces
// bridged (bridgeStacked). The order matters for a thin part that the cut split from
// its neighbour by one grid row, like a lamp's stem just under the shade: sealed, the
// lamp is one piece and keeps the backdrop beside the stem; left split, the shade
// and the base would be bridged column by column and the backdrop between them
// filled, so the lamp would be built as a solid block.
func JoinPieces(label []bool, w, h int) []bool {
	return bridgeStacked(closeMask(label, w, h), w, h)
}

// bridgeStacked reconnects large pieces of one product that a backdrop-coloured band
// split apart, such as a white label running around a bottle on a white table: for
// every column where a big component sits above another big one, the short gap
// between them is filled. A product photo shows one connected object, so this only
// restores what the colour cue alone could not see.
func bridgeStacked(m []bool, w, h int) []bool {
	lbl := make([]int32, len(m))
	var sizes []int
	queue := make([]int32, 0, 1024)
	for i := range m {
		if !m[i] || lbl[i] != 0 {
			continue
		}
		id := int32(len(sizes) + 1)
		lbl[i] = id
		queue = append(queue[:0], int32(i))
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			cx, cy := c%w, c/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := cx+dx, cy+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					if j := yy*w + xx; m[j] && lbl[j] == 0 {
						lbl[j] = id
						queue = append(queue, int32(j))
					}
				}
			}
		}
		sizes = append(sizes, len(queue))
	}
	if len(sizes) < 2 {
		return m
	}
	largest := slices.Max(sizes)
	big := func(id int32) bool { return id > 0 && sizes[id-1]*20 >= largest }
	top, bottom := h, -1
	for i, v := range m {
		if v && big(lbl[i]) {
			top, bottom = min(top, i/w), max(bottom, i/w)
		}
	}
	maxGap := (bottom - top + 1) * 3 / 10
	out := slices.Clone(m)
	for x := range w {
		last, lastID := -1, int32(0)
		for y := range h {
			id := lbl[y*w+x]
			if !big(id) {
				continue
			}
			if last >= 0 && id != lastID && y-last-1 <= maxGap {
				for yy := last + 1; yy < y; yy++ {
					out[yy*w+x] = true
				}
			}
			last, lastID = y, id
		}
	}
	return out
}

// Contact-shadow model: a shadow is the backdrop darkened with its chroma kept, it
// fades into the backdrop, and it lies on the floor, so in the photo it sits in the
// bottom of the object's outline (the floor under a sofa between its legs) or below it.
const (
	shadowMinDarken = 3.0  // L* below the backdrop from which a cell may be shadow
	shadowMaxRatio  = 0.35 // a shadow keeps at least this share of the backdrop's L*
	shadowChroma    = 2.5  // chroma deviation from the shadow model a shadow may have
	shadowStep      = 4.0  // L* step between neighbouring cells of one shadow
	shadowSideStep  = 8.0  // L* difference to the cells two to either side a shadow may have
	shadowBand      = 0.3  // share of the outline's height, from its bottom, a shadow may reach
	// A region with more of its cells above the band than this share is product.
	shadowAboveShare = 0.25
)

// contactShadow returns the grid cells of label that are the object's contact shadow:
// regions of shadow-coloured cells that touch the backdrop and, grown through smooth
// steps, stay within the bottom band of the labelled outline. A grey product is not
// taken for its own shadow: its shadow-coloured region grows up past the band (the
// rest of the product has the same colour) and is kept whole; legs standing in the
// shadow differ from the backdrop's chroma or are far darker, and are kept.
func (s *Segmentation) contactShadow(label []bool, bg *bgModel) []bool {
	w, h := s.Sw, s.Sh
	top, bottom := h, -1
	for i, v := range label {
		if v {
			top, bottom = min(top, i/w), max(bottom, i/w)
		}
	}
	if bottom < 0 {
		return nil
	}
	bandTop := bottom - int(shadowBand*float64(bottom-top+1))
	cand := make([]bool, w*h)
	for i, v := range label {
		if !v {
			continue
		}
		x, y := i%w, i/w
		// A shadow is smooth across: a cell that differs from its neighbours two
		// cells to the side is the edge of something standing there (a leg).
		l := s.Slab[i].L
		if x >= 2 && math.Abs(float64(l-s.Slab[i-2].L)) > shadowSideStep ||
			x+2 < w && math.Abs(float64(l-s.Slab[i+2].L)) > shadowSideStep {
			continue
		}
		cand[i] = ShadowLike(s.Slab[i], bg.At(float64(x), float64(y)))
	}
	touchesBackdrop := func(i int) bool {
		x, y := i%w, i/w
		for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			xx, yy := x+d[0], y+d[1]
			if xx >= 0 && yy >= 0 && xx < w && yy < h && !label[yy*w+xx] {
				return true
			}
		}
		return false
	}
	out := make([]bool, w*h)
	seen := make([]bool, w*h)
	var comp []int
	for i, v := range cand {
		if !v || seen[i] || i/w < bandTop || !touchesBackdrop(i) {
			continue
		}
		// Grow one region from this seed. A shadow lies in the band; a region mostly
		// above it is the product's own colour (a grey product on a white sweep) and
		// is kept. A thin path out of the band (a grey leg standing in the shadow)
		// does not save the shadow, but only cells in the band are removed.
		seen[i] = true
		comp = append(comp[:0], i)
		above := 0
		for q := 0; q < len(comp); q++ {
			c := comp[q]
			x, y := c%w, c/w
			if y < bandTop {
				above++
			}
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				xx, yy := x+d[0], y+d[1]
				if xx < 0 || yy < 0 || xx >= w || yy >= h {
					continue
				}
				j := yy*w + xx
				if cand[j] && !seen[j] && math.Abs(float64(s.Slab[j].L-s.Slab[c].L)) <= shadowStep {
					seen[j] = true
					comp = append(comp, j)
				}
			}
		}
		if float64(above) <= shadowAboveShare*float64(len(comp)) {
			for _, c := range comp {
				if c/w >= bandTop {
					out[c] = true
				}
			}
		}
	}
	return out
}

// Leg recovery: thin legs in a colour close to the backdrop's (beech or white legs on
// a white sweep) lose the graph cut, whose smoothness term charges every boundary
// cell, so a chair comes out as a floating seat. Legs hang from the object down to the
// floor, so below the outline, columns that differ from the backdrop even weakly, and
// not as a shadow does, are taken back when they run down a good way.
const (
	legWeak   = 0.6   // of bg.tLo: the backdrop distance a leg cell must exceed
	legMinRun = 0.025 // of the outline's height: shorter hanging runs are noise
	legMaxW   = 0.2   // of the outline's width: wider hanging pieces are not legs
)

// recoverLegs adds to mask the leg-like runs hanging below it (see above) and returns
// the new mask and the added cells (nil when none).
func (s *Segmentation) recoverLegs(mask []bool, d []float64, bg *bgModel) ([]bool, []bool) {
	w, h := s.Sw, s.Sh
	top, bottom, left, right := h, -1, w, -1
	for i, v := range mask {
		if v {
			x, y := i%w, i/w
			top, bottom = min(top, y), max(bottom, y)
			left, right = min(left, x), max(right, x)
		}
	}
	if bottom < 0 {
		return mask, nil
	}
	H := bottom - top + 1
	minRun := max(3, int(legMinRun*float64(H)))
	shadowy := func(i int) bool { return ShadowLike(s.Slab[i], bg.At(float64(i%w), float64(i/w))) }
	// For every column, the run of leg-like cells under the column's lowest cell.
	runEnd := make([]int, w)
	runStart := make([]int, w)
	for x := left; x <= right; x++ {
		runEnd[x] = -1
		y0 := -1
		for y := bottom; y >= top; y-- {
			if mask[y*w+x] {
				y0 = y
				break
			}
		}
		if y0 < 0 {
			continue
		}
		y := y0 + 1
		for y < h && y-y0 <= H {
			i := y*w + x
			// Leg-like: apart from the backdrop (even weakly, or darker with a hue of
			// its own, which the forgiving backdrop distance lets pass) and not a
			// shadow by the chroma-keeping shadow model.
			q := bg.At(float64(x), float64(y))
			darker := float64(q.L-s.Slab[i].L) >= shadowMinDarken && !bg.textured
			if d[i] <= legWeak*bg.tLo && !darker || shadowy(i) || bg.textured && d[i] <= bg.tLo {
				break
			}
			y++
		}
		// A leg hangs from the bottom of the object and reaches below it (a column
		// at the side of a can, where the outline is not yet at its lowest, does not).
		if y-1-y0 >= minRun && y0 >= bottom-H/10 && y-1 > bottom && (y == h || d[y*w+x] <= bg.tLo || shadowy(y*w+x)) {
			runStart[x], runEnd[x] = y0+1, y-1
		}
	}
	// Group the columns into legs; a furniture's legs stand at both sides, so the
	// outermost legs must be at least half the object's width apart.
	var groups [][2]int
	for x := left; x <= right; {
		if runEnd[x] < 0 {
			x++
			continue
		}
		x1 := x
		for x1+1 <= right && runEnd[x1+1] >= 0 {
			x1++
		}
		if float64(x1-x+1) <= legMaxW*float64(right-left+1) {
			groups = append(groups, [2]int{x, x1})
		}
		x = x1 + 1
	}
	if len(groups) < 2 || 2*(groups[len(groups)-1][1]-groups[0][0]) < right-left+1 {
		return mask, nil
	}
	out, added := slices.Clone(mask), make([]bool, len(mask))
	for _, g := range groups {
		for x := g[0]; x <= g[1]; x++ {
			for y := runStart[x]; y <= runEnd[x]; y++ {
				out[y*w+x], added[y*w+x] = true, true
			}
		}
	}
	return out, added
}
