package reconstruct

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Turntable spin sets (issue 48): the capture merchants already make for 360°
// spin viewers, 8 to 72 photos on a turntable in one or more rings, each ring one
// turn at one camera height. Each photo is decoded and segmented like any other;
// the cameras come from the turntable's constraints (multiview.SearchTurntable);
// carving, texturing and encoding are the multi-view path's.

// SpinRing is one ring of a spin set: photos in shooting order, evenly spaced over
// one full turn, taken from one camera height.
type SpinRing struct {
	// ElevationDeg is the camera's nominal height above the product's centre, as an
	// angle (0: level with the middle of the product); only approximate.
	ElevationDeg float64
	Images       [][]byte
	// AnyPhase: the ring's first photo need not face the front (a video's ring
	// starts wherever the turntable stood); its phase is searched over the turn.
	AnyPhase bool
}

// SpinSet is a turntable capture: its rings, lowest first. The first photo of the
// first ring is the product's front.
type SpinSet struct {
	Rings []SpinRing
}

// Limits of a spin set.
const (
	MinSpinPhotos  = 8
	MaxSpinPhotos  = 72
	MinRingPhotos  = 4
	MaxRingElevDeg = 80
)

// ShapeTurntable is Stats.ShapeKind of a model built from a spin set.
const ShapeTurntable = "turntable"

// ErrSpinSet is the refusal of a spin set whose layout cannot be a turntable
// capture; the message says what to change.
var ErrSpinSet = errors.New("a spin set needs 8 to 72 photos, at least 4 in each ring, each ring one full turn")

// ErrSpinPhotos is the refusal of a spin set whose photos cannot make one
// model however they are laid out. The error is a *SpinRefusal: it names the
// photos and the reason, a sentence the merchant can act on.
var ErrSpinPhotos = errors.New("these photos cannot be built as one model")

// ErrSpinLeavesFrame: in some photos the product runs off the left, right or
// top edge. Carving such a photo cuts the product at the frame's edge (the
// photo says nothing lies beyond it), so one cut-off photo costs the model
// the part it leaves out, and the search's ring scans read a clipped outline
// as a different angle. The bottom edge is not checked: the turntable and the
// table run off it, and a mask that takes them in is caught by the outline
// check (dropReason).
var ErrSpinLeavesFrame = errors.New("the product runs off the edge of the frame; step back or zoom out so that the whole product, with some space around it, is in every photo")

// ErrSpinNotOneProduct: more photos than the carve may leave out disagree
// with the hull of the others beyond anything a real turntable capture shows.
// A spin set made of two products' photos (a folder of two spins dropped
// together: each ring agrees with itself, not with the other) or of a ring
// declared a full turn that was half of one builds a shape neither product
// has; the merchant is told which photos do not fit instead.
var ErrSpinNotOneProduct = errors.New("these photos do not fit the others as one product turning in front of a fixed camera; " +
	"check that every photo shows the same product, that the files are in shooting order and that each ring is one full turn")

// SpinRefusal is a spin set refused for what some of its photos show.
type SpinRefusal struct {
	Reason error // ErrSpinLeavesFrame or ErrSpinNotOneProduct
	Photos []int // from 1, in the order given
}

// Error reads "photo 5: …" or "photos 3, 8, 12: …", numbered from 1.
func (e *SpinRefusal) Error() string {
	ns := make([]string, len(e.Photos))
	for i, n := range e.Photos {
		ns[i] = fmt.Sprint(n)
	}
	which := "photo"
	if len(ns) > 1 {
		which = "photos"
	}
	return fmt.Sprintf("%s %s: %v", which, strings.Join(ns, ", "), e.Reason)
}

func (e *SpinRefusal) Unwrap() []error { return []error{e.Reason, ErrSpinPhotos} }

// spinFrameTouch is the share of a frame side the mask must cover for the
// product to run off that side: a contiguous cut is tens of pixels long, a
// stray anti-aliased pixel of the mask is one.
const spinFrameTouch = 0.01

