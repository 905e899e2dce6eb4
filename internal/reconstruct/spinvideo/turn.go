package spinvideo

import (
	"fmt"
	"math"
	"slices"
)

// Finding one turn. On a turntable the camera and the backdrop stand still and
// only the product turns, so every view comes back after one turn. Each
// thumbnail becomes its foreground (how far each pixel is from the backdrop,
// which is read per row from the frame's outer columns: a studio backdrop is
// plain or a vertical gradient) and that foreground's column and row profiles.
// The lag at which the profiles come back (allowing a shift, so a camera that
// drifts is seen as a shift, not as a product that never comes back) is found
// first; the whole foregrounds then confirm it, and pick between its multiples
// (a video of two turns) and between the turn and a half turn of a product
// that looks alike from the front and the back, which profiles confuse.

// Thresholds of the analysis, in grey levels of the thumbnails or shares of a
// measure; set on synthetic and real turntable videos (video_test.go).
const (
	fgFloor     = 6.0  // foreground below this is backdrop noise and compression
	borderDiff  = 24.0 // a border pixel this far from its usual value is product
	cutRatio    = 6.0  // a jump this many times the usual frame-to-frame change is a cut
	cutFloor    = 6.0  // and at least this many grey levels on average
	sameShare   = 0.06 // profiles changing less than this over the video: same from every side
	returnShare = 0.4  // a turn's frames differ at most this share of the most different ones
	harmShare   = 0.2  // a divisor of the lag this close to as good is the turn itself
	maxShift    = 16   // thumbnail pixels a profile may shift between compared frames
	movedShift  = 2    // thumbnail pixels (over 1 % of the width) of drift over a turn: the camera moved
	minPairs    = 3    // frames that must be seen again after one turn
	maxSlipDeg  = 3.0  // how far from even spacing a sharper frame may be taken, degrees of the turn
	sharperBy   = 1.15 // how much sharper it must be
)

