package samples

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"slices"
)

// Reference image size and supersampling: the render is drawn at twice the size and
// averaged down, which is all the anti-aliasing a reference image needs.
const (
	imageW   = 640
	imageH   = 480
	ss       = 2
	subpixel = 16 // fixed-point steps per pixel for vertex positions
	depthMax = 1 << 24
	linMax   = 65535 // linear colour channels are stored as 0..linMax
)

// view is where the reference camera looks from: azimuth from +Z (the model's front)
// towards +X and elevation above the horizon, in degrees.
type view struct{ azimuth, elevation float64 }

// screenVert is a vertex after the float stage: fixed-point screen position, inverse
// depth and lit linear colour. Everything after this is integer arithmetic.
type screenVert struct {
	x, y int64 // 1/subpixel of a supersampled pixel
	d    int64 // inverse depth scaled to 0..depthMax, larger is nearer
	c    [3]int64
}

type screenTri struct {
	v     [3]screenVert
	alpha int64 // 0..256
	id    int   // piece number, for outlines between parts
	key   int64 // blended triangles are drawn in increasing key: far to near
}

// frame is the supersampled framebuffer in linear colour.
type frame struct {
	w, h  int
	col   [][3]int64
	depth []int64
	id    []int
}

// renderPNG draws the model from v with Lambert shading on a light backdrop with a soft
// ground shadow and thin part outlines, and returns it as PNG.
func renderPNG(m *model, v view) ([]byte, error) {
	img := render(m, v)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode %s reference image: %w", m.name, err)
	}
	return buf.Bytes(), nil
}

// worldTri is one triangle in world space with its material.
type worldTri struct {
	p, n [3]vec3
	mat  int
	id   int
}

func worldTriangles(m *model) []worldTri {
	var out []worldTri
	id := 0
	for _, p := range m.parts {
		t := m.translation(p)
		for _, pc := range p.pieces {
			id++
			ms := pc.mesh
			for i := 0; i+2 < len(ms.idx); i += 3 {
				var wt worldTri
				for k := range 3 {
					wt.p[k] = ms.pos[ms.idx[i+k]].add(t)
					wt.n[k] = ms.nrm[ms.idx[i+k]]
				}
				wt.mat, wt.id = pc.mat, id
				out = append(out, wt)
			}
		}
	}
	return out
}

// camera is an orthonormal basis at eye; forward points into the scene.
type camera struct {
	eye, right, up, forward vec3
	scale, cx, cy           float64 // projected (x/z, y/z) → supersampled pixels
	invNear, invFar         float64
}

func (c *camera) toView(p vec3) vec3 {
	d := p.sub(c.eye)
	return vec3{d.dot(c.right), d.dot(c.up), d.dot(c.forward)}
}

// newCamera frames all points (the model and its shadow) to fill most of the image.
func newCamera(pts []vec3, v view) *camera {
	lo := vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
		}
	}
	centre := lo.add(hi).scale(0.5)
	radius := hi.sub(lo).length() / 2
	az, el := v.azimuth*math.Pi/180, v.elevation*math.Pi/180
	dir := vec3{math.Cos(el) * math.Sin(az), math.Sin(el), math.Cos(el) * math.Cos(az)}
	c := &camera{eye: centre.add(dir.scale(3.2 * radius))}
	c.forward = dir.scale(-1)
	c.right = c.forward.cross(vec3{0, 1, 0}).unit()
	c.up = c.right.cross(c.forward)
	pxLo, pxHi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	zLo, zHi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		q := c.toView(p)
		x, y := q[0]/q[2], q[1]/q[2]
		pxLo = [2]float64{min(pxLo[0], x), min(pxLo[1], y)}
		pxHi = [2]float64{max(pxHi[0], x), max(pxHi[1], y)}
		zLo, zHi = min(zLo, q[2]), max(zHi, q[2])
	}
	w, h := float64(imageW*ss), float64(imageH*ss)
	c.scale = min(0.86*w/(pxHi[0]-pxLo[0]), 0.82*h/(pxHi[1]-pxLo[1]))
	c.cx = w/2 - c.scale*(pxLo[0]+pxHi[0])/2
	c.cy = h/2 + c.scale*(pxLo[1]+pxHi[1])/2
	c.invNear, c.invFar = 1/(zLo*0.9), 1/(zHi*1.1)
	return c
}

