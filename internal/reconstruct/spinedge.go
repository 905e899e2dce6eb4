package reconstruct

import (
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// A photo in which the product runs far off the frame can leave the segmenter
// nothing to cut: its backdrop model is read from the frame's border, and a
// cut-off product on that border is taken for backdrop, so the mask falls back
// to the whole frame (View.Unseparated). Such a photo has no outline to check
// against the frame, yet a spin set says what its border should look like:
// the camera of a ring does not move, so where the ring's other photos show
// the backdrop on their border, this one should too. A side of it that shows
// something else over spinFrameTouch of its length is the product running off
// that side (a cabinet framed so close that a third of it is cut off). A photo
// whose border differs from the ring's backdrop almost all round is another
// scene (a stray photo, a close-up over a busy table), not a product cut by
// the frame: it stays left out, as no product told apart.

// spinEdgeDeltaE is the colour distance (CIELAB ΔE) from the backdrop the
// ring's other photos show at a border pixel beyond which that pixel shows
// something else. A fixed camera sees the same backdrop in every photo of a
// turn to within a few units (sensor noise, JPEG); a product differs by tens.
const spinEdgeDeltaE = 15

// spinEdgeMinRefs is how many of the ring's other photos must show the
// backdrop at a border pixel for it to be judged.
const spinEdgeMinRefs = 2

// spinEdgeOtherScene is the share of the whole border (all four sides) that
// differs from the ring's backdrop beyond which the photo shows another scene.
// A product cut by one side changes a part of that side (the Playwright
// cabinet a third out of the frame: 12 % of the border).
const spinEdgeOtherScene = 0.5

// unseparatedOffFrame reports whether the left, right or top side of v, a
// photo whose mask fell back to the whole frame, shows something other than
// the backdrop that refs (photos of the same ring with an outline, the same
// size) show there.
func unseparatedOffFrame(v *multiview.View, refs []*multiview.View) bool {
	table := segment.SrgbLinearTable()
	w, h := v.P.W, v.P.H
	lab := func(p *segment.Photo, x, y int) segment.Lab {
		o := y*p.Img.Stride + 4*x
		return segment.ToLab(table, p.Img.Pix[o], p.Img.Pix[o+1], p.Img.Pix[o+2])
	}
	// off counts the side's pixels (x, y) = at(k), k < n, that differ from the
	// median backdrop the references show there, and those judged.
	off := func(n int, at func(k int) (int, int)) (count, judged int) {
		ls, as, bs := make([]float64, 0, len(refs)), make([]float64, 0, len(refs)), make([]float64, 0, len(refs))
		for k := range n {
			x, y := at(k)
			ls, as, bs = ls[:0], as[:0], bs[:0]
			for _, r := range refs {
				if r.Seg.Alpha[y*r.Seg.W+x] >= 128 {
					continue // the product there, in that photo
				}
				c := lab(r.P, x, y)
				ls, as, bs = append(ls, float64(c.L)), append(as, float64(c.A)), append(bs, float64(c.B))
			}
			if len(ls) < spinEdgeMinRefs {
				continue
			}
			judged++
			c := lab(v.P, x, y)
			dl, da, db := float64(c.L)-median(ls), float64(c.A)-median(as), float64(c.B)-median(bs)
			if math.Sqrt(dl*dl+da*da+db*db) > spinEdgeDeltaE {
				count++
			}
		}
		return count, judged
	}
	sides := []struct {
		n      int
		at     func(k int) (int, int)
		bottom bool // the turntable runs off it: it only tells another scene
	}{
		{w, func(k int) (int, int) { return k, 0 }, false},     // top
		{h, func(k int) (int, int) { return 0, k }, false},     // left
		{h, func(k int) (int, int) { return w - 1, k }, false}, // right
		{w, func(k int) (int, int) { return k, h - 1 }, true},  // bottom
	}
	cut := false
	differ, judged := 0, 0
	for _, s := range sides {
		n, j := off(s.n, s.at)
		differ, judged = differ+n, judged+j
		if !s.bottom && float64(n) >= spinFrameTouch*float64(s.n) {
			cut = true
		}
	}
	return cut && float64(differ) <= spinEdgeOtherScene*float64(judged)
}

// median is the middle value of xs (the mean of the middle two); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	k := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[k]
	}
	return (xs[k-1] + xs[k]) / 2
}
