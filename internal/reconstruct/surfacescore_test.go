package reconstruct

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The closest point on a triangle is never farther than the closest of a fine grid
// of points on it, and at most a grid step nearer.
func TestPointTriangleDistMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	r := func() v3 { return v3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1} }
	const steps = 80
	for range 1500 {
		tri := [3]v3{r(), r(), r()}
		p := r()
		brute := math.Inf(1)
		for i := 0; i <= steps; i++ {
			for j := 0; i+j <= steps; j++ {
				q := vadd(tri[0], vadd(vmul(vsub(tri[1], tri[0]), float64(i)/steps), vmul(vsub(tri[2], tri[0]), float64(j)/steps)))
				d := vsub(p, q)
				brute = min(brute, vdot(d, d))
			}
		}
		got := math.Sqrt(pointTriangleDist2(p, tri))
		require.LessOrEqual(t, got, math.Sqrt(brute)+1e-9)
		require.InDelta(t, math.Sqrt(brute), got, 0.03)
	}
	// A degenerate triangle (two corners the same) is its segment.
	seg := [3]v3{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}
	require.InDelta(t, 0.25, pointTriangleDist2(v3{0.5, 0.5, 0}, seg), 1e-12)
}

// A product with much surface per height² (a wide, low dish scaled to height 1 is
// about six wide) scores F@5 1 against itself: the distance is to the other surface,
// not to the nearest of its samples, which lie farther apart than the 5 % threshold
// (point-to-point scoring gave 0.5 here). A copy shifted by 3 % of the height is
// still within it; one shifted by 8 % is not.
func TestSurfaceScoreOfAWideLowProductAgainstItself(t *testing.T) {
	t.Parallel()
	// Base, wall and a flat top: 6 wide, 1 tall, in rings a quarter apart so no
	// triangle is much larger than the threshold.
	var dish []qtri
	const segs = 96
	ring := func(r, y float64, k int) v3 {
		a := 2 * math.Pi * float64(k) / segs
		return v3{r * math.Cos(a), y, r * math.Sin(a)}
	}
	disc := func(y, r float64, up bool) {
		for k := range segs {
			for r0 := 0.0; r0 < r; r0 += 0.25 {
				r1 := min(r, r0+0.25)
				a, b, c, d := ring(r0, y, k), ring(r0, y, k+1), ring(r1, y, k+1), ring(r1, y, k)
				if up {
					b, d = d, b
				}
				dish = append(dish, qtri{p: [3]v3{a, b, c}}, qtri{p: [3]v3{a, c, d}})
			}
		}
	}
	disc(0, 2.5, false)
	disc(1, 3, true)
	for k := range segs {
		dish = append(dish,
			qtri{p: [3]v3{ring(2.5, 0, k), ring(2.5, 0, k+1), ring(3, 1, k+1)}},
			qtri{p: [3]v3{ring(2.5, 0, k), ring(3, 1, k+1), ring(3, 1, k)}},
		)
	}
	f, chamfer := surfaceScore(dish, dish)
	require.InDelta(t, 1, f, 1e-9)
	require.Less(t, chamfer, 0.01)
	shift := func(d float64) []qtri {
		out := make([]qtri, len(dish))
		for i, tr := range dish {
			for k := range 3 {
				out[i].p[k] = vadd(tr.p[k], v3{0, d, 0})
			}
		}
		return out
	}
	near, _ := surfaceScore(dish, shift(0.03))
	far, _ := surfaceScore(dish, shift(0.08))
	require.Greater(t, near, 0.95)
	require.Less(t, far, 0.5)
}