// analyse finds the turn and chooses the frames; it fills rep and returns the
// chosen frames' indices in the decoded stream, increasing.
func analyse(st *stream, frames int, rep *Report) ([]int, error) {
	a := st.rate / float64(st.step) // thumbnails per second
	tsec := func(i int) float64 { return round2(float64(i) / a) }
	g := st.thumbs
	m := len(g)
	if m < 2*minPairs {
		return nil, refuse(ErrTooShort, "%d frames", len(st.sharp))
	}

	// A cut: one change between neighbouring frames far above the usual one.
	d := make([]float64, m-1)
	for i := range d {
		d[i] = mad(g[i], g[i+1])
	}
	med := median(slices.Clone(d))
	for i, v := range d {
		if v > cutFloor && v > cutRatio*max(med, 0.5) {
			return nil, refuse(ErrCut, "at %.1f s", tsec(i+1))
		}
	}

	fg := make([][]float32, m)
	cols := make([][]float64, m)
	rows := make([][]float64, m)
	for i := range g {
		fg[i] = foreground(g[i], st.tw, st.th)
		cols[i], rows[i] = profiles(fg[i], st.tw, st.th)
	}

	// The product leaving the frame: a left, right or top border pixel far from
	// its usual value (its median over the video, the backdrop as long as the
	// product covers it less than half the time), or foreground on the top row.
	// The bottom border is left out: the turntable and the table run off it.
	var border []int
	for y := range st.th {
		border = append(border, y*st.tw, y*st.tw+st.tw-1)
	}
	for x := 1; x < st.tw-1; x++ {
		border = append(border, x)
	}
	usual := make([]float32, len(border))
	vals := make([]float64, m)
	for k, p := range border {
		for i := range g {
			vals[i] = float64(g[i][p])
		}
		usual[k] = float32(median(vals))
	}
	touching := 0
	for i := range g {
		n := 0
		for k, p := range border {
			if math.Abs(float64(g[i][p]-usual[k])) > borderDiff || (p < st.tw && float64(fg[i][p]) > borderDiff) {
				n++
			}
		}
		if n >= 2 {
			touching++
			if touching >= 2 {
				return nil, refuse(ErrLeavesFrame, "at %.1f s", tsec(i))
			}
		}
	}

	// D(τ): how far the frames τ apart are from each other, over pairs spread
	// through the video.
	last := m - minPairs // the largest lag with minPairs pairs
	dl := make([]float64, last+1)
	shx := make([]float64, last+1)
	shy := make([]float64, last+1)
	for tau := 1; tau <= last; tau++ {
		pairs := m - tau
		stride := max(1, pairs/40)
		var s float64
		var sxs, sys []float64
		for i := 0; i+tau < m; i += stride {
			dc, sx := shiftedL1(cols[i], cols[i+tau])
			dr, sy := shiftedL1(rows[i], rows[i+tau])
			s += dc + dr
			sxs, sys = append(sxs, float64(sx)), append(sys, float64(sy))
		}
		dl[tau] = s / float64(len(sxs))
		shx[tau], shy[tau] = median(sxs), median(sys)
	}
	hi := slices.Max(dl[1:])
	if hi < sameShare {
		// A solid of revolution: nothing comes back because nothing changes.
		rep.SameFromEverySide = true
		return choose(st, frames, float64(len(st.sharp))/st.rate, rep), nil
	}
	leave := 1
	for leave < last && dl[leave] < hi/2 {
		leave++
	}
	// Candidates: the local minima of D after the view has changed.
	var cands []int
	for tau := leave + 1; tau < last; tau++ {
		if dl[tau] <= dl[tau-1] && dl[tau] <= dl[tau+1] {
			cands = append(cands, tau)
		}
	}
	if len(cands) == 0 {
		return nil, refuse(ErrNoFullTurn, "%.1f s filmed", rep.DurationSec)
	}
	// The whole foregrounds, aligned by the profiles' shift, decide.
	full := func(tau int) float64 {
		pairs := m - tau
		stride := max(1, pairs/40)
		var s float64
		n := 0
		for i := 0; i+tau < m; i += stride {
			s += shiftedMAD(fg[i], fg[i+tau], st.tw, st.th, int(shx[tau]), int(shy[tau]))
			n++
		}
		return s / float64(n)
	}
	peak := leave
	for tau := leave; tau <= last; tau++ {
		if dl[tau] > dl[peak] {
			peak = tau
		}
	}
	ref := full(peak)
	d2 := map[int]float64{}
	best := -1
	for _, c := range cands {
		d2[c] = full(c)
		if best < 0 || d2[c] < d2[best] {
			best = c
		}
	}
	if !(d2[best] <= returnShare*ref) {
		return nil, refuse(ErrNoFullTurn, "%.1f s filmed", rep.DurationSec)
	}
	// A video of two or three turns: the turn is the shortest lag nearly as good.
	for _, k := range []int{3, 2} {
		for _, c := range cands {
			if math.Abs(float64(c*k-best)) <= float64(k) && d2[c] <= d2[best]+harmShare*(ref-d2[best]) {
				best = c
				break
			}
		}
	}
	rep.TurnMatch = round2(max(0, 1-d2[best]/ref))
	if math.Abs(shx[best]) >= movedShift || math.Abs(shy[best]) >= movedShift {
		return nil, refuse(ErrCameraMoved, "the picture drifted %.0f %% of its width in one turn", 100*math.Hypot(shx[best], shy[best])/float64(st.tw))
	}
	// Sub-frame: a parabola through the lag's neighbours.
	tau := float64(best)
	if best-1 >= 1 && best+1 <= last {
		l, c, r := full(best-1), d2[best], full(best+1)
		if den := l - 2*c + r; den > 0 {
			tau += math.Max(-0.5, math.Min(0.5, 0.5*(l-r)/den))
		}
	}
	return choose(st, frames, tau/a, rep), nil
}

