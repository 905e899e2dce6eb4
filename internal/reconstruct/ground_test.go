package reconstruct

import (
	"cmp"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// convexMask rasterises the convex hull of the orthographic images of pts (+Y up,
// +Z towards the camera), seen from above at the depression a, into a w×h mask
// whose centre row holds the lowest point (so the optical axis passes through
// the ground contact); scale is pixels per unit.
func convexMask(pts [][3]float64, a float64, w, h int, scale float64) []uint8 {
	img := make([][2]float64, len(pts))
	maxV := math.Inf(-1)
	for i, p := range pts {
		u := p[0] * scale
		v := (-p[1]*math.Cos(a) + p[2]*math.Sin(a)) * scale
		img[i] = [2]float64{u, v}
		maxV = max(maxV, v)
	}
	for i := range img {
		img[i][0] += float64(w) / 2
		img[i][1] += float64(h)/2 - maxV
	}
	// Monotone chain hull.
	slices.SortFunc(img, func(p, q [2]float64) int {
		if p[0] != q[0] {
			return cmp.Compare(p[0], q[0])
		}
		return cmp.Compare(p[1], q[1])
	})
	cross := func(o, p, q [2]float64) float64 {
		return (p[0]-o[0])*(q[1]-o[1]) - (p[1]-o[1])*(q[0]-o[0])
	}
	var hull [][2]float64
	for pass := range 2 {
		start := len(hull)
		for k := range img {
			p := img[k]
			if pass == 1 {
				p = img[len(img)-1-k]
			}
			for len(hull) >= start+2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1]
	}
	mask := make([]uint8, w*h)
	for y := range h {
		for x := range w {
			c := [2]float64{float64(x) + 0.5, float64(y) + 0.5}
			in := true
			for k := range hull {
				if cross(hull[k], hull[(k+1)%len(hull)], c) < 0 {
					in = false
					break
				}
			}
			if in {
				mask[y*w+x] = 255
			}
		}
	}
	return mask
}

// TestGroundElevationFromFootprint: a drawn cylinder (round base) and a box turned
// 30° and 60°, seen from 8° to 25° above, give their elevation back within 2°
// from the lower outline alone; a box seen face-on, whose lower outline is flat,
// gives no estimate rather than a wrong one.
func TestGroundElevationFromFootprint(t *testing.T) {
	const w, h, scale, f = 400, 400, 120.0, 1e7 // f: practically orthographic
	cylinder := func() [][3]float64 {
		var pts [][3]float64
		for k := range 360 {
			t := float64(k) * math.Pi / 180
			for _, y := range []float64{0, 1} {
				pts = append(pts, [3]float64{0.6 * math.Cos(t), y, 0.6 * math.Sin(t)})
			}
		}
		return pts
	}
	box := func(az float64) [][3]float64 {
		var pts [][3]float64
		for _, x := range []float64{-0.7, 0.7} {
			for _, z := range []float64{-0.4, 0.4} {
				for _, y := range []float64{0, 0.8} {
					c, s := math.Cos(az), math.Sin(az)
					pts = append(pts, [3]float64{c*x + s*z, y, -s*x + c*z})
				}
			}
		}
		return pts
	}
	deg := math.Pi / 180
	for _, el := range []float64{8, 15, 25} {
		for name, pts := range map[string][][3]float64{"cylinder": cylinder(), "box 30°": box(30 * deg), "box 60°": box(60 * deg)} {
			c := multiview.GroundElevation(convexMask(pts, el*deg, w, h, scale), w, h, f)
			if !c.Ok {
				t.Fatalf("%s at %.0f°: no estimate", name, el)
			}
			if d := math.Abs(c.El/deg - el); d > 2 {
				t.Errorf("%s at %.0f°: estimated %.1f°", name, el, c.El/deg)
			}
		}
		if c := multiview.GroundElevation(convexMask(box(0), el*deg, w, h, scale), w, h, f); c.Ok {
			t.Errorf("face-on box at %.0f°: estimated %.1f°, want none (flat outline)", el, c.El/deg)
		}
	}
}

// TestGroundPriorHalfwayToCue: the prior's centre lies halfway between the usual
// elevation and the views' median cue, and stays usual where no view gives one
// (face-on boxes) or the cue says the camera looks up.
func TestGroundPriorHalfwayToCue(t *testing.T) {
	const w, h, scale, f = 400, 400, 120.0, 1e7
	deg := math.Pi / 180
	var cyl [][3]float64
	for k := range 360 {
		a := float64(k) * deg
		cyl = append(cyl, [3]float64{0.6 * math.Cos(a), 0, 0.6 * math.Sin(a)}, [3]float64{0.6 * math.Cos(a), 1, 0.6 * math.Sin(a)})
	}
	faceOn := [][3]float64{{-0.7, 0, -0.4}, {0.7, 0, -0.4}, {-0.7, 0, 0.4}, {0.7, 0, 0.4}, {-0.7, 0.8, -0.4}, {0.7, 0.8, -0.4}, {-0.7, 0.8, 0.4}, {0.7, 0.8, 0.4}}
	view := func(mask []uint8) *multiview.View {
		return &multiview.View{P: &segment.Photo{W: w, H: h}, Alpha: mask, F0: f}
	}
	usual := 12 * deg
	var round []*multiview.View
	for _, el := range []float64{18, 20, 22} {
		round = append(round, view(convexMask(cyl, el*deg, w, h, scale)))
	}
	if got := multiview.GroundPrior(round, usual) / deg; math.Abs(got-16) > 1 {
		t.Errorf("round base at 18–22°: prior centre %.1f°, want about 16°", got)
	}
	box := []*multiview.View{view(convexMask(faceOn, 20*deg, w, h, scale)), view(convexMask(faceOn, 20*deg, w, h, scale))}
	if got := multiview.GroundPrior(box, usual); got != usual {
		t.Errorf("face-on box: prior centre %.1f°, want the usual 12°", got/deg)
	}
}

// PHOTO3D_GROUNDPRIOR=0 turns multiview.UseGroundPrior off for the real-set measurements (1: on, the default);
// PHOTO3D_PHONELENS=1 limits the shared focal length to a phone's main lens
// (21-36 mm-equivalent).
func init() {
	envSwitch("PHOTO3D_GROUNDPRIOR", &multiview.UseGroundPrior)
	if os.Getenv("PHOTO3D_PHONELENS") != "" {
		multiview.LensHi = multiview.PhoneLensHi
	}
}