// lighting is set relative to the camera: a key light from the upper left, a weaker
// fill from the right and a sky term, the usual studio set-up that shows form without
// drama.
type lighting struct{ key, fill vec3 }

func newLighting(c *camera) lighting {
	toCam := c.forward.scale(-1)
	return lighting{
		key:  c.right.scale(-0.55).add(c.up.scale(0.75)).add(toCam.scale(0.55)).unit(),
		fill: c.right.scale(0.8).add(c.up.scale(0.1)).add(toCam.scale(0.45)).unit(),
	}
}

func (l lighting) shade(n vec3, base [3]float64) [3]float64 {
	i := 0.30 + 0.12*n[1] + 0.78*math.Max(0, n.dot(l.key)) + 0.22*math.Max(0, n.dot(l.fill))
	return [3]float64{base[0] * i, base[1] * i, base[2] * i}
}

func quantLinear(v float64) int64 {
	return int64(math.Round(math.Max(0, math.Min(1, v)) * linMax))
}

// shadowDir is the direction light travels for the ground shadow: mostly down, a
// little towards the back, so the shadow reads as contact under the model.
var shadowDir = vec3{0.15, -1, -0.25}

// render rasterises the model into an RGBA image.
func render(m *model, v view) *image.RGBA {
	tris := worldTriangles(m)
	pts := make([]vec3, 0, 6*len(tris))
	shadowOf := func(p vec3) vec3 {
		t := p[1] / -shadowDir[1]
		return vec3{p[0] + shadowDir[0]*t, 0, p[2] + shadowDir[2]*t}
	}
	for _, t := range tris {
		for _, p := range t.p {
			pts = append(pts, p, shadowOf(p))
		}
	}
	cam := newCamera(pts, v)
	light := newLighting(cam)
	lin := make([][3]float64, len(m.materials))
	for i, mt := range m.materials {
		lin[i] = [3]float64{srgbToLinear(mt.color[0]), srgbToLinear(mt.color[1]), srgbToLinear(mt.color[2])}
	}
	project := func(p, n vec3, base [3]float64) screenVert {
		q := cam.toView(p)
		sv := screenVert{
			x: int64(math.Round((cam.cx + cam.scale*q[0]/q[2]) * subpixel)),
			y: int64(math.Round((cam.cy - cam.scale*q[1]/q[2]) * subpixel)),
			d: int64(math.Round((1/q[2] - cam.invFar) / (cam.invNear - cam.invFar) * depthMax)),
		}
		c := light.shade(n, base)
		sv.c = [3]int64{quantLinear(c[0]), quantLinear(c[1]), quantLinear(c[2])}
		return sv
	}

	f := newFrame(imageW*ss, imageH*ss)
	f.backdrop()
	// Ground shadow: the opaque triangles flattened onto y = 0, blurred, darkening the
	// backdrop. Drawn first; the model covers it where they overlap.
	mask := make([]int64, f.w*f.h)
	for _, t := range tris {
		if m.materials[t.mat].alpha < 1 {
			continue
		}
		var st screenTri
		for k := range 3 {
			st.v[k] = project(shadowOf(t.p[k]), vec3{}, [3]float64{})
		}
		f.coverage(st, mask)
	}
	f.applyShadow(mask, 6*ss)

	var blended []screenTri
	for _, t := range tris {
		mt := m.materials[t.mat]
		var st screenTri
		for k := range 3 {
			st.v[k] = project(t.p[k], t.n[k], lin[t.mat])
		}
		st.id = t.id
		st.alpha = int64(math.Round(mt.alpha * 256))
		if mt.alpha < 1 {
			st.key = -(st.v[0].d + st.v[1].d + st.v[2].d)
			blended = append(blended, st)
			continue
		}
		f.draw(st, true)
	}
	f.outline()
	// Far to near, so each translucent surface blends over what is behind it; the
	// stable sort keeps equal keys in model order, which keeps the output stable.
	slices.SortStableFunc(blended, func(a, b screenTri) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	for _, st := range blended {
		f.draw(st, false)
	}
	return f.downsample()
}

func newFrame(w, h int) *frame {
	return &frame{w: w, h: h, col: make([][3]int64, w*h), depth: make([]int64, w*h), id: make([]int, w*h)}
}

// backdrop fills a soft vertical gradient, light enough for any model colour.
func (f *frame) backdrop() {
	top, bottom := hex("#f6f7f9"), hex("#dfe3e8")
	for y := range f.h {
		t := float64(y) / float64(f.h-1)
		var c [3]int64
		for k := range 3 {
			c[k] = quantLinear(srgbToLinear(top[k]*(1-t) + bottom[k]*t))
		}
		for x := range f.w {
			f.col[y*f.w+x] = c
		}
	}
}

// edge is the fixed-point edge function: twice the signed area of (a, b, p).
func edge(ax, ay, bx, by, px, py int64) int64 {
	return (bx-ax)*(py-ay) - (by-ay)*(px-ax)
}

// topLeft reports whether edge a→b is a top or left edge of a triangle with positive
// area in y-down screen space; pixels exactly on other edges belong to the neighbour,
// so shared edges are drawn once (which matters for blended surfaces).
func topLeft(a, b screenVert) bool {
	return (a.y == b.y && b.x > a.x) || b.y < a.y
}

// raster calls fn for every supersampled pixel centre inside the triangle with the
// barycentric weights of t.v[0], t.v[1], t.v[2] and their sum. Triangles facing away are skipped unless
// bothSides is set.
func (f *frame) raster(t screenTri, bothSides bool, fn func(i int, w0, w1, w2, area int64)) {
	v0, v1, v2 := t.v[0], t.v[1], t.v[2]
	area := edge(v0.x, v0.y, v1.x, v1.y, v2.x, v2.y)
	if area == 0 {
		return
	}
	// Front faces are counter-clockwise in the scene, clockwise once y points down.
	// Walking them the other way round makes every inside weight non-negative.
	swapped := false
	if area > 0 {
		if !bothSides {
			return
		}
	} else {
		v1, v2 = v2, v1
		area = -area
		swapped = true
	}
	minX := max(0, min(v0.x, v1.x, v2.x)/subpixel-1)
	maxX := min(int64(f.w-1), max(v0.x, v1.x, v2.x)/subpixel+1)
	minY := max(0, min(v0.y, v1.y, v2.y)/subpixel-1)
	maxY := min(int64(f.h-1), max(v0.y, v1.y, v2.y)/subpixel+1)
	bias := func(a, b screenVert) int64 {
		if topLeft(a, b) {
			return 0
		}
		return -1
	}
	b0, b1, b2 := bias(v1, v2), bias(v2, v0), bias(v0, v1)
	for py := minY; py <= maxY; py++ {
		cy := py*subpixel + subpixel/2
		for px := minX; px <= maxX; px++ {
			cx := px*subpixel + subpixel/2
			w0 := edge(v1.x, v1.y, v2.x, v2.y, cx, cy)
			w1 := edge(v2.x, v2.y, v0.x, v0.y, cx, cy)
			w2 := edge(v0.x, v0.y, v1.x, v1.y, cx, cy)
			if w0+b0 < 0 || w1+b1 < 0 || w2+b2 < 0 {
				continue
			}
			if swapped {
				w1, w2 = w2, w1 // weights back in the order of t.v
			}
			fn(int(py)*f.w+int(px), w0, w1, w2, area)
		}
	}
}

// coverage marks the pixels a triangle covers in mask (either winding).
func (f *frame) coverage(t screenTri, mask []int64) {
	f.raster(t, true, func(i int, _, _, _, _ int64) { mask[i] = 1 })
}

// draw shades the triangle's pixels: opaque ones test and write depth, blended ones
// test depth only and mix with what is there.
func (f *frame) draw(t screenTri, opaque bool) {
	v := t.v
	f.raster(t, false, func(i int, w0, w1, w2, area int64) {
		a, b, c := v[0], v[1], v[2]
		d := (w0*a.d + w1*b.d + w2*c.d) / area
		if d <= f.depth[i] {
			return
		}
		var col [3]int64
		for k := range 3 {
			col[k] = (w0*a.c[k] + w1*b.c[k] + w2*c.c[k]) / area
		}
		if opaque {
			f.depth[i] = d
			f.id[i] = t.id
			f.col[i] = col
			return
		}
		for k := range 3 {
			f.col[i][k] = (f.col[i][k]*(256-t.alpha) + col[k]*t.alpha) / 256
		}
	})
}

// applyShadow blurs the coverage mask (three box passes approximate a Gaussian) and
// darkens the backdrop by it.
func (f *frame) applyShadow(mask []int64, radius int) {
	const scale = 1 << 12
	for i := range mask {
		mask[i] *= scale
	}
	tmp := make([]int64, len(mask))
	for range 3 {
		boxBlur(mask, tmp, f.w, f.h, radius, 1, f.w)
		boxBlur(tmp, mask, f.h, f.w, radius, f.w, 1)
	}
	for i, s := range mask {
		k := scale - s*45/100 // up to 45% darker under the model
		for c := range 3 {
			f.col[i][c] = f.col[i][c] * k / scale
		}
	}
}

// boxBlur averages src into dst along lines: n lines of length l, elements step apart
// within a line and lines stride apart.
func boxBlur(src, dst []int64, l, n, r, step, stride int) {
	// Lines are rows when step is 1 and columns otherwise.
	for line := range n {
		base := line * stride
		var sum int64
		for k := -r; k <= r; k++ {
			sum += src[base+min(max(k, 0), l-1)*step]
		}
		for k := range l {
			dst[base+k*step] = sum / int64(2*r+1)
			sum += src[base+min(k+r+1, l-1)*step] - src[base+max(k-r, 0)*step]
		}
	}
}

// outline darkens pixels on the near side of a boundary between parts or between the
// model and the backdrop, the thin line that makes a flat-lit render readable.
func (f *frame) outline() {
	edgePx := make([]bool, len(f.id))
	for y := range f.h {
		for x := range f.w {
			i := y*f.w + x
			if f.id[i] == 0 {
				continue
			}
			for _, o := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := x+o[0]*2, y+o[1]*2
				if nx < 0 || ny < 0 || nx >= f.w || ny >= f.h {
					continue
				}
				j := ny*f.w + nx
				if f.id[j] != f.id[i] && f.depth[j] < f.depth[i] {
					edgePx[i] = true
					break
				}
			}
		}
	}
	for i, e := range edgePx {
		if e {
			for c := range 3 {
				f.col[i][c] = f.col[i][c] * 45 / 100
			}
		}
	}
}

