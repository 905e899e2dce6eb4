package reconstruct

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
)

// The turntable benchmark's own-box ceiling stands the exact-pose hull on the
// highest base its silhouettes allow (GroundBySilhouettes). Cameras above the
// floor leave a wedge of hull under a flat base; that rule must cut it and keep
// the product down to its base, so the ceiling it reports is the product's.
func TestGroundBySilhouettesStandsTheExactHullOnItsBase(t *testing.T) {
	rings, err := ParseRings("12@0,12@30")
	require.NoError(t, err)
	for _, class := range []string{"box", "bottle"} {
		s := makeScene(class, 0, 480, 360)
		lo, hi := triBox(s.tris)
		height := hi[1] - lo[1]
		lowest := exactSpinHullLowest(t, s, rings)
		carved, stood := lowest(multiview.NoGround), lowest(multiview.GroundBySilhouettes)
		t.Logf("%s: base %.3f, hull's lowest %.3f, stood on the silhouettes' base %.3f", class, lo[1], carved, stood)
		require.Less(t, carved, lo[1]-0.03*height, "%s: the cones leave a wedge under the base", class)
		require.InDelta(t, lo[1], stood, 0.03*height, "%s: stood on its base", class)
	}
}

// Spin-set builds stand on GroundByFootprint. A toy car touches the floor with
// four wheels spread over its whole footprint: the section rule, which waits for
// the section's area to reach 70 % of its size a little higher up, cut the
// wheels' lower part away with the cones' taper, while the section's bounding
// box spans the wheelbase from the floor up, so the footprint rule keeps the car
// on its wheels. A box's flat base leaves a wedge whose box shrinks with its
// area, and that wedge is still cut.
func TestGroundByFootprintKeepsWheelsAndCutsTheWedge(t *testing.T) {
	rings, err := ParseRings("12@0,12@30")
	require.NoError(t, err)
	car := &qscene{class: "car", name: "car on four wheels"}
	grey := v3{0.5, 0.5, 0.55}
	car.tris = boxTris(v3{-0.5, 0.22, -0.25}, v3{0.5, 1, 0.25}, v3{0.7, 0.2, 0.2})
	for _, x := range []float64{-0.33, 0.33} {
		for _, z := range []float64{-0.21, 0.21} {
			car.tris = append(car.tris, wheelTris(v3{x, 0.15, z}, 0.15, 0.05, grey)...)
		}
	}
	box := makeScene("box", 0, 480, 360)
	for _, c := range []struct {
		s           *qscene
		wedgeIsCut  bool // the section rule cuts the taper under a flat base
		wheelsStand bool // the section rule cuts the wheels: the footprint rule must not
	}{{car, false, true}, {box, true, false}} {
		lo, hi := triBox(c.s.tris)
		height := hi[1] - lo[1]
		lowest := exactSpinHullLowest(t, c.s, rings)
		carved, sections, footprint := lowest(multiview.NoGround), lowest(multiview.GroundBySections), lowest(multiview.GroundByFootprint)
		t.Logf("%s: base %.3f, hull's lowest %.3f, section rule %.3f, footprint rule %.3f (height %.3f)", c.s.name, lo[1], carved, sections, footprint, height)
		if c.wheelsStand {
			require.Greater(t, sections, lo[1]+0.025*height, "%s: the section rule cuts the wheels", c.s.name)
			require.InDelta(t, lo[1], footprint, 0.01*height, "%s: stood on its wheels", c.s.name)
		}
		if c.wedgeIsCut {
			require.Less(t, carved, lo[1]-0.03*height, "%s: the cones leave a wedge under the base", c.s.name)
			require.InDelta(t, sections, footprint, 0.005*height, "%s: the wedge is cut as before", c.s.name)
			require.InDelta(t, lo[1], footprint, 0.03*height, "%s: stood on its base", c.s.name)
		}
	}
}

// wheelTris is a closed cylinder about the z axis: a wheel of radius r and
// half-width hw centred at c.
func wheelTris(c v3, r, hw float64, col v3) []qtri {
	const n = 32
	var out []qtri
	at := func(k int, z float64) v3 {
		a := 2 * math.Pi * float64(k) / n
		return v3{c[0] + r*math.Cos(a), c[1] + r*math.Sin(a), c[2] + z}
	}
	front, back := v3{c[0], c[1], c[2] + hw}, v3{c[0], c[1], c[2] - hw}
	for k := range n {
		a0, a1 := at(k, hw), at(k+1, hw)
		b0, b1 := at(k, -hw), at(k+1, -hw)
		out = append(out,
			qtri{[3]v3{a0, b0, b1}, col}, qtri{[3]v3{a0, b1, a1}, col},
			qtri{[3]v3{front, a0, a1}, col}, qtri{[3]v3{back, b1, b0}, col})
	}
	return out
}

// exactSpinHullLowest photographs s as a spin set with exact cameras and
// returns what gives the lowest point of its hull, carved in a box half its
// height wider than s's, stood on a ground rule.
func exactSpinHullLowest(t *testing.T, s *qscene, rings []RingSpec) func(multiview.Ground) float64 {
	lo, hi := triBox(s.tris)
	radius := 0.5 * math.Sqrt(vdot(vsub(hi, lo), vsub(hi, lo)))
	m, _ := spinScene(s, radius, rings, 480, 360, rand.New(rand.NewPCG(7, 11)), turntableError{})
	d := 0.5 * (hi[1] - lo[1])
	box := multiview.PoseResult{Lo: [3]float64{lo[0] - d, lo[1] - d, lo[2] - d}, Hi: [3]float64{hi[0] + d, hi[1] + d, hi[2] + d}, Voxel: 0.02}
	return func(ground multiview.Ground) float64 {
		mesh, err := multiview.CarveMesh(context.Background(), exactViews(m), box, DefaultMaxTriangles, ground)
		require.NoError(t, err)
		mlo, _ := mesh.Bounds()
		return float64(mlo[1])
	}
}
