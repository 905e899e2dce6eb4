package segment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PartMap assigns every object pixel of the segmentation grid to a part. Parts are
// what the merchant configures (materials, variants), so they follow visible colour
// and texture regions: k-means in CIELAB (lightness down-weighted so shading and
// highlights do not split a surface), connected components, and merging of regions
// too small to be worth configuring.
type PartMap struct {
	W, H   int
	Labels []int8 // -1 background, else part index (0 is the largest)
	Parts  []PartInfo
}

// PartInfo summarises one part on the grid.
type PartInfo struct {
	Area       int
	Sum        [3]float64 // sum of sRGB colours
	MinX, MinY int
	MaxX, MaxY int
	cx, cy     float64 // centroid (grid pixels)
	Name       string
}

func (p PartInfo) MeanRGB() (float64, float64, float64) {
	n := float64(max(1, p.Area))
	return p.Sum[0] / n, p.Sum[1] / n, p.Sum[2] / n
}

// Parameters of part detection.
const (
	partClusters    = 6
	partMergeDist   = 13.0  // ΔE below which two colour clusters are one material
	partMinShare    = 0.025 // regions smaller than this fraction of the object merge away
	maxParts        = 8
	partLightWeight = 0.5
)

// DetectParts finds 1–8 colour/texture regions inside the object.
func DetectParts(ctx context.Context, seg *Segmentation) (*PartMap, error) {
	w, h := seg.Sw, seg.Sh
	n := w * h
	var idx []int
	for i := range n {
		if seg.Smask[i] {
			idx = append(idx, i)
		}
	}
	pm := &PartMap{W: w, H: h, Labels: make([]int8, n)}
	for i := range pm.Labels {
		pm.Labels[i] = -1
	}
	if len(idx) == 0 {
		return pm, nil
	}
	feat := make([][4]float64, len(idx))
	for k, i := range idx {
		c := seg.Slab[i]
		feat[k] = [4]float64{partLightWeight * float64(c.L), float64(c.A), float64(c.B), 0}
	}
	// Texture: local lightness variation, so a knit and a smooth band of the same
	// colour can still separate.
	for k, i := range idx {
		x, y := i%w, i/w
		sum, sum2, cnt := 0.0, 0.0, 0.0
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				xx, yy := x+dx, y+dy
				if xx < 0 || yy < 0 || xx >= w || yy >= h || !seg.Smask[yy*w+xx] {
					continue
				}
				l := float64(seg.Slab[yy*w+xx].L)
				sum += l
				sum2 += l * l
				cnt++
			}
		}
		v := sum2/cnt - (sum/cnt)*(sum/cnt)
		feat[k][3] = 0.6 * math.Sqrt(max(v, 0))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	centres := kmeans4(feat, partClusters)
	centres = mergeCentres(centres, partMergeDist)
	lbl := make([]int8, n)
	for i := range lbl {
		lbl[i] = -1
	}
	for k, i := range idx {
		lbl[i] = int8(nearest4(feat[k], centres))
	}
	lbl = majorityFilter(lbl, w, h)
	lbl = majorityFilter(lbl, w, h)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	comp, ncomp := components(lbl, w, h)
	comp, ncomp = mergeSmall(comp, ncomp, w, h, len(idx))
	pm.Labels, pm.Parts = relabelBySize(comp, ncomp, w, h, seg)
	return pm, nil
}

