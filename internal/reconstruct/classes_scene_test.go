package reconstruct

import (
	"math"
	"math/rand/v2"
)

// Scenes of the shape classes beyond the solids of revolution (shape/depthprior.go):
// furniture on legs (side chair, sofa, desk) and flat goods (tote bag, picture
// frame), with exact triangle ground truth, rendered by quality_scene_test.go's
// camera and studio. Chair legs are often light (beech, white lacquer) on the light
// backdrop, the case where segmentation by brightness alone drops them.

var classScenes = []string{"chair", "sofa", "desk", "tote", "frame"}

// boxTrisYaw returns the closed box [lo, hi] rotated by yaw about +Y.
func boxTrisYaw(lo, hi v3, col v3, yaw float64) []qtri {
	var c [8]v3
	for k := range 8 {
		p := v3{lo[0], lo[1], lo[2]}
		if k&1 != 0 {
			p[0] = hi[0]
		}
		if k&2 != 0 {
			p[1] = hi[1]
		}
		if k&4 != 0 {
			p[2] = hi[2]
		}
		c[k] = p
	}
	return hexTrisYaw(c, col, yaw)
}

// hexTrisYaw returns the closed hexahedron with corners c (indexed like a box's:
// bit 0 x, bit 1 y, bit 2 z) rotated by yaw about +Y.
func hexTrisYaw(c [8]v3, col v3, yaw float64) []qtri {
	cy, sy := math.Cos(yaw), math.Sin(yaw)
	for k, p := range c {
		c[k] = v3{p[0]*cy + p[2]*sy, p[1], -p[0]*sy + p[2]*cy}
	}
	var out []qtri
	quad := func(a, b, cc, d int) {
		out = append(out, qtri{[3]v3{c[a], c[b], c[cc]}, col}, qtri{[3]v3{c[a], c[cc], c[d]}, col})
	}
	quad(4, 5, 7, 6)
	quad(1, 0, 2, 3)
	quad(0, 4, 6, 2)
	quad(5, 1, 3, 7)
	quad(2, 6, 7, 3)
	quad(0, 1, 5, 4)
	return out
}

// lightColour is a pale wood or lacquer tone close to a studio backdrop.
func lightColour(rng *rand.Rand) v3 {
	g := 200 + rng.Float64()*30
	return v3{g, g - 4 - rng.Float64()*10, g - 10 - rng.Float64()*20}
}

