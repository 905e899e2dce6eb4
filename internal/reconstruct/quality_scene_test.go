package reconstruct

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/photo3d/photo3d/internal/reconstruct/shape"
)

// This file is the quality benchmark's scene generator: product-like objects with an
// exact triangle-mesh ground truth, photographed by a pinhole camera a little above
// them (elevation 0–25°, phone focal lengths) in front of a plain or gradient studio
// backdrop with a soft contact shadow, rendered by a small z-buffered rasteriser and
// saved as JPEG like a phone photo. Units: the object is 1 unit tall, +Y up, origin at
// the centre of its base, the camera on the +Z side (so the model's front is +Z, the
// reconstructor's convention).

type v3 = [3]float64

func vsub(a, b v3) v3         { return v3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func vadd(a, b v3) v3         { return v3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func vmul(a v3, s float64) v3 { return v3{a[0] * s, a[1] * s, a[2] * s} }
func vdot(a, b v3) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func vnorm(a v3) v3           { return vmul(a, 1/math.Sqrt(vdot(a, a))) }

// qtri is one ground-truth triangle with its albedo.
type qtri struct {
	p   [3]v3
	col v3
}

// qcamera is a pinhole camera looking at the object's middle.
type qcamera struct {
	pos, right, up, fwd v3
	f, cx, cy           float64
	w, h                int
}

// newQCamera places a camera at elevation elev (radians) with a 35 mm-equivalent focal
// length f35 so that the object's bounding sphere fills about fill of the frame height.
func newQCamera(w, h int, elev, f35, radius, fill float64) qcamera {
	diag := math.Hypot(float64(w), float64(h))
	f := f35 / 43.27 * diag
	// Distance at which a sphere of the given radius spans fill·h pixels.
	d := radius * f / (fill * float64(h) / 2)
	target := v3{0, 0.5, 0}
	dir := v3{0, math.Sin(elev), math.Cos(elev)}
	pos := vadd(target, vmul(dir, d))
	fwd := vmul(dir, -1)
	right := v3{1, 0, 0}
	up := crossV(right, fwd)
	return qcamera{pos: pos, right: right, up: up, fwd: fwd, f: f, cx: float64(w) / 2, cy: float64(h) / 2, w: w, h: h}
}

// project returns image coordinates (pixels, y down) and depth along the view axis.
func (c qcamera) project(p v3) (float64, float64, float64) {
	d := vsub(p, c.pos)
	z := vdot(d, c.fwd)
	return c.cx + c.f*vdot(d, c.right)/z, c.cy - c.f*vdot(d, c.up)/z, z
}

// ray returns the direction through image point (x, y).
func (c qcamera) ray(x, y float64) v3 {
	return vnorm(vadd(c.fwd, vadd(vmul(c.right, (x-c.cx)/c.f), vmul(c.up, -(y-c.cy)/c.f))))
}

// rasterize z-buffers tris at ss×ss samples per pixel and returns, per sample, the
// index of the visible triangle (−1 for none).
func rasterize(tris []qtri, cam qcamera, ss int) (ids []int32, sw, sh int) {
	sw, sh = cam.w*ss, cam.h*ss
	ids = make([]int32, sw*sh)
	inv := make([]float64, sw*sh) // 1/depth of the nearest surface
	for i := range ids {
		ids[i] = -1
	}
	s := float64(ss)
	for ti, t := range tris {
		var x, y, iz [3]float64
		behind := false
		for k := range 3 {
			px, py, z := cam.project(t.p[k])
			if z <= 1e-6 {
				behind = true
			}
			x[k], y[k], iz[k] = px*s, py*s, 1/z
		}
		if behind {
			continue
		}
		area := (x[1]-x[0])*(y[2]-y[0]) - (x[2]-x[0])*(y[1]-y[0])
		if math.Abs(area) < 1e-12 {
			continue
		}
		x0 := max(0, int(math.Floor(min(x[0], x[1], x[2]))))
		x1 := min(sw-1, int(math.Ceil(max(x[0], x[1], x[2]))))
		y0 := max(0, int(math.Floor(min(y[0], y[1], y[2]))))
		y1 := min(sh-1, int(math.Ceil(max(y[0], y[1], y[2]))))
		for py := y0; py <= y1; py++ {
			fy := float64(py) + 0.5
			for px := x0; px <= x1; px++ {
				fx := float64(px) + 0.5
				w0 := ((x[1]-fx)*(y[2]-fy) - (x[2]-fx)*(y[1]-fy)) / area
				w1 := ((x[2]-fx)*(y[0]-fy) - (x[0]-fx)*(y[2]-fy)) / area
				w2 := 1 - w0 - w1
				if w0 < 0 || w1 < 0 || w2 < 0 {
					continue
				}
				z := w0*iz[0] + w1*iz[1] + w2*iz[2]
				k := py*sw + px
				if z > inv[k] {
					inv[k] = z
					ids[k] = int32(ti)
				}
			}
		}
	}
	return ids, sw, sh
}

// silhouette is the binary mask (coverage ≥ ½ at 2×2 samples) of tris seen by cam.
func silhouette(tris []qtri, cam qcamera) []bool {
	ids, sw, _ := rasterize(tris, cam, 2)
	m := make([]bool, cam.w*cam.h)
	for y := range cam.h {
		for x := range cam.w {
			n := 0
			for k := range 4 {
				if ids[(2*y+k/2)*sw+2*x+k%2] >= 0 {
					n++
				}
			}
			m[y*cam.w+x] = n >= 2
		}
	}
	return m
}

// qscene is one benchmark photo with its exact ground truth.
type qscene struct {
	class    string
	name     string
	tris     []qtri
	cam      qcamera
	elevDeg  float64
	f35      float64
	gradient bool
	// dark selects a dark studio backdrop (charcoal to near-black) instead of a light one.
	dark bool
	// footprint is the signed distance (units) from a ground point to the object's
	// footprint, for the contact shadow.
	footprint func(x, z float64) float64
	// footR, where known (not 0), is how far from the origin the footprint reaches,
	// footprint being an exact signed distance: it is then at least |(x, z)| − footR,
	// so the shadow vanishes outside a known region and photo skips it there.
	footR float64
}

// photo renders the scene: Lambert shading under a key light from the upper front
// left, a studio backdrop, a soft contact shadow, a little sensor noise, JPEG.
func (s *qscene) photo(rng *rand.Rand) []byte {
	const ss = 3
	ids, sw, _ := rasterize(s.tris, s.cam, ss)
	light := vnorm(v3{-0.4, 0.8, 0.6})
	shade := make([]v3, len(s.tris))
	for i, t := range s.tris {
		n := vnorm(crossV(vsub(t.p[1], t.p[0]), vsub(t.p[2], t.p[0])))
		// Two-sided: the handle tube's inside faces the camera too.
		if vdot(n, vsub(s.cam.pos, t.p[0])) < 0 {
			n = vmul(n, -1)
		}
		k := 0.35 + 0.65*max(0, vdot(n, light))
		shade[i] = vmul(t.col, k)
	}
	top := v3{235, 235, 238}
	bottom := top
	if s.gradient {
		top = v3{250 - rng.Float64()*30, 245 - rng.Float64()*30, 240 - rng.Float64()*30}
		bottom = vmul(top, 0.7+rng.Float64()*0.15)
	} else {
		g := 200 + rng.Float64()*50
		top = v3{g, g - rng.Float64()*8, g - rng.Float64()*12}
		bottom = top
	}
	if s.dark {
		g := 28 + rng.Float64()*30
		top = v3{g, g, g + rng.Float64()*6}
		bottom = vmul(top, 0.75+rng.Float64()*0.2)
	}
	img := image.NewNRGBA(image.Rect(0, 0, s.cam.w, s.cam.h))
	// The backdrop of each row of samples, and the samples whose ground the
	// contact shadow can darken: elsewhere the backdrop is the row's, exactly.
	rowBg := make([]v3, s.cam.h*ss)
	for sy := range rowBg {
		t := ((float64(sy) + 0.5) / ss) / float64(s.cam.h)
		rowBg[sy] = vadd(vmul(top, 1-t), vmul(bottom, t))
	}
	shadow := s.shadowSpans(ss)
	for y := range s.cam.h {
		for x := range s.cam.w {
			var acc v3
			for k := range ss * ss {
				sx, sy := x*ss+k%ss, y*ss+k/ss
				id := ids[sy*sw+sx]
				if id >= 0 {
					acc = vadd(acc, shade[id])
					continue
				}
				bg := rowBg[sy]
				if sx < shadow[sy][0] || sx >= shadow[sy][1] {
					acc = vadd(acc, bg)
					continue
				}
				fx, fy := (float64(sx)+0.5)/ss, (float64(sy)+0.5)/ss
				d := s.cam.ray(fx, fy)
				if d[1] < 0 {
					g := vadd(s.cam.pos, vmul(d, -s.cam.pos[1]/d[1]))
					dist := max(0, s.footprint(g[0], g[2]))
					bg = vmul(bg, 1-0.45*math.Exp(-dist*dist/(0.06*0.06)))
				}
				acc = vadd(acc, bg)
			}
			acc = vmul(acc, 1.0/(ss*ss))
			c := color.NRGBA{A: 255}
			for ch := range 3 {
				v := min(255, max(0, math.Round(acc[ch]+rng.NormFloat64()*1.5)))
				switch ch {
				case 0:
					c.R = uint8(v)
				case 1:
					c.G = uint8(v)
				default:
					c.B = uint8(v)
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// shadowSpans gives, per row of samples (ss×ss a pixel), the samples [lo, hi)
// whose ground the contact shadow can darken: everywhere else the backdrop is
// exactly the row's, as 1 − 0.45·exp(−d²/0.06²) rounds to 1 for a ground point
// d ≥ 0.4 from the footprint, and those within 0.4 lie inside the circle of
// radius footR + 0.4 about the origin. A row's rays meet the ground along a
// line (the camera's right axis is level), which crosses that circle in one
// span, widened by two samples each side for rounding. Every sample of every
// row where footR is unknown or the camera is tilted sideways.
func (s *qscene) shadowSpans(ss int) [][2]int {
	c := s.cam
	sw, sh := c.w*ss, c.h*ss
	spans := make([][2]int, sh)
	if s.footR <= 0 || c.right[1] != 0 {
		for i := range spans {
			spans[i] = [2]int{0, sw}
		}
		return spans
	}
	r := s.footR + 0.4
	f := float64(ss)
	for sy := range spans {
		fy := (float64(sy) + 0.5) / f
		// The ray through (fx, fy) runs along a + b·fx; a level right axis keeps
		// its height a[1] the same along the row.
		a := vadd(c.fwd, vadd(vmul(c.right, -c.cx/c.f), vmul(c.up, -(fy-c.cy)/c.f)))
		b := vmul(c.right, 1/c.f)
		if a[1] > -1e-6 {
			if a[1] > 1e-6 {
				continue // the row looks above the horizon: no ground, no shadow
			}
			spans[sy] = [2]int{0, sw}
			continue
		}
		t := -c.pos[1] / a[1]
		px, pz := c.pos[0]+t*a[0], c.pos[2]+t*a[2]
		qx, qz := t*b[0], t*b[2]
		qq, pq, pp := qx*qx+qz*qz, px*qx+pz*qz, px*px+pz*pz-r*r
		disc := pq*pq - qq*pp
		if disc <= 0 {
			continue
		}
		fx0, fx1 := (-pq-math.Sqrt(disc))/qq, (-pq+math.Sqrt(disc))/qq
		lo := max(0, int(math.Floor(fx0*f-0.5))-2)
		hi := min(sw, int(math.Ceil(fx1*f-0.5))+3)
		if lo < hi {
			spans[sy] = [2]int{lo, hi}
		}
	}
	return spans
}

func crossV(a, b v3) v3 {
	return v3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// profileBand is a stretch of a lathe profile with one colour.
type profileBand struct {
	pts []shape.ProfilePoint // radius, height (y up) from bottom to top
	col v3
}

// latheTris revolves a profile (bottom to top) into a closed solid: flat discs close
// the bottom and top.
func latheTris(bands []profileBand, segs int) []qtri {
	var out []qtri
	ring := func(r, y float64, j int) v3 {
		a := 2 * math.Pi * float64(j) / float64(segs)
		return v3{r * math.Sin(a), y, r * math.Cos(a)}
	}
	for bi, b := range bands {
		for i := 0; i+1 < len(b.pts); i++ {
			p, q := b.pts[i], b.pts[i+1]
			for j := range segs {
				a, bb := ring(p.R, p.Y, j), ring(p.R, p.Y, j+1)
				c, d := ring(q.R, q.Y, j+1), ring(q.R, q.Y, j)
				out = append(out, qtri{[3]v3{a, bb, c}, b.col}, qtri{[3]v3{a, c, d}, b.col})
			}
		}
		if bi == 0 {
			p := b.pts[0]
			for j := range segs {
				out = append(out, qtri{[3]v3{{0, p.Y, 0}, ring(p.R, p.Y, j+1), ring(p.R, p.Y, j)}, b.col})
			}
		}
		if bi == len(bands)-1 {
			p := b.pts[len(b.pts)-1]
			for j := range segs {
				out = append(out, qtri{[3]v3{{0, p.Y, 0}, ring(p.R, p.Y, j), ring(p.R, p.Y, j+1)}, b.col})
			}
		}
	}
	return out
}

// sampleProfile evaluates r(y) at n+1 heights in [y0, y1].
func sampleProfile(r func(y float64) float64, y0, y1 float64, n int) []shape.ProfilePoint {
	pts := make([]shape.ProfilePoint, n+1)
	for i := range n + 1 {
		y := y0 + (y1-y0)*float64(i)/float64(n)
		pts[i] = shape.ProfilePoint{R: r(y), Y: y}
	}
	return pts
}

// randColour picks a saturated or neutral product colour that stands out from a
// light backdrop.
func randColour(rng *rand.Rand) v3 {
	h := rng.Float64() * 6
	s := 0.4 + rng.Float64()*0.5
	v := 90 + rng.Float64()*130
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	var r, g, b float64
	switch int(h) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	return v3{r + m, g + m, b + m}
}

// qualityClasses are the product classes of the benchmark, in table order.
var qualityClasses = []string{"bottle", "vase", "can", "mug", "box", "lamp"}

// makeScene builds scene i of a class, deterministically from seed.
func makeScene(class string, i int, w, h int) *qscene {
	rng := rand.New(rand.NewPCG(uint64(i)*7919+1, uint64(len(class))*104729+uint64(class[0])))
	s := &qscene{class: class, elevDeg: rng.Float64() * 25, f35: []float64{24, 26, 28, 35, 50}[rng.IntN(5)], gradient: rng.IntN(2) == 0}
	c1, c2, c3 := randColour(rng), randColour(rng), randColour(rng)
	circleFoot := func(r float64) func(x, z float64) float64 {
		s.footR = r
		return func(x, z float64) float64 { return math.Hypot(x, z) - r }
	}
	var radius float64 // bounding sphere radius about (0, 0.5, 0)
	switch class {
	case "bottle":
		R := 0.13 + rng.Float64()*0.09
		neck := R * (0.3 + rng.Float64()*0.1)
		sh := 0.55 + rng.Float64()*0.1
		body := func(y float64) float64 { return R * (0.96 + 0.04*math.Min(1, y/0.03)) }
		shoulder := func(y float64) float64 {
			t := (y - sh) / 0.2
			return neck + (R-neck)*0.5*(1+math.Cos(math.Pi*t))
		}
		s.tris = latheTris([]profileBand{
			{sampleProfile(body, 0, sh, 12), c1},
			{sampleProfile(shoulder, sh, sh+0.2, 16), c1},
			{sampleProfile(func(float64) float64 { return neck }, sh+0.2, 0.88, 2), c2},
			{sampleProfile(func(float64) float64 { return neck * 1.15 }, 0.88, 1, 2), c3},
		}, 72)
		s.footprint, radius = circleFoot(R), math.Hypot(R, 0.5)
	case "vase":
		R := 0.2 + rng.Float64()*0.12
		ph := rng.Float64() * 0.6
		r := func(y float64) float64 {
			return R * (0.62 + 0.38*math.Sin(math.Pi*(0.1+0.75*y)+ph*(y-0.5)) + 0.25*math.Max(0, y-0.85)/0.15)
		}
		s.tris = latheTris([]profileBand{{sampleProfile(r, 0, 1, 48), c1}}, 72)
		s.footprint, radius = circleFoot(r(0)), math.Hypot(R*1.1, 0.5)
	case "can":
		R := 0.2 + rng.Float64()*0.14
		r := func(y float64) float64 {
			e := math.Min(y, 1-y)
			return R * (0.93 + 0.07*math.Min(1, e/0.04))
		}
		s.tris = latheTris([]profileBand{
			{sampleProfile(r, 0, 0.08, 4), c2},
			{sampleProfile(r, 0.08, 0.92, 2), c1},
			{sampleProfile(r, 0.92, 1, 4), c2},
		}, 72)
		s.footprint, radius = circleFoot(R), math.Hypot(R, 0.5)
	case "mug":
		R := 0.36 + rng.Float64()*0.1
		side := 1.0
		if rng.IntN(2) == 0 {
			side = -1
		}
		s.tris = latheTris([]profileBand{{sampleProfile(func(float64) float64 { return R }, 0, 1, 2), c1}}, 72)
		// Handle: a tube swept along a D-shaped arc in the z = 0 plane.
		hx, hy := 0.22+rng.Float64()*0.06, 0.28+rng.Float64()*0.06
		tube := 0.045 + rng.Float64()*0.02
		const n, m = 32, 12
		path := func(k int) v3 {
			a := -math.Pi/2 + math.Pi*float64(k)/n
			return v3{side * (R - 0.02 + hx*math.Cos(a)), 0.52 + hy*math.Sin(a), 0}
		}
		for k := range n {
			p0, p1 := path(k), path(k+1)
			t0 := vnorm(vsub(path(min(k+1, n)), path(max(k-1, 0))))
			t1 := vnorm(vsub(path(min(k+2, n)), path(k)))
			frame := func(p, t v3, j int) v3 {
				nrm := v3{-t[1], t[0], 0} // in-plane normal
				a := 2 * math.Pi * float64(j) / m
				return vadd(p, vadd(vmul(nrm, tube*math.Cos(a)), v3{0, 0, tube * math.Sin(a)}))
			}
			for j := range m {
				a, b := frame(p0, t0, j), frame(p0, t0, j+1)
				c, d := frame(p1, t1, j+1), frame(p1, t1, j)
				s.tris = append(s.tris, qtri{[3]v3{a, b, c}, c1}, qtri{[3]v3{a, c, d}, c1})
			}
		}
		s.footprint, radius = circleFoot(R), math.Hypot(R+hx+tube, 0.5)
	case "box":
		W := 0.45 + rng.Float64()*0.55
		D := 0.3 + rng.Float64()*0.5
		yaw := (15 + rng.Float64()*45) * math.Pi / 180
		if rng.IntN(2) == 0 {
			yaw = -yaw
		}
		cy, sy := math.Cos(yaw), math.Sin(yaw)
		rot := func(x, y, z float64) v3 { return v3{x*cy + z*sy, y, -x*sy + z*cy} }
		c := [8]v3{}
		for k := range 8 {
			x := (float64(k&1) - 0.5) * W
			y := float64(k >> 1 & 1)
			z := (float64(k>>2&1) - 0.5) * D
			c[k] = rot(x, y, z)
		}
		quad := func(a, b, cc, d int, col v3) {
			s.tris = append(s.tris, qtri{[3]v3{c[a], c[b], c[cc]}, col}, qtri{[3]v3{c[a], c[cc], c[d]}, col})
		}
		quad(4, 5, 7, 6, c1) // front z+
		quad(1, 0, 2, 3, c1) // back
		quad(0, 4, 6, 2, c2) // left
		quad(5, 1, 3, 7, c2) // right
		quad(2, 6, 7, 3, c3) // top
		quad(0, 1, 5, 4, c3) // bottom
		s.footprint = func(x, z float64) float64 {
			lx, lz := x*cy-z*sy, x*sy+z*cy
			dx, dz := math.Abs(lx)-W/2, math.Abs(lz)-D/2
			return math.Hypot(max(dx, 0), max(dz, 0)) + min(max(dx, dz), 0)
		}
		s.footR = math.Hypot(W/2, D/2)
		radius = math.Sqrt(W*W/4 + D*D/4 + 0.25)
	case "lamp":
		base := 0.22 + rng.Float64()*0.08
		stem := 0.02 + rng.Float64()*0.01
		shadeLo := 0.28 + rng.Float64()*0.1
		shadeHi := shadeLo * (0.5 + rng.Float64()*0.2)
		s.tris = latheTris([]profileBand{
			{[]shape.ProfilePoint{{R: base, Y: 0}, {R: base, Y: 0.04}, {R: stem * 2, Y: 0.05}}, c2},
			{[]shape.ProfilePoint{{R: stem, Y: 0.05}, {R: stem, Y: 0.55}}, c2},
			{[]shape.ProfilePoint{{R: shadeLo, Y: 0.55}, {R: shadeHi, Y: 1}}, c1},
		}, 72)
		s.footprint, radius = circleFoot(base), math.Hypot(shadeLo, 0.5)
	default:
		panic("unknown class " + class)
	}
	s.name = class + "-" + string(rune('a'+i))
	fill := 0.55 + rng.Float64()*0.25
	s.cam = newQCamera(w, h, s.elevDeg*math.Pi/180, s.f35, radius, fill)
	return s
}
