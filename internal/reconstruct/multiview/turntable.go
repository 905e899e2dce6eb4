package multiview

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
)

// Poses of a turntable spin set (issue 48 §2). Free-form pose search has five
// unknowns per photo, and with 24 photos its silhouettes no longer pin them down;
// structure from motion finds too few features on plain products. A turntable
// guarantees what hand-held photos do not: the product turns about one vertical
// axis in front of a fixed camera, so within a ring every photo shares the
// camera's elevation, distance and aim, and the azimuths step evenly over one
// turn. What is left is a handful of unknowns per ring (elevation, distance,
// phase, the pixel the axis passes through) and one focal length for the set,
// refined by silhouette coherence (Hernández, Schmitt & Cipolla, "Silhouette
// coherence for camera calibration under circular motion", PAMI 2007), then
// small per-photo azimuth corrections, each penalised, for a turntable that
// does not step exactly evenly.

// SpinRing is one ring of a spin set: its views in shooting order, evenly spaced
// over one turn, and the elevation the merchant stated (degrees above the
// product's centre; only approximate).
type SpinRing struct {
	Views   []*View
	ElevDeg float64
	// AnyPhase: the ring's first photo may face any way (a turntable video,
	// started wherever the product stood), so its phase is searched over the
	// whole turn, not only within half a step of the first ring's front.
	AnyPhase bool
	// Turn is which way the photos go round the product. One turntable turns
	// every ring the same way, so the search reads the first ring's.
	Turn SpinTurn
}

// SpinTurn is which way a spin set's photos go round the product. Turntables
// turn either way, and a merchant names the photos in the order they were
// taken, so the order alone does not say which: taken the other way, every
// photo's azimuth is the negative of the one the search assumes, the
// silhouettes contradict each other, and the model is a wreck (a chair: F@5
// 0.971 one way, 0.040 the other).
type SpinTurn int8

const (
	// TurnUnknown: SearchTurntable settles the set both ways and keeps the way
	// the silhouettes agree on (spinTurnMargin).
	TurnUnknown SpinTurn = iota
	// TurnForward: from one photo to the next the camera's azimuth rises.
	TurnForward
	// TurnBackward: it falls; the turntable turned the other way.
	TurnBackward
)

// spinTurnMargin is how much better (in coherence, settled on the coarse
// grid) a set must agree turned backwards before it is taken to be: a product
// that looks alike both ways (a vase) ties, and keeps the forward turn.
const spinTurnMargin = 0.01

// SpinDebugTurn, when set, is told the settled objective of both turns
// (diagnostics).
var SpinDebugTurn func(forward, backward float64)

// anyPhaseMargin is how much better (in coherence) another whole-step phase
// of an AnyPhase ring must settle than facing the front before it is taken.
const anyPhaseMargin = 0.01

// spinPhaseCandidates is how many whole-step phases of an AnyPhase ring,
// besides the front, are settled before one is chosen.
const spinPhaseCandidates = 3

// SpinDebugPhase, when set, is told each settled phase candidate of an
// AnyPhase ring and its objective against the best so far (diagnostics).
var SpinDebugPhase func(ring int, phase, score, best float64)

// SpinResidual is what the turntable search reports about the fit.
type SpinResidual struct {
	// Coherence is the mean share of each silhouette the carved hull covers (1:
	// every photo agrees with every other).
	Coherence float64
	// MaxAzCorrection is the largest per-photo azimuth correction, degrees.
	MaxAzCorrection float64
	// ElevDeg is each ring's elevation as found, degrees.
	ElevDeg []float64
	// Turn is which way the photos go round the product, as given or found.
	Turn SpinTurn
	// LeaveOneOut is, per photo, how well the hull of the other photos matches its
	// silhouette (intersection over union, turntable_outliers.go).
	LeaveOneOut []float64
	// Dropped are the photos left out of the carve (distrustOutliers), and
	// those in which no product was told apart (View.Unseparated).
	Dropped []int
	// Evaluations is how many layouts the search scored, and Remembered how
	// many of those it had scored before and looked up (SpinRememberLayouts).
	Evaluations, Remembered int
}

// SpinRememberLayouts: the search looks up the layouts it has already scored
// instead of scoring them again (a variable so a test can compare the two).
var SpinRememberLayouts = true