// makeClassScene builds scene i of a class scene, deterministically.
func makeClassScene(class string, i int, w, h int) *qscene {
	rng := rand.New(rand.NewPCG(uint64(i)*6007+3, uint64(len(class))*31337+uint64(class[0])))
	s := &qscene{class: class, elevDeg: 5 + rng.Float64()*20, f35: []float64{26, 28, 35, 50}[rng.IntN(4)], gradient: rng.IntN(2) == 0}
	yaw := (rng.Float64()*2 - 1) * 20 * math.Pi / 180
	c1, c2 := randColour(rng), randColour(rng)
	var tris []qtri
	add := func(lo, hi v3, col v3) { tris = append(tris, boxTrisYaw(lo, hi, col, yaw)...) }
	var W, D float64
	legs := func(legH, legW, inset float64, col v3) {
		for _, sx := range []float64{-1, 1} {
			for _, sz := range []float64{-1, 1} {
				x := sx * (W/2 - inset - legW/2)
				z := sz * (D/2 - inset - legW/2)
				add(v3{x - legW/2, 0, z - legW/2}, v3{x + legW/2, legH, z + legW/2}, col)
			}
		}
	}
	switch class {
	case "chair":
		W = 0.5 + rng.Float64()*0.12
		D = W * (0.95 + rng.Float64()*0.15)
		seatY := 0.44 + rng.Float64()*0.06
		legCol := c2
		if i%2 == 0 {
			legCol = lightColour(rng)
		}
		legs(seatY-0.05, 0.035+rng.Float64()*0.015, 0.02, legCol)
		add(v3{-W / 2, seatY - 0.05, -D / 2}, v3{W / 2, seatY, D / 2}, c1)
		add(v3{-W/2 + 0.02, seatY, -D / 2}, v3{W/2 - 0.02, 1, -D/2 + 0.05}, c1)
	case "sofa":
		W = 2.1 + rng.Float64()*0.5
		D = 1.0 + rng.Float64()*0.15
		legH := 0.07 + rng.Float64()*0.06
		arm := 0.18 + rng.Float64()*0.06
		armH := 0.65 + rng.Float64()*0.1
		legs(legH, 0.06, 0.06, lightColour(rng))
		add(v3{-W / 2, legH, -D / 2}, v3{W / 2, 0.5, D / 2}, c1)              // base and seat
		add(v3{-W / 2, 0.5, -D / 2}, v3{-W/2 + arm, armH, D / 2}, c1)         // left arm
		add(v3{W/2 - arm, 0.5, -D / 2}, v3{W / 2, armH, D / 2}, c1)           // right arm
		add(v3{-W/2 + arm, 0.5, -D / 2}, v3{W/2 - arm, 1, -D/2 + 0.25*D}, c1) // back
	case "desk":
		W = 1.5 + rng.Float64()*0.4
		D = 0.7 + rng.Float64()*0.2
		legs(0.95, 0.05, 0.03, c2)
		add(v3{-W / 2, 0.95, -D / 2}, v3{W / 2, 1, D / 2}, c1)
	case "tote":
		// A bag body (a slab, wider at the bottom) with two handles on top.
		W = 0.75 + rng.Float64()*0.1
		D = 0.13 + rng.Float64()*0.05
		bodyH := 0.6 + rng.Float64()*0.08
		var c [8]v3
		for k := range 8 {
			top := k&2 != 0
			ww, dd, y := W, D, 0.0
			if top {
				ww, dd, y = 0.88*W, 0.5*D, bodyH
			}
			c[k] = v3{(float64(k&1) - 0.5) * ww, y, (float64(k>>2&1) - 0.5) * dd}
		}
		tris = append(tris, hexTrisYaw(c, c1, yaw)...)
		// Handles: arches of thin boxes over the body, one front and one back.
		for _, z := range []float64{D / 4, -D / 4} {
			const m = 10
			for k := range m {
				a0, a1 := math.Pi*float64(k)/m, math.Pi*float64(k+1)/m
				r := 0.2
				x0, x1 := -r*math.Cos(a0), -r*math.Cos(a1)
				y0, y1 := bodyH+(1-bodyH)*math.Sin(a0), bodyH+(1-bodyH)*math.Sin(a1)
				add(v3{min(x0, x1) - 0.015, min(y0, y1) - 0.015, z - 0.006}, v3{max(x0, x1) + 0.015, max(y0, y1) + 0.015, z + 0.006}, c2)
			}
		}
	case "frame":
		W = 0.7 + rng.Float64()*0.3
		D = 0.035
		add(v3{-W / 2, 0, -D / 2}, v3{W / 2, 1, D / 2}, c1)
		add(v3{-W/2 + 0.08, 0.08, D / 2}, v3{W/2 - 0.08, 0.92, D/2 + 0.002}, c2) // the picture
	default:
		panic("unknown class scene " + class)
	}
	s.tris = tris
	cyw, syw := math.Cos(yaw), math.Sin(yaw)
	s.footprint = func(x, z float64) float64 {
		lx, lz := x*cyw-z*syw, x*syw+z*cyw
		dx, dz := math.Abs(lx)-W/2, math.Abs(lz)-D/2
		return math.Hypot(max(dx, 0), max(dz, 0)) + min(max(dx, dz), 0)
	}
	s.footR = math.Hypot(W/2, D/2)
	s.name = class + "-" + string(rune('a'+i))
	radius := math.Sqrt(W*W/4 + D*D/4 + 0.25)
	if W > 1.2 {
		w, h = max(w, h), min(w, h) // wide furniture is photographed in landscape
	}
	s.cam = newQCamera(w, h, s.elevDeg*math.Pi/180, s.f35, radius, 0.55+rng.Float64()*0.2)
	return s
}