// leavingFrame refuses a spin set in which the product runs off the left,
// right or top edge of some photo (ErrSpinLeavesFrame); vs are its photos,
// ring after ring, rings how many each ring has. A photo whose mask fell back
// to the whole frame is judged by its border against the backdrop the ring's
// other photos show there (unseparatedOffFrame); if that shows nothing, it is
// left out of the build (no product told apart).
func leavingFrame(vs []*multiview.View, rings []int) error {
	var bad []int
	at := 0
	ringOf := make([][]*multiview.View, len(vs)) // each photo's ring
	for _, n := range rings {
		for i := at; i < at+n && i < len(vs); i++ {
			ringOf[i] = vs[at:min(at+n, len(vs))]
		}
		at += n
	}
	for i, v := range vs {
		if v.Unseparated {
			var refs []*multiview.View
			for _, r := range ringOf[i] {
				if !r.Unseparated && r.P.W == v.P.W && r.P.H == v.P.H {
					refs = append(refs, r)
				}
			}
			if len(refs) >= spinEdgeMinRefs && unseparatedOffFrame(v, refs) {
				bad = append(bad, i+1)
			}
			continue
		}
		px := v.Seg.SidePixels()
		for _, side := range []int{segment.SideTop, segment.SideLeft, segment.SideRight} {
			length := v.Seg.W
			if side != segment.SideTop {
				length = v.Seg.H
			}
			if float64(px[side]) >= spinFrameTouch*float64(length) {
				bad = append(bad, i+1)
				break
			}
		}
	}
	if len(bad) > 0 {
		return &SpinRefusal{Reason: ErrSpinLeavesFrame, Photos: bad}
	}
	return nil
}

// spinForeignBelow is the leave-one-out agreement under which a photo does
// not show the product the others show. On the benchmark's 19 real products
// no photo with a mask agrees less than 0.52 (candle holder masks that lost
// its base); synthetic furniture no less than 0.47 (a table), nor a chair
// shot hand-held (±15° of azimuth: 0.45) or over half a turn called a full
// one (0.35). Two products' photos in one set agree 0.07–0.20 with the other
// product's hull.
const spinForeignBelow = 0.3

// foreignPhotos refuses a spin set in which more photos than the carve may
// leave out (a quarter) agree with the others' hull less than
// spinForeignBelow (ErrSpinNotOneProduct).
func foreignPhotos(loo []float64, vs []*multiview.View) error {
	var bad []int
	for i, a := range loo {
		if a < spinForeignBelow && !vs[i].Unseparated { // those are left out, and said so
			bad = append(bad, i+1)
		}
	}
	if len(bad) > len(loo)/4 {
		return &SpinRefusal{Reason: ErrSpinNotOneProduct, Photos: bad}
	}
	return nil
}

// SpinReconstructor is implemented by reconstructors that can use a spin set.
type SpinReconstructor interface {
	ReconstructSpin(ctx context.Context, spin SpinSet, opts Options, progress ProgressFunc) (*Result, SpinReport, error)
}

// SpinReport says how the turntable fit went: what a merchant or the benchmark
// reads to trust the cameras.
type SpinReport struct {
	Coherence       float64   `json:"coherence"`       // 0–1: how well every photo agrees with the others
	MaxAzCorrection float64   `json:"maxAzCorrection"` // degrees: the largest slip from even spacing
	RingElevations  []float64 `json:"ringElevations"`  // degrees, as found
	// LeaveOneOut (0–1) is how well each photo's silhouette matches the hull of the
	// other photos, averaged: what the azimuth polish maximised.
	LeaveOneOut float64 `json:"leaveOneOut"`
	// Dropped are the photos left out of the carve, and why.
	Dropped []SpinDrop `json:"dropped,omitempty"`
	// SurfaceDisagreement (0–1) is the share of the model's surface, where
	// three or more photos see it squarely, whose colour they disagree on
	// (multiview.SurfaceDisagreement): a hollow the carve filled. It caps the
	// fidelity score (spinDisagreementWeight).
	SurfaceDisagreement float64 `json:"surfaceDisagreement"`
	// HalvesAgreement (0–1) is how well the set's two halves, each searched
	// and carved on its own, rebuild the model (multiview.SpinHalves): the
	// fidelity score before the colours cap it; 0 when the set is too small
	// to split.
	HalvesAgreement float64 `json:"halvesAgreement"`
	// TurnedBackwards: the photos go round the product the other way from the
	// one the search tries first (multiview.SpinTurn), found from the
	// silhouettes; the model is built that way.
	TurnedBackwards bool `json:"turnedBackwards,omitempty"`
}

// spinDisagreementWeight caps a spin set's fidelity score at
// 100 × (1 − spinDisagreementWeight × SurfaceDisagreement): a model a fifth of
// whose judged surface the photos disagree on scores at most 50. The halves'
// agreement cannot see a filled hollow (both halves carve the same roof over
// the olive dish: 78 at F@5 0.481); its colours can (0.158 of its surface
// against at most 0.014 on the tuning set's models at F@5 ≥ 0.84).
const spinDisagreementWeight = 2.5

// disagreementCap is the highest fidelity score a model whose photos disagree
// on share d of its surface may have.
func disagreementCap(d float64) int {
	return max(0, int(math.Round(100*(1-spinDisagreementWeight*d))))
}