func d4(a, b [4]float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func nearest4(f [4]float64, centres [][4]float64) int {
	best, bi := math.MaxFloat64, 0
	for j, c := range centres {
		if d := d4(f, c); d < best {
			best, bi = d, j
		}
	}
	return bi
}

// kmeans4 is deterministic k-means++ followed by Lloyd iterations on a subsample.
func kmeans4(feat [][4]float64, k int) [][4]float64 {
	sample := feat
	if len(sample) > 6000 {
		sample = make([][4]float64, 0, 6000)
		step := float64(len(feat)) / 6000
		for i := range 6000 {
			sample = append(sample, feat[int(float64(i)*step)])
		}
	}
	rng := rand.New(rand.NewPCG(42, 4242))
	centres := [][4]float64{sample[rng.IntN(len(sample))]}
	d2 := make([]float64, len(sample))
	for len(centres) < k {
		sum := 0.0
		for i, f := range sample {
			d2[i] = d4(f, centres[nearest4(f, centres)])
			sum += d2[i]
		}
		if sum < 1e-9 {
			break
		}
		r := rng.Float64() * sum
		pick := len(sample) - 1
		for i, v := range d2 {
			if r -= v; r <= 0 {
				pick = i
				break
			}
		}
		centres = append(centres, sample[pick])
	}
	for range 10 {
		sums := make([][5]float64, len(centres))
		for _, f := range sample {
			j := nearest4(f, centres)
			for c := range 4 {
				sums[j][c] += f[c]
			}
			sums[j][4]++
		}
		for j := range centres {
			if sums[j][4] > 0 {
				for c := range 4 {
					centres[j][c] = sums[j][c] / sums[j][4]
				}
			}
		}
	}
	return centres
}

// mergeCentres joins clusters closer than dist: k-means always returns k clusters,
// but a single-colour product must stay one part.
func mergeCentres(c [][4]float64, dist float64) [][4]float64 {
	c = slices.Clone(c)
	for len(c) > 1 {
		bi, bj, best := -1, -1, dist*dist
		for i := range c {
			for j := i + 1; j < len(c); j++ {
				if d := d4(c[i], c[j]); d < best {
					bi, bj, best = i, j, d
				}
			}
		}
		if bi < 0 {
			break
		}
		for k := range 4 {
			c[bi][k] = (c[bi][k] + c[bj][k]) / 2
		}
		c = slices.Delete(c, bj, bj+1)
	}
	return c
}

// majorityFilter replaces each object pixel's label by the most common one in its
// 3×3 neighbourhood, removing speckle from noise and JPEG artefacts.
func majorityFilter(lbl []int8, w, h int) []int8 {
	out := slices.Clone(lbl)
	var counts [maxParts * 2]int
	for y := range h {
		for x := range w {
			i := y*w + x
			if lbl[i] < 0 {
				continue
			}
			clear(counts[:])
			best, bl := 0, lbl[i]
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					l := lbl[yy*w+xx]
					if l < 0 {
						continue
					}
					counts[l]++
					if counts[l] > best || counts[l] == best && l == lbl[i] {
						best, bl = counts[l], l
					}
				}
			}
			out[i] = bl
		}
	}
	return out
}

// components labels 4-connected regions of equal label; -1 stays -1.
func components(lbl []int8, w, h int) ([]int32, int) {
	comp := make([]int32, len(lbl))
	for i := range comp {
		comp[i] = -1
	}
	n := int32(0)
	queue := make([]int32, 0, 1024)
	for i := range lbl {
		if lbl[i] < 0 || comp[i] >= 0 {
			continue
		}
		comp[i] = n
		queue = append(queue[:0], int32(i))
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			cx := c % w
			for _, j := range [4]int{c - 1, c + 1, c - w, c + w} {
				if j < 0 || j >= len(lbl) || (j == c-1 && cx == 0) || (j == c+1 && cx == w-1) {
					continue
				}
				if comp[j] < 0 && lbl[j] == lbl[i] {
					comp[j] = n
					queue = append(queue, int32(j))
				}
			}
		}
		n++
	}
	return comp, int(n)
}

