package reconstruct

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
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
}

// SpinDrop is one photo of a spin set left out of the carve.
type SpinDrop struct {
	Photo     int     `json:"photo"`     // from 1, in the order given
	Agreement float64 `json:"agreement"` // its leave-one-out agreement, 0–1
	Reason    string  `json:"reason"`
}

// dropReason is why a photo whose outline disagrees with the others is left out.
const dropReason = "its outline disagrees with the other photos (a shadow, a reflection or the turntable taken for the product, or part of the product lost): carving with it would cut away what the others show"

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
	vs, warnings, err := prepareViews(ctx, views, opts, pr)
	if err != nil {
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
	// are split off before the search moves the views; a ring too small to
	// split leaves the build without a score.
	var score func(context.Context, *geom.Mesh) (*int, error)
	if halves, ok := multiview.SplitSpin(rings); ok {
		score = func(ctx context.Context, m *geom.Mesh) (*int, error) {
			a, err := halves.Agreement(ctx, m)
			if err != nil {
				return nil, err
			}
			f := int(math.Round(100 * a))
			return &f, nil
		}
	}
	pose, fit, err := multiview.SearchTurntable(ctx, rings)
	if err != nil {
		return nil, SpinReport{}, err
	}
	if multiview.Oracle != nil && multiview.Oracle.After != nil {
		multiview.Oracle.After(vs, &pose)
	}
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)
	res, err := carveViews(ctx, vs, pose, views, opts, pr, tm, score)
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
	for _, i := range fit.Dropped {
		rep.Dropped = append(rep.Dropped, SpinDrop{Photo: i + 1, Agreement: r3(fit.LeaveOneOut[i]), Reason: dropReason})
	}
	return res, rep, nil
}
