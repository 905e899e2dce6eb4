package segment

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGraphCutMatchesBruteForce compares the solver's cut with exhaustive search on
// random small graphs: the cut value must be the true minimum.
func TestGraphCutMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 2 + rng.IntN(9)
		type edge struct {
			i, j   int
			cij, c int32
		}
		src := make([]int32, n)
		snk := make([]int32, n)
		g := newGraphCut(n, 3*n)
		for i := range n {
			src[i], snk[i] = int32(rng.IntN(20)), int32(rng.IntN(20))
			g.addTerminal(i, src[i], snk[i])
		}
		var edges []edge
		for range rng.IntN(3 * n) {
			i, j := rng.IntN(n), rng.IntN(n)
			if i == j {
				continue
			}
			e := edge{i, j, int32(rng.IntN(15)), int32(rng.IntN(15))}
			edges = append(edges, e)
			g.addEdge(i, j, e.cij, e.c)
		}
		require.NoError(t, g.maxflow(context.Background()))
		cost := func(inSrc func(int) bool) int64 {
			c := int64(0)
			for i := range n {
				if inSrc(i) {
					c += int64(snk[i])
				} else {
					c += int64(src[i])
				}
			}
			for _, e := range edges {
				if inSrc(e.i) && !inSrc(e.j) {
					c += int64(e.cij)
				}
				if inSrc(e.j) && !inSrc(e.i) {
					c += int64(e.c)
				}
			}
			return c
		}
		best := int64(1 << 62)
		for mask := range 1 << n {
			best = min(best, cost(func(i int) bool { return mask&(1<<i) != 0 }))
		}
		got := cost(g.inSource)
		require.Equal(t, best, got, "trial %d: cut of the solver's labelling", trial)
		// Max-flow equals min-cut; terminal capacities were stored as differences, so
		// add back the shared part.
		shared := int64(0)
		for i := range n {
			shared += int64(min(src[i], snk[i]))
		}
		require.Equal(t, best, g.flow+shared, "trial %d: flow value", trial)
	}
}

func TestGraphCutHonoursCancellation(t *testing.T) {
	t.Parallel()
	g := newGraphCut(2, 1)
	g.addTerminal(0, 5, 0)
	g.addTerminal(1, 0, 5)
	g.addEdge(0, 1, 3, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, g.maxflow(ctx), context.Canceled)
}
