package reconstruct

import (
	"math"
	"sort"
	"testing"
)

// Shape benchmark helpers shared by the real-product set and multi-photo work: a
// studio-photo renderer for any ground-truth mesh with a known camera, the shape score
// of issue 34 (both meshes scaled to height 1 with the base centre at the origin, the
// photo's camera on +Z), and the two naive reconstructors every result is printed
// beside: a thin card and a prism as deep as it is wide, both cut from the photo's
// silhouette.

// studioView is one product photo: the camera's azimuth about +Y (degrees, measured
// right-handed from the model's front, so 90 looks at its +X side), elevation above
// the ground (degrees), 35 mm-equivalent focal length, and backdrop.
type studioView struct {
	Azimuth, Elevation, F35 float64
	Dark                    bool
	// Fill is the share of the frame height the bounding sphere spans (0: 0.7).
	Fill float64
}

// studioShot is a rendered photo's scene: the truth as the photo's camera sees it
// (turned so that camera is on +Z, aligned: height 1, base centre at the origin) and
// the camera, exact. For several photos of one product (multi-view work), make one
// shot per view from the same truth; score the result against the shot whose
// Azimuth is 0 (the front photo's frame, the output frame of a reconstruction).
// Render with shot.scene.photo(rng); shot.scene.cam is the exact camera.
type studioShot struct {
	scene *qscene
	truth []qtri
}