// SpinDrop is one photo of a spin set left out of the carve.
type SpinDrop struct {
	Photo     int     `json:"photo"`     // from 1, in the order given
	Agreement float64 `json:"agreement"` // its leave-one-out agreement, 0–1
	Reason    string  `json:"reason"`
	Kind      string  `json:"kind"` // SpinDropOutline or SpinDropNoProduct: what the web app words
}

// Why a photo was left out (SpinDrop.Kind).
const (
	SpinDropOutline   = "outline"    // its outline disagrees with the others'
	SpinDropNoProduct = "no-product" // no product was told from the backdrop in it
)

// dropReason is why a photo whose outline disagrees with the others is left out.
const dropReason = "its outline disagrees with the other photos (a shadow, a reflection or the turntable taken for the product, or part of the product lost): carving with it would cut away what the others show"

// unseparatedReason is why a photo in which no product was told from the
// backdrop is left out.
const unseparatedReason = "the product could not be told from the background in this photo"

// RingSpec is one ring of a spin set's layout: how many photos over one turn, and
// the camera's nominal elevation in degrees.
type RingSpec struct {
	Photos       int
	ElevationDeg float64
}

// ParseRings reads a layout such as "12@0,12@30": N@E is N photos evenly spaced over
// one turn at a nominal elevation of E degrees, ring after ring.
func ParseRings(spec string) ([]RingSpec, error) {
	var out []RingSpec
	for _, part := range strings.Split(spec, ",") {
		var r RingSpec
		var rest string
		n, _ := fmt.Sscanf(strings.TrimSpace(part)+" .", "%d@%g %s", &r.Photos, &r.ElevationDeg, &rest)
		if n != 3 || rest != "." || r.Photos <= 0 || math.IsNaN(r.ElevationDeg) || math.IsInf(r.ElevationDeg, 0) {
			return nil, fmt.Errorf("ring %q: want PHOTOS@ELEVATION, e.g. 12@30", strings.TrimSpace(part))
		}
		out = append(out, r)
	}
	return out, nil
}

// NewSpinSet lays images out in rings (their counts must add up).
func NewSpinSet(rings []RingSpec, images [][]byte) (SpinSet, error) {
	total := 0
	for _, r := range rings {
		total += r.Photos
	}
	if total != len(images) {
		return SpinSet{}, fmt.Errorf("%w: the rings name %d photos, %d were given", ErrSpinSet, total, len(images))
	}
	var spin SpinSet
	at := 0
	for _, r := range rings {
		spin.Rings = append(spin.Rings, SpinRing{ElevationDeg: r.ElevationDeg, Images: images[at : at+r.Photos]})
		at += r.Photos
	}
	return spin, nil
}

// checkSpin refuses a layout no turntable makes.
func checkSpin(spin SpinSet) error {
	total := 0
	for i, r := range spin.Rings {
		if len(r.Images) < MinRingPhotos {
			return fmt.Errorf("%w: ring %d has %d photos", ErrSpinSet, i+1, len(r.Images))
		}
		if r.ElevationDeg < -MaxRingElevDeg || r.ElevationDeg > MaxRingElevDeg {
			return fmt.Errorf("%w: ring %d's camera height %.0f° is not between −%d° and %d°", ErrSpinSet, i+1, r.ElevationDeg, MaxRingElevDeg, MaxRingElevDeg)
		}
		total += len(r.Images)
	}
	if len(spin.Rings) == 0 || total < MinSpinPhotos || total > MaxSpinPhotos {
		return fmt.Errorf("%w: got %d photos", ErrSpinSet, total)
	}
	return nil
}