// choose spaces frames evenly over one turn of turn seconds and takes, for
// each, the sharpest decoded frame near its ideal time. Near means a quarter
// step at most, and never more than maxSlipDeg of the turn: the spin set says
// its photos are evenly spaced, and the pose search corrects each photo's
// azimuth by a few degrees only. A frame away from the ideal one is taken only
// when it is clearly sharper (a focus or exposure hunt, a shake); a turntable
// blurs every frame alike. The first photo may move too, and the others keep
// their spacing from it: it fixes the product's front.
func choose(st *stream, frames int, turn float64, rep *Report) []int {
	rep.TurnSec = round2(turn)
	step := turn / float64(frames)
	win := min(step/4, turn*maxSlipDeg/360)
	n := len(st.sharp)
	medSharp := median(slices.Clone(st.sharp))
	sharpest := func(ideal float64, after int) (int, int) {
		at := max(after+1, min(n-1, int(math.Round(ideal*st.rate))))
		best := at
		lo := max(after+1, int(math.Ceil((ideal-win)*st.rate)))
		hi := min(n-1, int(math.Floor((ideal+win)*st.rate)))
		for j := lo; j <= hi; j++ {
			if st.sharp[j] > sharperBy*st.sharp[best] {
				best = j
			}
		}
		return at, min(n-1, best)
	}
	_, first := sharpest(0, -1)
	t0 := float64(first) / st.rate
	var out []int
	for k := range frames {
		ideal := t0 + float64(k)*step
		after := -1
		if len(out) > 0 {
			after = out[len(out)-1]
		}
		at, best := sharpest(ideal, after)
		out = append(out, best)
		rep.Frames = append(rep.Frames, Frame{Sec: round2(float64(best) / st.rate), IdealSec: round2(ideal), Sharpness: math.Round(st.sharp[best]*10) / 10})
		if best != at {
			rep.Dropped = append(rep.Dropped, Drop{FromSec: round2(float64(at) / st.rate), ToSec: round2(float64(at) / st.rate),
				Reason: fmt.Sprintf("blurred (sharpness %.0f; took the frame at %.2f s, %.0f)", st.sharp[at], float64(best)/st.rate, st.sharp[best])})
		}
		if st.sharp[best] < 0.5*medSharp {
			rep.Dropped = append(rep.Dropped, Drop{FromSec: round2(ideal - win), ToSec: round2(ideal + win),
				Reason: fmt.Sprintf("no sharp frame near %.2f s (sharpness %.0f, the video's usual %.0f): this photo may be blurred", ideal, st.sharp[best], medSharp)})
		}
	}
	if t0 > 0 {
		rep.Dropped = append(rep.Dropped, Drop{FromSec: 0, ToSec: round2(t0), Reason: "before the sharpest first frame"})
	}
	if end, stop := float64(n)/st.rate, t0+turn; end-stop > 0.05 {
		rep.Dropped = append(rep.Dropped, Drop{FromSec: round2(stop), ToSec: round2(end), Reason: "after the first full turn"})
	}
	return out
}

// foreground is each pixel's distance from the backdrop, less the noise floor.
// The backdrop of a row is the median of the row's outer columns (a twentieth of
// the width on each side).
func foreground(g []float32, w, h int) []float32 {
	out := make([]float32, len(g))
	band := max(2, w/20)
	side := make([]float64, 0, 2*band)
	for y := range h {
		row := g[y*w : (y+1)*w]
		side = side[:0]
		for x := range band {
			side = append(side, float64(row[x]), float64(row[w-1-x]))
		}
		bg := float32(median(side))
		for x, v := range row {
			d := v - bg
			if d < 0 {
				d = -d
			}
			out[y*w+x] = max(0, d-fgFloor)
		}
	}
	return out
}

// profiles are the foreground's column and row means.
func profiles(f []float32, w, h int) ([]float64, []float64) {
	cols, rows := make([]float64, w), make([]float64, h)
	for y := range h {
		for x := range w {
			v := float64(f[y*w+x])
			cols[x] += v / float64(h)
			rows[y] += v / float64(w)
		}
	}
	return cols, rows
}

// shiftedL1 is the L1 distance between profiles a and b, b shifted by the best
// of ±maxShift, as a share of their mean mass; and that shift.
func shiftedL1(a, b []float64) (float64, int) {
	var mass float64
	for i := range a {
		mass += (a[i] + b[i]) / 2
	}
	if mass < 1e-9 {
		return 0, 0
	}
	best, bs := math.Inf(1), 0
	for s := -maxShift; s <= maxShift; s++ {
		var d float64
		for i := range a {
			j := i - s
			bv := 0.0
			if j >= 0 && j < len(b) {
				bv = b[j]
			}
			d += math.Abs(a[i] - bv)
			if d >= best {
				break
			}
		}
		if d < best || (d == best && abs(s) < abs(bs)) {
			best, bs = d, s
		}
	}
	return best / mass, bs
}

// shiftedMAD is the mean absolute difference of two foregrounds, b shifted by
// (sx, sy), over the pixels where either is foreground.
func shiftedMAD(a, b []float32, w, h, sx, sy int) float64 {
	var s float64
	n := 0
	for y := range h {
		yb := y - sy
		for x := range w {
			xb := x - sx
			av := a[y*w+x]
			var bv float32
			if yb >= 0 && yb < h && xb >= 0 && xb < w {
				bv = b[yb*w+xb]
			}
			if av > 0 || bv > 0 {
				s += math.Abs(float64(av - bv))
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// mad is the mean absolute difference of two thumbnails.
func mad(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += math.Abs(float64(a[i] - b[i]))
	}
	return s / float64(len(a))
}

// median of xs (xs is reordered).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
