package segment

import "context"

// graphCut is a Boykov–Kolmogorov max-flow/min-cut solver ("An Experimental Comparison
// of Min-Cut/Max-Flow Algorithms for Energy Minimization in Vision", PAMI 2004). It is
// the standard exact solver for binary labelling on image grids: it reuses its search
// trees between augmentations, which makes it much faster than generic max-flow on
// the short paths that grid graphs have. Capacities are integers so results are exact
// and deterministic.
type graphCut struct {
	// nodes
	first  []int32 // first outgoing arc, -1 for none
	parent []int32 // arc to parent, or parentNone / parentTerminal / parentOrphan
	trCap  []int32 // >0: residual source→node, <0: residual node→sink
	ts     []int32
	dist   []int32
	isSink []bool
	queued []bool
	// arcs (sister of arc a is a^1)
	head []int32
	next []int32
	rCap []int32

	queue   []int32 // FIFO of active nodes (may hold stale entries)
	qHead   int
	orphans []int32
	time    int32
	flow    int64
}

const (
	parentNone     = -1
	parentTerminal = -2
	parentOrphan   = -3
	infiniteDist   = 1 << 30
	// capInfinite is used for hard constraints; far above any sum of soft terms.
	capInfinite = 1 << 26
)

func newGraphCut(nodes, arcPairs int) *graphCut {
	g := &graphCut{
		first:  make([]int32, nodes),
		parent: make([]int32, nodes),
		trCap:  make([]int32, nodes),
		ts:     make([]int32, nodes),
		dist:   make([]int32, nodes),
		isSink: make([]bool, nodes),
		queued: make([]bool, nodes),
		head:   make([]int32, 0, 2*arcPairs),
		next:   make([]int32, 0, 2*arcPairs),
		rCap:   make([]int32, 0, 2*arcPairs),
	}
	for i := range g.first {
		g.first[i] = -1
	}
	return g
}

// addTerminal adds capacities from the source and to the sink; only their difference
// matters for the cut, which is what BK stores.
func (g *graphCut) addTerminal(i int, source, sink int32) {
	g.trCap[i] += source - sink
}

// addEdge adds an edge i–j with capacity capIJ from i to j and capJI back.
func (g *graphCut) addEdge(i, j int, capIJ, capJI int32) {
	a := int32(len(g.head))
	g.head = append(g.head, int32(j), int32(i))
	g.rCap = append(g.rCap, capIJ, capJI)
	g.next = append(g.next, g.first[i], g.first[j])
	g.first[i] = a
	g.first[j] = a + 1
}

func (g *graphCut) setActive(i int32) {
	if !g.queued[i] {
		g.queued[i] = true
		g.queue = append(g.queue, i)
	}
}

func (g *graphCut) nextActive() int32 {
	for g.qHead < len(g.queue) {
		i := g.queue[g.qHead]
		g.qHead++
		g.queued[i] = false
		if g.parent[i] != parentNone {
			return i
		}
	}
	// Compact the queue once it has been fully consumed.
	g.queue = g.queue[:0]
	g.qHead = 0
	return -1
}

// maxflow computes the minimum cut, checking ctx every few thousand iterations.
func (g *graphCut) maxflow(ctx context.Context) error {
	for i := range g.first {
		switch {
		case g.trCap[i] > 0:
			g.isSink[i] = false
			g.parent[i] = parentTerminal
			g.setActive(int32(i))
			g.dist[i] = 1
		case g.trCap[i] < 0:
			g.isSink[i] = true
			g.parent[i] = parentTerminal
			g.setActive(int32(i))
			g.dist[i] = 1
		default:
			g.parent[i] = parentNone
		}
	}
	current := int32(-1)
	for iter := 0; ; iter++ {
		if iter&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := current
		if i >= 0 {
			g.queued[i] = false
			if g.parent[i] == parentNone {
				i = -1
			}
		}
		if i < 0 {
			if i = g.nextActive(); i < 0 {
				break
			}
		}
		// Growth stage.
		found := int32(-1)
		if !g.isSink[i] {
			for a := g.first[i]; a >= 0; a = g.next[a] {
				if g.rCap[a] == 0 {
					continue
				}
				j := g.head[a]
				switch {
				case g.parent[j] == parentNone:
					g.isSink[j] = false
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
					g.setActive(j)
				case g.isSink[j]:
					found = a
				case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
				}
				if found >= 0 {
					break
				}
			}
		} else {
			for a := g.first[i]; a >= 0; a = g.next[a] {
				if g.rCap[a^1] == 0 {
					continue
				}
				j := g.head[a]
				switch {
				case g.parent[j] == parentNone:
					g.isSink[j] = true
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
					g.setActive(j)
				case !g.isSink[j]:
					found = a ^ 1
				case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
				}
				if found >= 0 {
					break
				}
			}
		}
		g.time++
		if found < 0 {
			current = -1
			continue
		}
		g.queued[i] = true // keep i active: it is processed again next iteration
		current = i
		g.augment(found)
		// Adoption stage.
		for len(g.orphans) > 0 {
			o := g.orphans[0]
			g.orphans = g.orphans[1:]
			if g.isSink[o] {
				g.processSinkOrphan(o)
			} else {
				g.processSourceOrphan(o)
			}
		}
		g.orphans = g.orphans[:0]
	}
	return nil
}