// turntableTie penalises a photo's azimuth correction (per radian²): a
// 2° correction costs 0.0024 of coherence, about what one photo gains when its
// azimuth is right: a slip is corrected only where its silhouette says so.
const turntableTie = 2.0

// SpinBoxMargin widens the searched hull's box on every side, as a share of its
// longest side, before the fine carve.
var SpinBoxMargin = 0.15

// SpinFineGrid is the grid of the search's last round (0: the coarse one).
var SpinFineGrid = 96

// SpinDistrust leaves photos that disagree with the rest out of the carve.
var SpinDistrust = true

// SpinEscapeDeg is how far escape moves each ring's height (0: no escape).
var SpinEscapeDeg = 5.0

// SpinEscapeRound is the round of the search after which escape runs.
var SpinEscapeRound = 2

// spinEscapePasses caps the passes of escape over the rings: a ring moved in
// one pass may move again in the next (olive dish: 20° → 24° → 29°, true 29°).
const spinEscapePasses = 3

// spinEscapeGain is how much better (in coherence) a moved ring's settled
// layout must agree before it is kept.
const spinEscapeGain = 0.005

// SpinDebugEscape, when set, is told each escape tried: the ring, its height's
// move (degrees) and the settled objective less the one it left.
var SpinDebugEscape func(ring int, dEl, gain float64)

// SpinRounds is the number of rounds of the turntable search's coordinate
// descent (a variable so the benchmark can measure the starting layout alone).
var SpinRounds = 4