// mergeSmall merges regions below partMinShare into the neighbour they share the
// longest border with, then keeps merging the smallest until at most maxParts remain.
func mergeSmall(comp []int32, n, w, h, total int) ([]int32, int) {
	minArea := int(math.Ceil(partMinShare * float64(total)))
	for range 256 {
		area := make([]int, n)
		for _, c := range comp {
			if c >= 0 {
				area[c]++
			}
		}
		border := map[[2]int32]int{}
		for y := range h {
			for x := range w {
				i := y*w + x
				a := comp[i]
				if a < 0 {
					continue
				}
				if x+1 < w {
					if b := comp[i+1]; b >= 0 && b != a {
						border[[2]int32{min(a, b), max(a, b)}]++
					}
				}
				if y+1 < h {
					if b := comp[i+w]; b >= 0 && b != a {
						border[[2]int32{min(a, b), max(a, b)}]++
					}
				}
			}
		}
		live := 0
		smallest := int32(-1)
		for c := range n {
			if area[c] == 0 {
				continue
			}
			live++
			if smallest < 0 || area[c] < area[smallest] {
				smallest = int32(c)
			}
		}
		if smallest < 0 || (area[smallest] >= minArea && live <= maxParts) || live <= 1 {
			break
		}
		// Neighbour with the longest shared border (ties: larger, then lower index).
		keys := make([][2]int32, 0, len(border))
		for k := range border {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [2]int32) int {
			if a[0] != b[0] {
				return int(a[0] - b[0])
			}
			return int(a[1] - b[1])
		})
		merged := make([]int32, n) // region → region it joins this pass (−1: stays)
		for i := range merged {
			merged[i] = -1
		}
		targetOf := func(c int32) int32 {
			target, best := int32(-1), 0
			for _, k := range keys {
				var other int32
				switch c {
				case k[0]:
					other = k[1]
				case k[1]:
					other = k[0]
				default:
					continue
				}
				if merged[other] >= 0 {
					continue
				}
				if v := border[k]; v > best || v == best && target >= 0 && area[other] > area[target] {
					target, best = other, v
				}
			}
			if target < 0 {
				// An isolated island (no shared border): merge into the largest region.
				for o := range n {
					if area[o] > 0 && int32(o) != c && merged[o] < 0 && (target < 0 || area[o] > area[target]) {
						target = int32(o)
					}
				}
			}
			return target
		}
		// Every region below the minimum joins a neighbour in one pass, smallest first
		// (noisy photos have thousands); above it, one region at a time until at most
		// maxParts remain.
		var victims []int32
		if area[smallest] < minArea {
			for c := range n {
				if area[c] > 0 && area[c] < minArea {
					victims = append(victims, int32(c))
				}
			}
			slices.SortStableFunc(victims, func(a, b int32) int { return area[a] - area[b] })
		} else {
			victims = []int32{smallest}
		}
		changed := false
		for _, c := range victims {
			if live <= 1 {
				break
			}
			if t := targetOf(c); t >= 0 {
				merged[c] = t
				live--
				changed = true
			}
		}
		if !changed {
			break
		}
		for i, c := range comp {
			if c < 0 {
				continue
			}
			for merged[c] >= 0 {
				c = merged[c]
			}
			comp[i] = c
		}
	}
	return comp, n
}

// relabelBySize renumbers live regions by decreasing area and gathers their stats.
func relabelBySize(comp []int32, n, w, h int, seg *Segmentation) ([]int8, []PartInfo) {
	area := make([]int, n)
	for _, c := range comp {
		if c >= 0 {
			area[c]++
		}
	}
	order := make([]int, 0, n)
	for c := range n {
		if area[c] > 0 {
			order = append(order, c)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return area[b] - area[a] })
	remap := make([]int8, n)
	for i, c := range order {
		remap[c] = int8(i)
	}
	labels := make([]int8, len(comp))
	for i, c := range comp {
		labels[i] = -1
		if c >= 0 {
			labels[i] = remap[c]
		}
	}
	return labels, PartStats(labels, len(order), w, h, seg)
}

// PartStats measures area, colour, bounds and centroid of each label.
func PartStats(labels []int8, n, w, h int, seg *Segmentation) []PartInfo {
	parts := make([]PartInfo, n)
	for i := range parts {
		parts[i].MinX, parts[i].MinY = w, h
		parts[i].MaxX, parts[i].MaxY = -1, -1
	}
	for i, l := range labels {
		if l < 0 {
			continue
		}
		p := &parts[l]
		x, y := i%w, i/w
		p.Area++
		c := seg.Srgb[i]
		p.Sum[0] += float64(c[0])
		p.Sum[1] += float64(c[1])
		p.Sum[2] += float64(c[2])
		p.MinX, p.MaxX = min(p.MinX, x), max(p.MaxX, x)
		p.MinY, p.MaxY = min(p.MinY, y), max(p.MaxY, y)
		p.cx += float64(x)
		p.cy += float64(y)
	}
	for i := range parts {
		if parts[i].Area > 0 {
			parts[i].cx /= float64(parts[i].Area)
			parts[i].cy /= float64(parts[i].Area)
		}
	}
	return parts
}

