package shape

import "github.com/photo3d/photo3d/internal/reconstruct/segment"

// Legs under a body seen at an angle.
//
// ClassifySilhouette finds legs by walking up from the floor through rows made only
// of narrow runs. Seen at an angle, a long piece of furniture (a curved sofa, a bench,
// a sideboard) shows its underside as a slanted or stepped line: the near end's body
// reaches lower than the far end's legs, so no row holds legs at both ends, and the
// walk stops at the near end's body. legsUnderBody instead looks under the body
// column by column.

// Leg detection constants, as shares of the silhouette's width W or height H.
const (
	bodyRunOfWidth  = 0.1  // a run this wide (of W) or wider is body, narrower is leg
	legMinOfHeight  = 0.08 // a leg hangs at least this far (of H) under the body
	legsMinCount    = 3    // legs seen (four-legged furniture shows three or four)
	legsMinSpread   = 0.5  // the legs' feet spread over at least this share of W
	legsMaxArea     = 0.1  // the legs together cover at most this share of the mask
	legFootOfHeight = 0.3  // the lowest foot is the silhouette's bottom; every foot of a
	// leg counted is within this share of H from it (a hanging part does not reach
	// the floor)
)

// legsUnderBody reports the row (working pixels) under which only legs are left, when
// the silhouette is a body standing on at least legsMinCount thin legs spread across
// its width, each hanging under the body and reaching towards the floor.
func legsUnderBody(seg *segment.Segmentation) (legTop int, ok bool) {
	b := seg.Bbox
	W, H := float64(b.Dx()), float64(b.Dy())
	if W < 16 || H < 16 {
		return 0, false
	}
	thick := max(2, int(bodyRunOfWidth*W))
	// The body's lowest row per column.
	bodyBottom := make([]int, b.Dx())
	for i := range bodyBottom {
		bodyBottom[i] = -1
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for _, r := range rowRuns(seg, y) {
			if r[1]-r[0] < thick {
				continue
			}
			for x := r[0]; x < r[1]; x++ {
				bodyBottom[x-b.Min.X] = y
			}
		}
	}
	// Leg pixels: narrow runs under the body's bottom in their columns (or, where a
	// splayed leg leaves the body's columns, under the nearest body column's bottom).
	nearDist := make([]int, len(bodyBottom))
	under := make([]int, len(bodyBottom)) // the body's bottom at or nearest to each column
	for i := range under {
		under[i], nearDist[i] = b.Max.Y, b.Dx()
	}
	for pass := range 2 {
		last, dist := -1, 0
		for k := range bodyBottom {
			i := k
			if pass == 1 {
				i = len(bodyBottom) - 1 - k
			}
			if bodyBottom[i] >= 0 {
				last, dist = bodyBottom[i], 0
			} else {
				dist++
			}
			if last >= 0 && (pass == 0 || bodyBottom[i] >= 0 || dist < nearDist[i]) {
				under[i] = last
				nearDist[i] = dist
			}
		}
	}
	nearestBottom := func(x int) int { return under[x-b.Min.X] }
	leg := make([]bool, seg.W*seg.H)
	area, legArea := 0, 0
	lowestBody := -1
	for _, v := range bodyBottom {
		lowestBody = max(lowestBody, v)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for _, r := range rowRuns(seg, y) {
			area += r[1] - r[0]
			if r[1]-r[0] >= thick {
				continue
			}
			for x := r[0]; x < r[1]; x++ {
				if y > nearestBottom(x) {
					leg[y*seg.W+x] = true
					legArea++
				}
			}
		}
	}
	if lowestBody < 0 || float64(legArea) > legsMaxArea*float64(area) {
		return 0, false
	}
	// Connected leg pieces: their top (where they meet the body) and foot.
	type piece struct{ top, topX, foot, footX int }
	var pieces []piece
	seen := make([]bool, len(leg))
	var stack []int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			i := y*seg.W + x
			if !leg[i] || seen[i] {
				continue
			}
			seen[i] = true
			p := piece{top: y, topX: x, foot: y, footX: x}
			stack = append(stack[:0], i)
			for len(stack) > 0 {
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				cx, cy := c%seg.W, c/seg.W
				if cy > p.foot {
					p.foot, p.footX = cy, cx
				}
				if cy < p.top {
					p.top, p.topX = cy, cx
				}
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						xx, yy := cx+dx, cy+dy
						if xx < b.Min.X || yy < b.Min.Y || xx >= b.Max.X || yy >= b.Max.Y {
							continue
						}
						j := yy*seg.W + xx
						if leg[j] && !seen[j] {
							seen[j] = true
							stack = append(stack, j)
						}
					}
				}
			}
			pieces = append(pieces, p)
		}
	}
	n, x0, x1 := 0, b.Max.X, b.Min.X
	floor := b.Max.Y - 1
	for _, p := range pieces {
		// A leg meets the body (its top just under the body's bottom there), hangs
		// far enough and reaches towards the floor.
		if float64(p.foot-p.top) < legMinOfHeight*H || float64(floor-p.foot) > legFootOfHeight*H {
			continue
		}
		if p.top-nearestBottom(p.topX) > 2+int(0.02*H) {
			continue
		}
		n++
		x0, x1 = min(x0, p.footX), max(x1, p.footX)
	}
	if n < legsMinCount || float64(x1-x0) < legsMinSpread*W {
		return 0, false
	}
	return lowestBody + 1, true
}