func (g *graphCut) setOrphan(i int32) {
	g.parent[i] = parentOrphan
	g.orphans = append(g.orphans, i)
}

// augment pushes the bottleneck flow along source-tree → middle arc → sink-tree.
func (g *graphCut) augment(middle int32) {
	bottleneck := g.rCap[middle]
	// Source tree.
	for i := g.head[middle^1]; ; {
		a := g.parent[i]
		if a == parentTerminal {
			bottleneck = min(bottleneck, g.trCap[i])
			break
		}
		bottleneck = min(bottleneck, g.rCap[a^1])
		i = g.head[a]
	}
	// Sink tree.
	for i := g.head[middle]; ; {
		a := g.parent[i]
		if a == parentTerminal {
			bottleneck = min(bottleneck, -g.trCap[i])
			break
		}
		bottleneck = min(bottleneck, g.rCap[a])
		i = g.head[a]
	}
	g.rCap[middle^1] += bottleneck
	g.rCap[middle] -= bottleneck
	for i := g.head[middle^1]; ; {
		a := g.parent[i]
		if a == parentTerminal {
			g.trCap[i] -= bottleneck
			if g.trCap[i] == 0 {
				g.setOrphan(i)
			}
			break
		}
		g.rCap[a] += bottleneck
		g.rCap[a^1] -= bottleneck
		if g.rCap[a^1] == 0 {
			g.setOrphan(i)
		}
		i = g.head[a]
	}
	for i := g.head[middle]; ; {
		a := g.parent[i]
		if a == parentTerminal {
			g.trCap[i] += bottleneck
			if g.trCap[i] == 0 {
				g.setOrphan(i)
			}
			break
		}
		g.rCap[a^1] += bottleneck
		g.rCap[a] -= bottleneck
		if g.rCap[a] == 0 {
			g.setOrphan(i)
		}
		i = g.head[a]
	}
	g.flow += int64(bottleneck)
}

// originDist returns the distance from j to its tree's terminal, or infiniteDist when
// j hangs below an orphan, marking the visited path with the current time stamp.
func (g *graphCut) originDist(j int32) int32 {
	d := int32(0)
	for k := j; ; {
		if g.ts[k] == g.time {
			d += g.dist[k]
			break
		}
		a := g.parent[k]
		d++
		if a == parentTerminal {
			g.ts[k] = g.time
			g.dist[k] = 1
			break
		}
		if a == parentOrphan || a == parentNone {
			return infiniteDist
		}
		k = g.head[a]
	}
	// Mark the path so later searches stop early.
	dd := d
	for k := j; g.ts[k] != g.time; k = g.head[g.parent[k]] {
		g.ts[k] = g.time
		g.dist[k] = dd
		dd--
	}
	return d
}

func (g *graphCut) processSourceOrphan(i int32) {
	bestArc, bestDist := int32(-1), int32(infiniteDist)
	for a := g.first[i]; a >= 0; a = g.next[a] {
		if g.rCap[a^1] == 0 {
			continue
		}
		j := g.head[a]
		if g.isSink[j] || g.parent[j] == parentNone {
			continue
		}
		if d := g.originDist(j); d < infiniteDist && d < bestDist {
			bestArc, bestDist = a, d
		}
	}
	if bestArc >= 0 {
		g.parent[i] = bestArc
		g.ts[i] = g.time
		g.dist[i] = bestDist + 1
		return
	}
	g.parent[i] = parentNone
	for a := g.first[i]; a >= 0; a = g.next[a] {
		j := g.head[a]
		pa := g.parent[j]
		if g.isSink[j] || pa == parentNone {
			continue
		}
		if g.rCap[a^1] > 0 {
			g.setActive(j)
		}
		if pa != parentTerminal && pa != parentOrphan && g.head[pa] == i {
			g.setOrphan(j)
		}
	}
}

func (g *graphCut) processSinkOrphan(i int32) {
	bestArc, bestDist := int32(-1), int32(infiniteDist)
	for a := g.first[i]; a >= 0; a = g.next[a] {
		if g.rCap[a] == 0 {
			continue
		}
		j := g.head[a]
		if !g.isSink[j] || g.parent[j] == parentNone {
			continue
		}
		if d := g.originDist(j); d < infiniteDist && d < bestDist {
			bestArc, bestDist = a, d
		}
	}
	if bestArc >= 0 {
		g.parent[i] = bestArc
		g.ts[i] = g.time
		g.dist[i] = bestDist + 1
		return
	}
	g.parent[i] = parentNone
	for a := g.first[i]; a >= 0; a = g.next[a] {
		j := g.head[a]
		pa := g.parent[j]
		if !g.isSink[j] || pa == parentNone {
			continue
		}
		if g.rCap[a] > 0 {
			g.setActive(j)
		}
		if pa != parentTerminal && pa != parentOrphan && g.head[pa] == i {
			g.setOrphan(j)
		}
	}
}

// inSource reports whether node i ends on the source side of the minimum cut.
func (g *graphCut) inSource(i int) bool {
	return g.parent[i] != parentNone && !g.isSink[i]
}
