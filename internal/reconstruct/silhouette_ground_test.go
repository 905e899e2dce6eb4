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
		radius := 0.5 * math.Sqrt(vdot(vsub(hi, lo), vsub(hi, lo)))
		m, _ := spinScene(s, radius, rings, 480, 360, rand.New(rand.NewPCG(7, 11)), turntableError{})
		height := hi[1] - lo[1]
		lowest := func(ground multiview.Ground) float64 {
			vs := exactViews(m)
			d := 0.5 * height
			box := multiview.PoseResult{Lo: [3]float64{lo[0] - d, lo[1] - d, lo[2] - d}, Hi: [3]float64{hi[0] + d, hi[1] + d, hi[2] + d}, Voxel: 0.02}
			mesh, err := multiview.CarveMesh(context.Background(), vs, box, DefaultMaxTriangles, ground)
			require.NoError(t, err)
			mlo, _ := mesh.Bounds()
			return float64(mlo[1])
		}
		carved, stood := lowest(multiview.NoGround), lowest(multiview.GroundBySilhouettes)
		t.Logf("%s: base %.3f, hull's lowest %.3f, stood on the silhouettes' base %.3f", class, lo[1], carved, stood)
		require.Less(t, carved, lo[1]-0.03*height, "%s: the cones leave a wedge under the base", class)
		require.InDelta(t, lo[1], stood, 0.03*height, "%s: stood on its base", class)
	}
}