// ReconstructSpin builds one model from a turntable spin set.
func (b builtin) ReconstructSpin(ctx context.Context, spin SpinSet, opts Options, progress ProgressFunc) (*Result, SpinReport, error) {
	if err := checkSpin(spin); err != nil {
		return nil, SpinReport{}, err
	}
	opts = opts.WithDefaults()
	pr := &progressReporter{fn: progress}
	tm := newStageTimer()
	pr.report(StepAnalyzing, 0)
	var views []View
	for _, r := range spin.Rings {
		for k, img := range r.Images {
			views = append(views, View{Image: img, Azimuth: 360 * float64(k) / float64(len(r.Images))})
		}
	}
	// A photo in which no product could be told from the backdrop is left out
	// (the search and the carve skip it, the report names it) rather than
	// failing the set: one odd photo of 24 still leaves a turn of silhouettes.
	// More than a quarter of doubtful photos is a set without a product to
	// build, refused under the worker's strict options.
	strict := opts.StrictSubject
	opts.StrictSubject = false
	vs, warnings, err := prepareViews(ctx, views, opts, pr)
	if err != nil {
		return nil, SpinReport{}, err
	}
	// Only a mask that fell back to the whole frame is no outline at all. The
	// separation check's other doubts (a kept object small beside everything
	// the cut found, three sides touched) also fall on sound masks of a spin
	// set (a milk truck's: agreement 0.906 with the others' hull), which the
	// outline checks judge better: the frame check below and the agreement
	// with the others' hull.
	doubtful := 0
	for _, v := range vs {
		if !segment.SubjectSeparated(v.Seg) {
			doubtful++
		}
		v.Unseparated = v.Seg.WholeFrame
	}
	if strict && doubtful > len(vs)/4 {
		return nil, SpinReport{}, segment.ErrSubjectNotSeparated
	}
	// The report names the photos left out; the single-photo advice ("use a
	// photo of the product alone…") does not fit a model that was built.
	warnings = slices.DeleteFunc(warnings, func(w string) bool { return w == segment.ErrSubjectNotSeparated.Error() })
	ringSizes := make([]int, len(spin.Rings))
	for i, r := range spin.Rings {
		ringSizes[i] = len(r.Images)
	}
	if err := leavingFrame(vs, ringSizes); err != nil {
		return nil, SpinReport{}, err
	}
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	rings := make([]multiview.SpinRing, len(spin.Rings))
	at := 0
	for i, r := range spin.Rings {
		rings[i] = multiview.SpinRing{Views: vs[at : at+len(r.Images)], ElevDeg: r.ElevationDeg, AnyPhase: r.AnyPhase}
		at += len(r.Images)
	}
	if multiview.Oracle != nil && multiview.Oracle.Before != nil {
		multiview.Oracle.Before(vs)
	}
	// The fidelity score: how well two halves of the set, each searched and
	// carved on its own, rebuild the model (multiview/agreement.go). The halves
	// are split off before the search moves the views, and are searched on the
	// second core from the moment the search knows which way the photos go
	// round (multiview/beside.go); a ring too small to split leaves the build
	// without a score. The photos' colours then cap it where they disagree
	// about the model's surface (spinDisagreementWeight).
	var score func(context.Context, *geom.Mesh, *multiview.Sight) (*int, error)
	var turned func(multiview.SpinTurn)
	var disagreement, agreement float64
	halves, ok := multiview.SplitSpin(rings)
	if ok {
		defer halves.Stop()
		turned = func(t multiview.SpinTurn) { halves.Start(ctx, t) }
		score = func(ctx context.Context, m *geom.Mesh, sight *multiview.Sight) (*int, error) {
			disagreement = multiview.SurfaceDisagreement(vs, m, sight)
			a, err := halves.Agreement(ctx, m)
			if err != nil {
				return nil, err
			}
			agreement = a
			f := min(int(math.Round(100*a)), disagreementCap(disagreement))
			return &f, nil
		}
	}
	pose, fit, err := multiview.SearchTurntable(ctx, rings, turned)
	if err != nil {
		return nil, SpinReport{}, err
	}
	if err := foreignPhotos(fit.LeaveOneOut, vs); err != nil {
		return nil, SpinReport{}, err
	}
	if multiview.Oracle != nil && multiview.Oracle.After != nil {
		multiview.Oracle.After(vs, &pose)
	}
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)
	// Spared feet and wheels (multiview.GroundByFootprint): a turntable's
	// product stands on whatever it stands on, seen all round.
	res, err := carveViews(ctx, vs, pose, views, opts, pr, tm, multiview.GroundByFootprint, score)
	if err != nil {
		return nil, SpinReport{}, err
	}
	res.Warnings = warnings
	res.Stats.ShapeKind = ShapeTurntable
	// Rounded as a merchant or an analyst reads them: 0.001, 0.1°.
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	rep := SpinReport{Coherence: r3(fit.Coherence), MaxAzCorrection: math.Round(fit.MaxAzCorrection*10) / 10}
	for _, el := range fit.ElevDeg {
		rep.RingElevations = append(rep.RingElevations, math.Round(el*10)/10)
	}
	mean := 0.0
	for _, x := range fit.LeaveOneOut {
		mean += x / float64(len(fit.LeaveOneOut))
	}
	rep.LeaveOneOut = r3(mean)
	rep.SurfaceDisagreement, rep.HalvesAgreement = r3(disagreement), r3(agreement)
	rep.TurnedBackwards = fit.Turn == multiview.TurnBackward
	for _, i := range fit.Dropped {
		d := SpinDrop{Photo: i + 1, Agreement: r3(fit.LeaveOneOut[i]), Reason: dropReason, Kind: SpinDropOutline}
		if vs[i].Unseparated {
			d.Reason, d.Kind = unseparatedReason, SpinDropNoProduct
		}
		rep.Dropped = append(rep.Dropped, d)
	}
	return res, rep, nil
}