// SearchTurntable finds the cameras of a spin set. The first photo of the first
// ring fixes the frame (its azimuth is 0: the product's front on +Z); the first
// photo of every other ring faces about the same way (give or take half a step),
// or, for an AnyPhase ring, any way. turned, when not nil, is told which way
// the photos go round as soon as that is known (the first ring's Turn, or what
// the first two settles find), before the rest of the search: the spin set's
// halves start their own searches from it (SpinHalves.Start).
func SearchTurntable(ctx context.Context, rings []SpinRing, turned func(SpinTurn)) (PoseResult, SpinResidual, error) {
	deg := math.Pi / 180
	var vs []*View
	type ringPose struct {
		el, phase, ls, du, dv float64
		phase0                float64 // the whole-step phase the search starts from (0 but for AnyPhase rings)
		baseZ                 float64 // the ring's distance at ls = 0
		jit                   []float64
	}
	rp := make([]*ringPose, len(rings))
	for r, ring := range rings {
		vs = append(vs, ring.Views...)
		var dvs, zs []float64
		for _, v := range ring.Views {
			dvs, zs = append(dvs, v.Dv), append(zs, v.BaseZ)
		}
		rp[r] = &ringPose{el: ring.ElevDeg * deg, du: axisColumn(ring.Views), dv: median(dvs), baseZ: median(zs), jit: make([]float64, len(ring.Views))}
	}
	lens := 0.0
	turn := rings[0].Turn
	dir := 1.0 // -1: the turntable turned backwards (SpinTurn)
	if turn == TurnBackward {
		dir = -1
	}
	apply := func(r int) {
		p := rp[r]
		n := float64(len(rings[r].Views))
		for k, v := range rings[r].Views {
			v.Az = p.phase + dir*2*math.Pi*float64(k)/n + p.jit[k]
			v.El = p.el
			v.Lf = lens
			// v.BaseZ·e^Ls is the ring's distance, whatever the photo's own silhouette.
			v.Ls = p.ls + math.Log(p.baseZ/v.BaseZ)
			v.Du, v.Dv = p.du, p.dv
			v.Update()
		}
	}
	applyAll := func() {
		for r := range rings {
			apply(r)
		}
	}
	applyAll()

	// Photos whose silhouette jumps in size from their neighbours' (a mask that
	// lost the product's base, or took in the turntable) are left out of the
	// search: the hull they carve would pull every camera towards them. Whether
	// they join the carve is decided once the others have found the cameras.
	suspect := sizeSuspects(rings)
	for i, v := range vs {
		// A photo with no product told apart has no silhouette to trust.
		suspect[i] = suspect[i] || v.Unseparated
	}
	trusted, _ := trustedViews(vs, suspect)
	ringHeight := func(r int) float64 { // the tallest trusted silhouette of ring r
		h := 0.0
		for k, v := range rings[r].Views {
			if !suspect[ringStartIndex(rings, r)+k] {
				h = max(h, v.bbox[3]-v.bbox[1])
			}
		}
		return h
	}

	wide := 0.0
	for _, v := range trusted {
		wide = max(wide, (v.bbox[2]-v.bbox[0])/math.Max(1, v.bbox[3]-v.bbox[1]))
	}
	rad := 0.6*max(1, wide) + 0.15
	e := NewCoherenceEval(trusted, GridFor([3]float64{-rad, -0.75, -rad}, [3]float64{rad, 0.75, rad}, 40))
	if e.Score(); !(e.Hi[0] > e.Lo[0]) {
		return PoseResult{}, SpinResidual{}, segment.ErrSubjectNotSeparated
	}
	refit := func(n int) {
		m := 2 * e.g.S
		e = NewCoherenceEval(trusted, GridFor(
			[3]float64{e.Lo[0] - m, e.Lo[1] - m, e.Lo[2] - m},
			[3]float64{e.Hi[0] + m, e.Hi[1] + m, e.Hi[2] + m}, n))
	}
	// The search comes back to layouts it has scored (a settle repeated from
	// the same phases, the trials of a descent's pass that no step changed
	// since), a sixth of its evaluations on a solid tray: each layout's score
	// and hull box are remembered, on its grid. A score is a function of the
	// cameras and the grid alone (the memo test), so the search takes the same
	// path, bit for bit.
	type scored struct {
		s      float64
		lo, hi [3]float64
	}
	scores := map[string]scored{}
	evaluations, remembered := 0, 0
	var key []byte
	objective := func() float64 {
		key = key[:0]
		put := func(f float64) { key = binary.LittleEndian.AppendUint64(key, math.Float64bits(f)) }
		g := e.g
		for _, f := range [...]float64{g.Lo[0], g.Lo[1], g.Lo[2], g.S, float64(g.Nx), float64(g.Ny), float64(g.Nz), lens, dir} {
			put(f)
		}
		for _, p := range rp {
			for _, f := range [...]float64{p.el, p.phase, p.ls, p.du, p.dv} {
				put(f)
			}
			for _, j := range p.jit {
				put(j)
			}
		}
		evaluations++
		known, ok := scores[string(key)]
		if ok && SpinRememberLayouts {
			remembered++
			e.Lo, e.Hi = known.lo, known.hi
		} else {
			known = scored{e.Score(), e.Lo, e.Hi}
			scores[string(key)] = known
		}
		s := known.s
		for _, p := range rp {
			for _, j := range p.jit {
				s -= turntableTie * j * j
			}
		}
		return s
	}
	// An AnyPhase ring's whole-step phase. On the wide grid, before the lens and
	// the rings' distances are found, every step of a video's ring scores within
	// a few hundredths of the others (a toy car's: 0.66–0.69, the right one not
	// the best), so the search does not commit there: the front and the best
	// spinPhaseCandidates other steps are each settled (the coarse scans below)
	// and the best settled layout is kept. The box the search then shrinks to
	// is the chosen layout's hull: a box from rings that disagree would be too
	// small for the right phase to show.
	type ringStart struct{ el, ls, du, dv float64 }
	starts := make([]ringStart, len(rp))
	for r, p := range rp {
		starts[r] = ringStart{p.el, p.ls, p.du, p.dv}
	}
	wideE := e
	// toStart puts every ring back where the search starts: the stated layout,
	// every ring from the front, no lens, the wide grid.
	toStart := func(phases []float64) {
		for r, p := range rp {
			s := starts[r]
			p.el, p.ls, p.du, p.dv = s.el, s.ls, s.du, s.dv
			p.phase, p.phase0 = phases[r], phases[r]
		}
		lens = 0
		e = wideE
		applyAll()
	}
	// phaseCandidates scores every whole-step phase of each AnyPhase ring from
	// the start (see above) and returns the best spinPhaseCandidates of each.
	phaseCandidates := func() [][]float64 {
		cands := make([][]float64, len(rings))
		for r := 1; r < len(rings); r++ {
			if !rings[r].AnyPhase {
				continue
			}
			if cands[0] == nil {
				toStart(make([]float64, len(rings)))
				cands[0] = []float64{} // the first ring is the frame: never moved
			}
			p := rp[r]
			step := 2 * math.Pi / float64(len(rings[r].Views))
			type scored struct{ phase, s float64 }
			var steps []scored
			for k := 1; k < len(rings[r].Views); k++ {
				p.phase = float64(k) * step
				apply(r)
				steps = append(steps, scored{p.phase, objective()})
			}
			p.phase = 0
			apply(r)
			slices.SortStableFunc(steps, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
			for _, c := range steps[:min(len(steps), spinPhaseCandidates)] {
				cands[r] = append(cands[r], c.phase)
			}
		}
		return cands
	}
	// A layout the search may come back to: every ring's pose, the lens and the
	// grid with the hull's box that refit reads.
	type layout struct {
		rp     []ringPose
		lens   float64
		e      *coherenceEval
		lo, hi [3]float64
	}
	save := func() layout {
		l := layout{lens: lens, e: e, lo: e.Lo, hi: e.Hi}
		for _, p := range rp {
			c := *p
			c.jit = slices.Clone(p.jit)
			l.rp = append(l.rp, c)
		}
		return l
	}
	restore := func(l layout) {
		for r, p := range rp {
			jit := p.jit
			*p = l.rp[r]
			p.jit = jit
			copy(p.jit, l.rp[r].jit)
		}
		lens, e = l.lens, l.e
		applyAll()
		e.Lo, e.Hi = l.lo, l.hi
	}
	// settle puts every ring back at its start with the given whole-step phases,
	// finds the lens, then each further ring's distance, height of aim and phase
	// against the first ring, and returns the objective there.
	settle := func(phases []float64) float64 {
		toStart(phases)
		objective() // the hull's box (e.Lo, e.Hi) that refit reads
		refit(40)

		// The focal length first, on a coarse scan: it scales every cone at once.
		bestLens, bestS := lens, math.Inf(-1)
		for _, mm := range []float64{24, 26, 28, 32, 35, 42, 50} {
			lens = math.Log(mm / shape.PhoneFocal35)
			if lens > LensHi {
				continue
			}
			applyAll()
			if s := objective(); s > bestS {
				bestLens, bestS = lens, s
			}
		}
		lens = bestLens
		applyAll()

		// A coarse scan of each further ring's distance, height of aim and phase in
		// turn: coordinate descent from the nominal layout stops in a valley where
		// the rings' cones disagree a little everywhere.
		for r := 1; r < len(rings); r++ {
			p := rp[r]
			h := ringHeight(r)
			step := 2 * math.Pi / float64(len(rings[r].Views))
			for _, scan := range []struct {
				ptr      *float64
				from, by float64
				n        int
			}{
				{&p.ls, -0.3, 0.05, 13},
				{&p.dv, p.dv - h/4, h / 16, 9},
				{&p.phase, p.phase0 - step/2, step / 8, 9},
			} {
				best, bestS := *scan.ptr, math.Inf(-1)
				for i := range scan.n {
					*scan.ptr = scan.from + float64(i)*scan.by
					apply(r)
					if s := objective(); s > bestS {
						best, bestS = *scan.ptr, s
					}
				}
				*scan.ptr = best
				apply(r)
			}
		}
		return objective()
	}
	// The front is kept unless another phase settles clearly better: a product
	// that looks alike half a turn round ties, and then the front, the capture
	// guide's advice, is kept.
	phases := make([]float64, len(rings)) // every ring from the front
	settled := settle(phases)
	// Which way the turntable turned (SpinTurn): the set settled backwards as
	// well, kept so when its silhouettes agree clearly better that way.
	if turn == TurnUnknown {
		turn = TurnForward
		forward := save()
		dir = -1
		backward := settle(phases)
		if SpinDebugTurn != nil {
			SpinDebugTurn(settled, backward)
		}
		if backward > settled+spinTurnMargin {
			turn, settled = TurnBackward, backward
		} else {
			dir = 1
			restore(forward)
		}
	}
	if turned != nil {
		turned(turn)
	}
	cands := phaseCandidates()
	if cands[0] != nil { // the candidates moved the rings: back to the settled layout
		settle(phases)
	}
	current := true // the rings stand where phases settled them
	for r := range rings {
		chosen := phases
		for _, c := range cands[r] {
			try := slices.Clone(phases)
			try[r] = c
			s := settle(try)
			current = false
			if SpinDebugPhase != nil {
				SpinDebugPhase(r, c, s, settled)
			}
			if s > settled+anyPhaseMargin {
				chosen, settled, current = try, s, true
			}
		}
		phases = chosen
	}
	if !current {
		settle(phases)
	}

	type param struct {
		ring     int // -1: every ring (the lens)
		ptr      *float64
		step     float64
		lo, hi   float64
		perPhoto bool
	}
	var ps []param
	ps = append(ps, param{ring: -1, ptr: &lens, step: 0.05, lo: -0.3, hi: LensHi})
	for r, p := range rp {
		h := ringHeight(r)
		step := 2 * math.Pi / float64(len(rings[r].Views))
		ps = append(ps,
			param{ring: r, ptr: &p.el, step: 3 * deg, lo: p.el - 20*deg, hi: p.el + 20*deg},
			param{ring: r, ptr: &p.ls, step: 0.04, lo: -0.4, hi: 0.4},
			param{ring: r, ptr: &p.du, step: 0.03 * h, lo: p.du - h/2, hi: p.du + h/2},
			param{ring: r, ptr: &p.dv, step: 0.03 * h, lo: p.dv - h/2, hi: p.dv + h/2},
		)
		if r > 0 {
			ps = append(ps, param{ring: r, ptr: &p.phase, step: step / 4, lo: p.phase0 - step/2, hi: p.phase0 + step/2})
		}
	}
	var jits []param
	for r, p := range rp {
		for k := range p.jit {
			if r == 0 && k == 0 {
				continue // the frame
			}
			jits = append(jits, param{ring: r, ptr: &p.jit[k], step: 1 * deg, lo: -4 * deg, hi: 4 * deg, perPhoto: true})
		}
	}
	best := objective()
	set := func(p param) {
		if p.ring < 0 {
			applyAll()
		} else {
			apply(p.ring)
		}
	}
	// descend is coordinate descent over cur: each parameter stepped both ways
	// by its step times scale (a per-photo azimuth by its step times jitScale),
	// a step kept when the objective rises, up to three passes.
	descend := func(cur []param, scale, jitScale float64) error {
		improved := true
		for pass := 0; improved && pass < 3; pass++ {
			improved = false
			for _, p := range cur {
				if err := ctx.Err(); err != nil {
					return err
				}
				step := p.step * scale
				if p.perPhoto {
					step = p.step * jitScale
				}
				for _, dir := range []float64{1, -1} {
					old := *p.ptr
					nv := min(p.hi, max(p.lo, old+dir*step))
					if nv == old {
						continue
					}
					*p.ptr = nv
					set(p)
					if s := objective(); s > best+1e-5 {
						best, improved = s, true
						break
					}
					*p.ptr = old
					set(p)
				}
			}
		}
		return nil
	}
	// escape moves each ring's height SpinEscapeDeg up and down, settles every
	// ring's distance, aim and phase and the lens again from there, and keeps
	// the layout that agrees better by spinEscapeGain: a flat product's further
	// ring can settle a few degrees off, in a basin the descent's steps do not
	// leave (olive dish from videos: 23°, true 28°).
	escape := func() error {
		type saved struct {
			el, ls, du, dv, phase float64
			jit                   []float64
		}
		snapshot := func() ([]saved, float64) {
			out := make([]saved, len(rp))
			for r, p := range rp {
				out[r] = saved{p.el, p.ls, p.du, p.dv, p.phase, slices.Clone(p.jit)}
			}
			return out, lens
		}
		restore := func(s []saved, l float64) {
			for r, p := range rp {
				p.el, p.ls, p.du, p.dv, p.phase = s[r].el, s[r].ls, s[r].du, s[r].dv, s[r].phase
				copy(p.jit, s[r].jit)
			}
			lens = l
			applyAll()
		}
		for range spinEscapePasses {
			moved := false
			for r, p := range rp {
				var bound param
				for _, q := range ps {
					if q.ptr == &p.el {
						bound = q
					}
				}
				for _, dir := range []float64{-1, 1} {
					was, wasLens := snapshot()
					from, lo, hi := best, e.Lo, e.Hi
					p.el = min(bound.hi, max(bound.lo, p.el+dir*SpinEscapeDeg*deg))
					applyAll()
					best = objective()
					for k := range 3 {
						if err := descend(ps, 1/float64(int(1)<<k), 0); err != nil {
							return err
						}
						if math.Abs(p.el-was[r].el) < SpinEscapeDeg*deg/2 {
							break // rolled back towards where it was: the same basin
						}
					}
					if SpinDebugEscape != nil {
						SpinDebugEscape(r, dir*SpinEscapeDeg, best-from)
					}
					if best > from+spinEscapeGain {
						moved = true
						break // kept: the other way leads back
					}
					// Back as it was, the hull's box that refit reads included: a
					// set no escape moves builds as it did without one.
					restore(was, wasLens)
					best, e.Lo, e.Hi = from, lo, hi
				}
			}
			if !moved {
				break
			}
		}
		return nil
	}
	for round := range SpinRounds {
		cur := ps
		jitScale := 0.0
		if round >= 2 {
			cur = append(slices.Clone(ps), jits...)
			jitScale = 1 / float64(int(1)<<(round-2))
		}
		if err := descend(cur, 1/float64(int(1)<<round), jitScale); err != nil {
			return PoseResult{}, SpinResidual{}, err
		}
		if round == SpinEscapeRound && SpinEscapeDeg > 0 {
			if err := escape(); err != nil {
				return PoseResult{}, SpinResidual{}, err
			}
		}
		if round == 1 {
			refit(64)
			best = objective()
		}
		if round == 2 && SpinFineGrid > 0 {
			// The last round on a finer grid: a 2° slip moves a wide product's ends
			// by about a coarse voxel, too little for the coarse grid to see.
			refit(SpinFineGrid)
			best = objective()
		}
	}
	res := SpinResidual{Coherence: e.Score(), Turn: turn, Evaluations: evaluations, Remembered: remembered}
	for _, p := range rp {
		res.ElevDeg = append(res.ElevDeg, p.el/deg)
		for _, j := range p.jit {
			res.MaxAzCorrection = max(res.MaxAzCorrection, math.Abs(j)/deg)
		}
	}
	// The box to carve in: the search's hull widened. On its coarse grid a thin part
	// (a chair's legs) that one of many views' coarse coverage misses is carved away,
	// so its box can end above the legs; the fine carve decides what is there.
	m := SpinBoxMargin * max(e.Hi[0]-e.Lo[0], e.Hi[1]-e.Lo[1], e.Hi[2]-e.Lo[2])
	lo := [3]float64{e.Lo[0] - m, e.Lo[1] - m, e.Lo[2] - m}
	hi := [3]float64{e.Hi[0] + m, e.Hi[1] + m, e.Hi[2] + m}
	// Every photo against the hull of the others (a suspect against the hull of
	// the photos the search trusted), in that box; one far below the rest is
	// left out of the carve (turntable_outliers.go).
	loo, err := leaveOneOut(ctx, vs, suspect, GridFor(lo, hi, SpinFineGrid))
	if err != nil {
		return PoseResult{}, SpinResidual{}, err
	}
	if SpinDebugLOO != nil {
		SpinDebugLOO(loo)
	}
	res.LeaveOneOut = loo
	if SpinDistrust {
		res.Dropped = distrustOutliers(vs, loo)
	}
	for i, v := range vs {
		if v.Unseparated && !v.Distrust {
			v.Distrust = true
			res.Dropped = append(res.Dropped, i)
		}
	}
	slices.Sort(res.Dropped)
	return PoseResult{coherence: res.Coherence, Lo: lo, Hi: hi, Voxel: e.g.S}, res, nil
}

// axisColumn is where the turntable's axis crosses a ring's photos, in working
// pixels across: the silhouettes of opposite photos (half a turn apart) mirror each
// other about it, so their boxes' centres lie on either side of it. A ring with an
// odd number of photos takes the median of its boxes' centres.
func axisColumn(vs []*View) float64 {
	n := len(vs)
	var xs []float64
	if n%2 == 0 {
		for k := range n / 2 {
			a, b := vs[k], vs[k+n/2]
			xs = append(xs, (a.bbox[0]+a.bbox[2]+b.bbox[0]+b.bbox[2])/4)
		}
	} else {
		for _, v := range vs {
			xs = append(xs, (v.bbox[0]+v.bbox[2])/2)
		}
	}
	return median(xs)
}

// median of xs (xs is reordered).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
