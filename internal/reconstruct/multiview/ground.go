package multiview

import (
	"math"
	"slices"
)

// Ground contact: a product stands on the floor, so the lowest stretch of its
// silhouette's lower outline is the near boundary of its footprint (or of its
// contact shadow, which lies on the same floor). Seen from above at the angle α
// (the depression of the line of sight to that boundary), the footprint's depth is
// foreshortened by sin α. From the lowest point P of the outline, the chords to
// the ends L and R of the stretch have image slopes whose product is sin²α when
// P→L and P→R are perpendicular directions on the floor: for a round base (P, L
// and R on a circle with L and R at the ends of a diameter, Thales) and for a
// box's bottom corner (its two edges), whatever the azimuth. The camera's pitch is
// α less the angle between the optical axis and the ray through P.
//
// The cue fails where the footprint shows no corner or curve: a box seen face-on
// has a flat lower outline, so flat or narrow stretches give no estimate.

// UseGroundPrior centres the pose search's elevation prior on GroundPrior instead
// of the usual 12°. On since the pose search also searches with the take-back
// (PoseTakeBack): together they raise the real set's four-photo F@5 0.602 →
// 0.622; alone, with the strict masks' poses, it had lowered it (0.564 → 0.561,
// Corset −0.048); the history of docs/reconstruction.md (git log -p).
var UseGroundPrior = true

// groundCue is one view's elevation estimate from its ground contact.
type groundCue struct {
	El    float64 // camera pitch, radians
	Alpha float64 // depression of the ray through the lowest outline point, radians
	Width float64 // the contact stretch's width, working pixels
	Ok    bool
}

// groundMinSag is the least rise, in pixels, of each chord of the contact
// stretch: below it the outline is taken as flat (a box face-on) and the view
// gives no estimate.
const groundMinSag = 2.0

// GroundElevation estimates the camera pitch of a view from its mask's lower
// outline (working pixels, alpha ≥ 128) and the focal length f in pixels.
func GroundElevation(alpha []uint8, w, h int, f float64) groundCue {
	bot := make([]int, w) // lowest mask row per column, −1 where none
	x0, x1 := w, -1
	yTop, yBot := h, -1
	for x := range w {
		bot[x] = -1
	}
	for y := range h {
		row := alpha[y*w : (y+1)*w]
		for x, a := range row {
			if a >= 128 {
				bot[x] = y
				x0, x1 = min(x0, x), max(x1, x)
				yTop, yBot = min(yTop, y), max(yBot, y)
			}
		}
	}
	if x1 < x0 {
		return groundCue{}
	}
	height := float64(yBot - yTop + 1)
	// P: the middle of the columns whose outline is at the lowest row (within a
	// pixel).
	var sum, n int
	for x := x0; x <= x1; x++ {
		if bot[x] >= yBot-1 {
			sum += x
			n++
		}
	}
	p := sum / n
	for bot[p] < yBot-1 { // the middle of two lowest feet: take one of them
		p++
	}
	// The stretch around P: the outline rises (or stays) away from P without a
	// jump (a jump leaves the floor: a wider part above, a gap between legs).
	jump := max(3, int(math.Round(0.08*height)))
	walk := func(dir int) int {
		x := p
		for {
			nx := x + dir
			if nx < x0 || nx > x1 || bot[nx] < 0 {
				return x
			}
			d := bot[x] - bot[nx] // > 0: rising away from P
			if d > jump || d < -2 {
				return x
			}
			x = nx
		}
	}
	l, r := walk(-1), walk(1)
	width := float64(r - l)
	sl, sr := float64(bot[p]-bot[l]), float64(bot[p]-bot[r])
	// A round base's outline ends in a vertical tangent between two columns: the
	// last column's centre is half a column short of it, a rise of about
	// √½/(√1.5 − √½) of that column's own rise still missing (the outline near a
	// vertical tangent grows as the square root of the distance to it).
	const endRise = 0.70710678 / (1.22474487 - 0.70710678)
	if l < p {
		sl += endRise * float64(bot[l+1]-bot[l])
	}
	if r > p {
		sr += endRise * float64(bot[r-1]-bot[r])
	}
	if l == p || r == p || sl < groundMinSag || sr < groundMinSag || width < 0.15*float64(x1-x0+1) {
		return groundCue{Width: width}
	}
	s := math.Sqrt(sl / float64(p-l) * sr / float64(r-p))
	// Perspective: the outline's ends are where the lines of sight graze the
	// footprint, nearer to the camera than its widest line by about ρ = r/D of
	// its half-width r (D the ground distance to it), so the chords rise by
	// (1 − ρ) of what an orthographic view shows. r/D is the half-width's angle
	// over cos α; a few fixed-point steps settle α.
	rho := width / 2 / f
	a := math.Asin(min(s, 0.99))
	for range 4 {
		a = math.Asin(min(s/math.Max(0.2, 1-rho/math.Cos(a)), 0.99))
	}
	if s >= 0.99 || a >= math.Asin(0.99) {
		return groundCue{Width: width}
	}
	// The ray through P is atan((yP − cy)/f) below the optical axis.
	off := math.Atan((float64(bot[p]) + 0.5 - float64(h)/2) / f)
	return groundCue{El: a - off, Alpha: a, Width: width, Ok: true}
}

// GroundPrior is the elevation the pose search's prior is centred on: halfway
// between the usual product shot's and the median of the views' non-negative
// ground cues (a negative pitch, the camera looking up at a product on the
// floor, means the cue failed). On the real set's masks the cue alone is worse
// than the fixed prior (per view 8.4° mean error against 5.3°) and the halfway
// point better (4.5°); without any cue it is usual.
func GroundPrior(vs []*View, usual float64) float64 {
	var els []float64
	for _, v := range vs {
		if c := GroundElevation(v.Alpha, v.P.W, v.P.H, v.F0); c.Ok && c.El >= 0 {
			els = append(els, c.El)
		}
	}
	if len(els) == 0 {
		return usual
	}
	slices.Sort(els)
	k := len(els) / 2
	m := els[k]
	if len(els)%2 == 0 {
		m = (els[k-1] + els[k]) / 2
	}
	return (usual + m) / 2
}