// newStudioShot places truth (benchmark frame) in front of a studio backdrop for view
// at about w×h pixels (landscape when the product is wider than tall).
func newStudioShot(name string, truth []qtri, v studioView, w, h int) *studioShot {
	tris := alignTruth(rotateY(truth, -v.Azimuth*math.Pi/180))
	lo, hi := triBounds(tris)
	if hi[0]-lo[0] > 1.05*(hi[1]-lo[1]) && w < h {
		w, h = h, w
	}
	radius := 0.0
	for _, t := range tris {
		for _, p := range t.p {
			radius = max(radius, math.Sqrt(vdot(vsub(p, v3{0, 0.5, 0}), vsub(p, v3{0, 0.5, 0}))))
		}
	}
	fill := v.Fill
	if fill == 0 {
		fill = 0.7
	}
	s := &qscene{class: "real", name: name, tris: tris, elevDeg: v.Elevation, f35: v.F35,
		gradient: !v.Dark, dark: v.Dark, footprint: footprintField(tris)}
	s.cam = newQCamera(w, h, v.Elevation*math.Pi/180, v.F35, radius, fill)
	// Frame like a product photographer: move the camera along its axis until the
	// product spans fill of the frame's tighter dimension (a wide sofa would
	// otherwise sit small in the middle of a frame sized by its bounding sphere).
	// Perspective makes this a fixed-point iteration: near parts of a deep product (a
	// toy car seen nose on) grow faster than the rest as the camera approaches, so it
	// runs until the framing has settled (three fixed rounds left the car's nose and
	// wheels cut off by the frame, a photo no merchant would upload).
	for range 40 {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, t := range tris {
			for _, p := range t.p {
				x, y, _ := s.cam.project(p)
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
		k := max((x1-x0)/float64(w), (y1-y0)/float64(h)) / fill
		target := v3{0, 0.5, 0}
		s.cam.pos = vadd(target, vmul(vsub(s.cam.pos, target), k))
		if math.Abs(k-1) < 0.002 {
			break
		}
	}
	return &studioShot{scene: s, truth: tris}
}

func triBounds(tris []qtri) (lo, hi v3) {
	lo = v3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = v3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, t := range tris {
		for _, p := range t.p {
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
	}
	return lo, hi
}

// footprintField returns the distance (units, 0 inside) from a ground point to what
// rests on or near the ground (the lowest 6 % of the height), for the contact shadow:
// legs cast small pools, a flat base a band along its edge.
func footprintField(tris []qtri) func(x, z float64) float64 {
	lo, hi := triBounds(tris)
	const n = 160
	pad := 0.3
	x0, z0 := lo[0]-pad, lo[2]-pad
	cell := max(hi[0]-lo[0], hi[2]-lo[2], 0.05) + 2*pad
	cell /= n
	dist := make([]float64, n*n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	yCut := lo[1] + 0.06*(hi[1]-lo[1])
	for _, t := range tris {
		if min(t.p[0][1], t.p[1][1], t.p[2][1]) > yCut {
			continue
		}
		// Mark the cells under the triangle's low vertices and centroid.
		pts := []v3{t.p[0], t.p[1], t.p[2], vmul(vadd(vadd(t.p[0], t.p[1]), t.p[2]), 1.0/3)}
		for _, p := range pts {
			if p[1] > yCut {
				continue
			}
			i, j := int((p[0]-x0)/cell), int((p[2]-z0)/cell)
			if i >= 0 && i < n && j >= 0 && j < n {
				dist[j*n+i] = 0
			}
		}
	}
	// Two-pass chamfer distance transform (cells → units).
	d1, d2 := cell, cell*math.Sqrt2
	for j := range n {
		for i := range n {
			k := j*n + i
			if i > 0 {
				dist[k] = min(dist[k], dist[k-1]+d1)
			}
			if j > 0 {
				dist[k] = min(dist[k], dist[k-n]+d1)
				if i > 0 {
					dist[k] = min(dist[k], dist[k-n-1]+d2)
				}
				if i < n-1 {
					dist[k] = min(dist[k], dist[k-n+1]+d2)
				}
			}
		}
	}
	for j := n - 1; j >= 0; j-- {
		for i := n - 1; i >= 0; i-- {
			k := j*n + i
			if i < n-1 {
				dist[k] = min(dist[k], dist[k+1]+d1)
			}
			if j < n-1 {
				dist[k] = min(dist[k], dist[k+n]+d1)
				if i < n-1 {
					dist[k] = min(dist[k], dist[k+n+1]+d2)
				}
				if i > 0 {
					dist[k] = min(dist[k], dist[k+n-1]+d2)
				}
			}
		}
	}
	return func(x, z float64) float64 {
		i, j := int((x-x0)/cell), int((z-z0)/cell)
		if i < 0 || i >= n || j < 0 || j >= n {
			return 1
		}
		return dist[j*n+i]
	}
}

// shapeScore is issue 34's shape score of a model against the truth.
type shapeScore struct {
	F5      float64 // F-score at 5 % of height
	Chamfer float64 // mean symmetric closest-point distance, % of height
	// IoU of orthographic silhouettes from the front (+Z), the side (+X) and the top.
	IoUFront, IoUSide, IoUTop float64
	// DepthRatio is the model's depth/width over the truth's (1 is right, 0.2 a
	// model a fifth as deep as it should be).
	DepthRatio float64
}

// scoreShape compares two meshes after scaling each to height 1 with its base centre
// (bounding-box centre in x and z, lowest y) at the origin; the photo's camera is on
// +Z for both. It is the one scorer of the benchmark: reconstructions and the naive
// baselines all go through it.
func scoreShape(truth, model []qtri) shapeScore {
	truth, model = alignTruth(truth), alignTruth(model)
	var s shapeScore
	s.F5, s.Chamfer = surfaceScore(truth, model)
	lt, ht := triBounds(truth)
	lm, hm := triBounds(model)
	ext := 1.1 * max(ht[0]-lt[0], hm[0]-lm[0], ht[2]-lt[2], hm[2]-lm[2], 1)
	s.IoUFront = iou(orthoMask(truth, 2, ext), orthoMask(model, 2, ext))
	s.IoUSide = iou(orthoMask(truth, 0, ext), orthoMask(model, 0, ext))
	s.IoUTop = iou(orthoMask(truth, 1, ext), orthoMask(model, 1, ext))
	if tw, mw := ht[0]-lt[0], hm[0]-lm[0]; tw > 0 && mw > 0 && ht[2] > lt[2] {
		s.DepthRatio = ((hm[2] - lm[2]) / mw) / ((ht[2] - lt[2]) / tw)
	}
	return s
}

// scoreGLB scores a reconstruction's GLB against the truth (see scoreShape).
func scoreGLB(t testing.TB, truth []qtri, glb []byte) shapeScore {
	t.Helper()
	return scoreShape(truth, alignedModel(t, glb))
}

// orthoMask is the silhouette of an aligned mesh seen orthographically along axis
// (2: from the front, 0: from the +X side, 1: from above) over a square of side ext
// centred on the axis through the origin at mid-height.
func orthoMask(tris []qtri, axis int, ext float64) []bool {
	const res = 200
	const far = 1000.0
	c := v3{0, 0.5, 0}
	var fwd, right v3
	switch axis {
	case 0:
		fwd, right = v3{-1, 0, 0}, v3{0, 0, -1}
	case 1:
		fwd, right, c = v3{0, -1, 0}, v3{1, 0, 0}, v3{0, 0, 0}
	default:
		fwd, right = v3{0, 0, -1}, v3{1, 0, 0}
	}
	cam := qcamera{pos: vsub(c, vmul(fwd, far)), right: right, up: crossV(right, fwd), fwd: fwd,
		f: float64(res) / ext * far, cx: res / 2, cy: res / 2, w: res, h: res}
	return silhouette(tris, cam)
}

// silhouetteSlab is a naive reconstruction from the photo's silhouette alone: the
// mask, back-projected through the photo's camera onto the vertical plane through the
// base centre, extruded symmetrically to depth(width) in front of and behind it.
func silhouetteSlab(mask []bool, cam qcamera, depth func(width float64) float64) []qtri {
	// Work on a grid of about 120 rows: enough for the F-score at 5 % of height.
	step := max(1, cam.h/120)
	gw, gh := (cam.w+step-1)/step, (cam.h+step-1)/step
	in := make([]bool, gw*gh)
	for y := range cam.h {
		for x := range cam.w {
			if mask[y*cam.w+x] {
				in[(y/step)*gw+x/step] = true
			}
		}
	}
	// Ground-plane point of each grid corner on the plane z = 0.
	corner := func(gx, gy int) v3 {
		d := cam.ray(float64(gx*step), float64(gy*step))
		t := -cam.pos[2] / d[2]
		p := vadd(cam.pos, vmul(d, t))
		return v3{p[0], p[1], 0}
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for gy := range gh {
		for gx := range gw {
			if in[gy*gw+gx] {
				minX, maxX = min(minX, corner(gx, gy)[0]), max(maxX, corner(gx+1, gy)[0])
			}
		}
	}
	if minX > maxX {
		return nil
	}
	half := depth(maxX-minX) / 2
	at := func(gx, gy int, z float64) v3 { p := corner(gx, gy); p[2] = z; return p }
	var out []qtri
	quad := func(a, b, c, d v3) {
		out = append(out, qtri{p: [3]v3{a, b, c}}, qtri{p: [3]v3{a, c, d}})
	}
	inside := func(gx, gy int) bool { return gx >= 0 && gy >= 0 && gx < gw && gy < gh && in[gy*gw+gx] }
	for gy := range gh {
		for gx := range gw {
			if !in[gy*gw+gx] {
				continue
			}
			quad(at(gx, gy, half), at(gx, gy+1, half), at(gx+1, gy+1, half), at(gx+1, gy, half))
			quad(at(gx, gy, -half), at(gx+1, gy, -half), at(gx+1, gy+1, -half), at(gx, gy+1, -half))
			if !inside(gx-1, gy) {
				quad(at(gx, gy, -half), at(gx, gy+1, -half), at(gx, gy+1, half), at(gx, gy, half))
			}
			if !inside(gx+1, gy) {
				quad(at(gx+1, gy, half), at(gx+1, gy+1, half), at(gx+1, gy+1, -half), at(gx+1, gy, -half))
			}
			if !inside(gx, gy-1) {
				quad(at(gx, gy, -half), at(gx, gy, half), at(gx+1, gy, half), at(gx+1, gy, -half))
			}
			if !inside(gx, gy+1) {
				quad(at(gx, gy+1, half), at(gx, gy+1, -half), at(gx+1, gy+1, -half), at(gx+1, gy+1, half))
			}
		}
	}
	return out
}

// naiveBaselines scores the thin card (2 % of the height deep) and the prism (as deep
// as it is wide) cut from the photo's true silhouette.
func naiveBaselines(sh *studioShot) (card, prism shapeScore) {
	mask := silhouette(sh.truth, sh.scene.cam)
	card = scoreShape(sh.truth, silhouetteSlab(mask, sh.scene.cam, func(float64) float64 { return 0.02 }))
	prism = scoreShape(sh.truth, silhouetteSlab(mask, sh.scene.cam, func(w float64) float64 { return w }))
	return card, prism
}

// pearson is the linear correlation of x and y (0 when either is constant).
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// spearman is the rank correlation (ties get their mean rank).
func spearman(x, y []float64) float64 { return pearson(ranks(x), ranks(y)) }

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