// ToBands reshapes parts of a surface of revolution into horizontal bands (one part
// per run of rows), because each lathe part is its own closed solid between two
// heights. Runs thinner than partMinShare of the height join their neighbour.
func (pm *PartMap) ToBands(seg *Segmentation) {
	w, h := pm.W, pm.H
	rowLabel := make([]int, h)
	top, bottom := -1, -1
	for y := range h {
		counts := make([]int, len(pm.Parts)+1)
		best, bl := 0, -1
		for x := range w {
			if l := pm.Labels[y*w+x]; l >= 0 {
				counts[l]++
				if counts[l] > best {
					best, bl = counts[l], int(l)
				}
			}
		}
		rowLabel[y] = bl
		if bl >= 0 {
			if top < 0 {
				top = y
			}
			bottom = y
		}
	}
	if top < 0 {
		return
	}
	// Rows inside the object without object pixels (should not happen) inherit above.
	for y := top; y <= bottom; y++ {
		if rowLabel[y] < 0 {
			rowLabel[y] = rowLabel[max(top, y-1)]
		}
	}
	type run struct{ y0, y1, label int }
	var runs []run
	for y := top; y <= bottom; y++ {
		if len(runs) > 0 && runs[len(runs)-1].label == rowLabel[y] {
			runs[len(runs)-1].y1 = y
			continue
		}
		runs = append(runs, run{y, y, rowLabel[y]})
	}
	minRows := max(2, int(math.Ceil(partMinShare*float64(bottom-top+1))))
	for {
		si := -1
		for i, r := range runs {
			if r.y1-r.y0+1 < minRows && (si < 0 || r.y1-r.y0 < runs[si].y1-runs[si].y0) {
				si = i
			}
		}
		if si < 0 || len(runs) == 1 {
			break
		}
		// Merge into the taller neighbour.
		ni := si - 1
		if ni < 0 || si+1 < len(runs) && runs[si+1].y1-runs[si+1].y0 > runs[ni].y1-runs[ni].y0 {
			ni = si + 1
		}
		if ni < si {
			runs[ni].y1 = runs[si].y1
		} else {
			runs[ni].y0 = runs[si].y0
		}
		runs = slices.Delete(runs, si, si+1)
		// Join equal neighbours created by the merge.
		for i := 0; i+1 < len(runs); {
			if runs[i].label == runs[i+1].label {
				runs[i].y1 = runs[i+1].y1
				runs = slices.Delete(runs, i+1, i+2)
				continue
			}
			i++
		}
	}
	for len(runs) > maxParts {
		// Join the two adjacent runs with the smallest combined height.
		bi := 0
		for i := 0; i+1 < len(runs); i++ {
			if runs[i].y1-runs[i].y0+runs[i+1].y1-runs[i+1].y0 < runs[bi].y1-runs[bi].y0+runs[bi+1].y1-runs[bi+1].y0 {
				bi = i
			}
		}
		runs[bi].y1 = runs[bi+1].y1
		runs = slices.Delete(runs, bi+1, bi+2)
	}
	comp := make([]int32, w*h)
	for i := range comp {
		comp[i] = -1
	}
	for ri, r := range runs {
		for y := r.y0; y <= r.y1; y++ {
			for x := range w {
				if pm.Labels[y*w+x] >= 0 {
					comp[y*w+x] = int32(ri)
				}
			}
		}
	}
	pm.Labels, pm.Parts = relabelBySize(comp, len(runs), w, h, seg)
}

// NameParts gives parts names a merchant recognises: the largest is the Body; a
// smaller part crowning it is a Cap, one under it a Base, one beside it a Handle;
// anything else is named by colour ("Red Part").
func (pm *PartMap) NameParts() {
	if len(pm.Parts) == 0 {
		return
	}
	body := pm.Parts[0]
	objMinX, objMinY, objMaxX, objMaxY := pm.W, pm.H, -1, -1
	for _, p := range pm.Parts {
		objMinX, objMinY = min(objMinX, p.MinX), min(objMinY, p.MinY)
		objMaxX, objMaxY = max(objMaxX, p.MaxX), max(objMaxY, p.MaxY)
	}
	objH := float64(max(1, objMaxY-objMinY+1))
	used := map[string]int{}
	for i := range pm.Parts {
		p := &pm.Parts[i]
		name := ""
		switch {
		case i == 0:
			name = "Body"
		case float64(p.MaxY-objMinY) <= 0.4*objH && p.cy < body.cy && p.MinY-objMinY <= int(0.05*objH)+1:
			name = "Cap"
		case float64(objMaxY-p.MinY) <= 0.4*objH && p.cy > body.cy && objMaxY-p.MaxY <= int(0.05*objH)+1:
			name = "Base"
		case p.Area*2 < body.Area && (p.cx < float64(body.MinX) || p.cx > float64(body.MaxX)):
			name = "Handle"
		default:
			name = colorName(p.MeanRGB()) + " Part"
		}
		used[name]++
		if used[name] > 1 {
			name = fmt.Sprintf("%s %d", name, used[name])
		}
		p.Name = name
	}
}