// downsample averages ss×ss blocks and converts linear colour to sRGB bytes.
func (f *frame) downsample() *image.RGBA {
	lut := srgbLUT()
	img := image.NewRGBA(image.Rect(0, 0, f.w/ss, f.h/ss))
	for y := range f.h / ss {
		for x := range f.w / ss {
			var acc [3]int64
			for dy := range ss {
				for dx := range ss {
					c := f.col[(y*ss+dy)*f.w+x*ss+dx]
					acc[0], acc[1], acc[2] = acc[0]+c[0], acc[1]+c[1], acc[2]+c[2]
				}
			}
			o := img.Pix[y*img.Stride+4*x:]
			for k := range 3 {
				o[k] = lut[min(max(acc[k]/(ss*ss), 0), linMax)]
			}
			o[3] = 255
		}
	}
	return img
}

// srgbLUT maps a linear channel 0..linMax to its sRGB byte.
func srgbLUT() []uint8 {
	lut := make([]uint8, linMax+1)
	for i := range lut {
		c := float64(i) / linMax
		var s float64
		if c <= 0.0031308 {
			s = 12.92 * c
		} else {
			s = 1.055*math.Pow(c, 1/2.4) - 0.055
		}
		lut[i] = uint8(math.Round(s * 255))
	}
	return lut
}
