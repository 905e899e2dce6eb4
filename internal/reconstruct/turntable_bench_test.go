package reconstruct

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/stretchr/testify/require"
)

// The turntable benchmark (issue 48 §7): each real product of testdata/real/MANIFEST
// photographed as a spin set, N photos evenly spaced over one turn per ring, rings at
// nominal elevations, with a turntable's errors: every frame's azimuth ±2°, each
// ring's elevation ±2° and distance ±3 % off nominal, one phone for the whole set.
// Each build is scored by F@5 against the truth next to the visual hull carved from
// the TRUE silhouettes with the EXACT cameras in the product's true box (the
// target's reference), next to that hull carved in its own box and stood on the
// spin builds' ground (GroundByFootprint: what carving these views can reach
// without knowing the true box, which clips the roof the cones leave over a flat
// top), the same stood on the highest base the silhouettes allow
// (GroundBySilhouettes: what the exact cameras reach with a ground found from the
// photos alone; the builds' rule still cuts round bottoms), and next to the hull
// carved with the NOMINAL cameras
// (what no pose refinement gives). PHOTO3D_HULLS_ONLY=1 prints the hulls alone.
//
//	go test ./internal/reconstruct -run 'TestTurntableRealSet$' -v -timeout 60m -args -turntable
//
// TURNTABLE_RINGS (default 12@0,12@30) sets the rings; PHOTO3D_ONLY the models;
// PHOTO3D_SPIN_DEBUG=masks prints each photo's mask against its true silhouette.

var turntableRun = flag.Bool("turntable", false, "run the real-product turntable benchmark and print the table")

// turntableError is how far a real turntable capture is from its nominal layout.
type turntableError struct {
	az, elev, dist float64 // ± per frame (degrees), ± per ring (degrees), ± per ring (fraction)
}

var usualTurntableError = turntableError{az: 2, elev: 2, dist: 0.03}

// spinScene photographs base (bounding radius radius) as a spin set with errors e,
// drawn from rng. The first photo of every ring faces the front (+Z) give or take
// the frame error; the stated azimuths are the nominal ones.
func spinScene(base *qscene, radius float64, rings []RingSpec, w, h int, rng *rand.Rand, e turntableError) (*mvScene, []float64) {
	f35 := []float64{24, 26, 28}[rng.IntN(3)]
	fill := 0.65 + rng.Float64()*0.1
	m := &mvScene{base: base}
	var elevs []float64 // per view, the nominal ring elevation
	for _, r := range rings {
		el := r.ElevationDeg + (rng.Float64()*2-1)*e.elev
		fl := fill * (1 + (rng.Float64()*2-1)*e.dist)
		for k := range r.Photos {
			nominal := 360 * float64(k) / float64(r.Photos)
			az := nominal + (rng.Float64()*2-1)*e.az
			if len(m.cams) == 0 {
				az = 0 // the first photo fixes the frame
			}
			m.cams = append(m.cams, newQCameraAt(w, h, az*math.Pi/180, el*math.Pi/180, f35, radius, fl, 0.5))
			m.stated = append(m.stated, nominal)
			elevs = append(elevs, r.ElevationDeg)
		}
	}
	m.base.cam = m.cams[0]
	m.base.elevDeg = rings[0].ElevationDeg
	m.base.f35 = f35
	return m, elevs
}

// nominalHull carves the true silhouettes with the nominal cameras: the stated
// azimuths, the stated ring elevations, the first ring's distance and focal length.
func nominalHull(t testing.TB, m *mvScene, elevs []float64, maxTris int) []qtri {
	vs := exactViews(m)
	c0 := m.cams[0]
	d := math.Sqrt(vdot(vsub(c0.pos, v3{0, 0.5, 0}), vsub(c0.pos, v3{0, 0.5, 0})))
	for i, v := range vs {
		az, el := m.stated[i]*math.Pi/180, elevs[i]*math.Pi/180
		dir := v3{math.Sin(az) * math.Cos(el), math.Sin(el), math.Cos(az) * math.Cos(el)}
		pos := vadd(v3{0, 0.5, 0}, vmul(dir, d))
		fwd := vmul(dir, -1)
		right := v3{math.Cos(az), 0, -math.Sin(az)}
		up := crossV(right, fwd)
		r := [3][3]float64{right, up, fwd}
		v.Cam.R = r
		for k := range 3 {
			v.Cam.T[k] = -vdot(r[k], pos)
		}
	}
	lo, hi := triBox(m.base.tris)
	mesh, err := multiview.CarveMesh(context.Background(), vs, multiview.PoseResult{Lo: lo, Hi: hi, Voxel: 0.02}, maxTris, multiview.NoGround)
	require.NoError(t, err)
	return meshTris(mesh)
}

func TestTurntableRealSet(t *testing.T) {
	if !*turntableRun {
		t.Skip("run with -turntable (needs the models: ops/realset.sh)")
	}
	if !realSetPresent() {
		t.Skip("real-product models missing: run ops/realset.sh")
	}
	spec := os.Getenv("TURNTABLE_RINGS")
	if spec == "" {
		spec = "12@0,12@30"
	}
	rings, err := ParseRings(spec)
	require.NoError(t, err)
	fmt.Printf("| model | set | ours F@5 | fidelity | exact-pose hull | ours − hull | exact-pose hull, own box, the builds' ground | the same, silhouette ground | nominal-pose hull | s |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, set := range []string{"MANIFEST", "HELDOUT"} {
		var so, sh, sb, ss, sn, worst float64
		n := 0
		for _, e := range realManifestFile(t, set) {
			if !fourPhotoModel(e.name) {
				continue
			}
			r := runSpinModel(t, e.name, rings)
			fmt.Printf("| %s | %s | %.3f | %d | %.3f | %+.3f | %.3f | %.3f | %.3f | %.1f |\n", e.name, strings.ToLower(set), r.ours, r.fidelity, r.hull, r.ours-r.hull, r.ownBox, r.ownBoxSil, r.nominal, r.secs)
			so, sh, sb, ss, sn, n = so+r.ours, sh+r.hull, sb+r.ownBox, ss+r.ownBoxSil, sn+r.nominal, n+1
			worst = min(worst, r.ours-r.hull)
		}
		if n > 0 {
			fmt.Printf("| **mean, %s (%d models, rings %s)** | | **%.3f** | | **%.3f** | worst %+.3f | **%.3f** | **%.3f** | **%.3f** | |\n", strings.ToLower(set), n, spec, so/float64(n), sh/float64(n), worst, sb/float64(n), ss/float64(n), sn/float64(n))
		}
	}
}

// spinResult is one real product's turntable build scored against the truth.
type spinResult struct {
	ours, hull, nominal, secs float64
	// ownBox is the exact-pose hull carved in its own box and stood on the
	// ground spin builds stand on (exactHullOwnBox): what carving
	// these views can reach without knowing the product's true box, which
	// clips the roof the cones leave over a flat top.
	ownBox float64
	// ownBoxSil is that hull stood on the highest base its silhouettes allow
	// (GroundBySilhouettes) instead.
	ownBoxSil float64
	// fidelity is the build's score (-1: none).
	fidelity int
}

// fidelityText prints a build's fidelity score, or "none".
func fidelityText(f *int) string {
	if f == nil {
		return "none"
	}
	return strconv.Itoa(*f)
}

// runSpinModel photographs the real product name as a spin set with the usual
// turntable error and scores our build, the exact-pose hull and the nominal-pose hull.
func runSpinModel(t *testing.T, name string, rings []RingSpec) spinResult {
	base, radius := realStudioScene(name, loadRealModel(t, name))
	m, elevs := spinScene(base, radius, rings, 960, 720, rand.New(rand.NewPCG(uint64(len(name))*7919+realMVSeed(), uint64(name[0]))), usualTurntableError)
	truthA := alignTruth(m.base.tris)
	var r spinResult
	r.hull = f5(alignTruth(exactHull(t, m, DefaultMaxTriangles)), truthA)
	r.nominal = f5(alignTruth(nominalHull(t, m, elevs, DefaultMaxTriangles)), truthA)
	r.ownBox = f5(alignTruth(exactHullOwnBox(t, m, DefaultMaxTriangles, multiview.GroundByFootprint)), truthA)
	r.ownBoxSil = f5(alignTruth(exactHullOwnBox(t, m, DefaultMaxTriangles, multiview.GroundBySilhouettes)), truthA)
	if os.Getenv("PHOTO3D_HULLS_ONLY") == "1" {
		return r
	}
	start := time.Now()
	res := spinBuild(t, m, rings)
	r.secs = time.Since(start).Seconds()
	r.fidelity = -1
	if res.Stats.Fidelity != nil {
		r.fidelity = *res.Stats.Fidelity
	}
	model := alignedModel(t, res.GLB)
	r.ours = f5(model, truthA)
	mw, md := extentXZ(model)
	tw, td := extentXZ(truthA)
	fmt.Printf("    %s: model width %.3f depth %.3f, truth %.3f %.3f (height 1)\n", name, mw, md, tw, td)
	return r
}

// spinBuild reconstructs a spin scene through ReconstructSpin and prints its fit.
func spinBuild(t testing.TB, m *mvScene, rings []RingSpec) *Result {
	photos := m.photos()
	if os.Getenv("PHOTO3D_SPIN_BACKWARDS") == "1" {
		photos = turnedBackwards(rings, photos) // the oracles below assume the usual order
	}
	spin, err := NewSpinSet(rings, photos)
	require.NoError(t, err)
	multiview.Oracle = oracleFromEnv(m)
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "turn" {
		multiview.SpinDebugTurn = func(fwd, back float64) { fmt.Printf("    turn: settled forward %.4f, backward %.4f\n", fwd, back) }
		defer func() { multiview.SpinDebugTurn = nil }()
	}
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "truecams-ourbox" {
		multiview.Oracle = &multiview.PoseOracle{After: func(vs []*multiview.View, pose *multiview.PoseResult) {
			fmt.Printf("    box ours %.3v..%.3v voxel %.3f\n", pose.Lo, pose.Hi, pose.Voxel)
			for i, v := range vs {
				v.Cam = trueMVCam(m.cams[i], v.P.W)
			}
		}}
	}
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "pose" {
		var before func([]*multiview.View) // an oracle's masks (PHOTO3D_ORACLE=mask) still apply
		if multiview.Oracle != nil {
			before = multiview.Oracle.Before
		}
		multiview.Oracle = &multiview.PoseOracle{Before: before, After: func(vs []*multiview.View, pose *multiview.PoseResult) {
			at := 0
			for _, r := range rings {
				v, c := vs[at], m.cams[at]
				k := float64(v.P.W) / float64(c.w)
				d := math.Sqrt(vdot(vsub(c.pos, v3{0, 0.5, 0}), vsub(c.pos, v3{0, 0.5, 0})))
				fmt.Printf("    ring@%g: ours tz %.3f f %.0f du %.1f dv %.1f | true d %.3f f %.0f centre %.1f %.1f | box %.3v..%.3v\n", r.ElevationDeg,
					v.Cam.T[2], v.Cam.F, v.Du, v.Dv, d, c.f*k, c.cx*k, c.cy*k, pose.Lo, pose.Hi)
				at += r.Photos
			}
		}}
	}
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "features" {
		var sizes []int
		for _, r := range rings {
			sizes = append(sizes, r.Photos)
		}
		multiview.Oracle = spinFeatureOracle(m, sizes)
	}
	if os.Getenv("PHOTO3D_SPIN_DISTRUST") != "" {
		defer func(old bool) { multiview.SpinDistrust = old }(multiview.SpinDistrust)
		multiview.SpinDistrust = os.Getenv("PHOTO3D_SPIN_DISTRUST") == "1"
	}
	if r, err := strconv.Atoi(os.Getenv("PHOTO3D_SPIN_ROUNDS")); err == nil {
		defer func(old int) { multiview.SpinRounds = old }(multiview.SpinRounds)
		multiview.SpinRounds = r
	}
	if os.Getenv("PHOTO3D_GROW") != "" { // PHOTO3D_GROW=0: the segmenter's masks, not grown
		defer func(old bool) { multiview.Grow = old }(multiview.Grow)
		multiview.Grow = os.Getenv("PHOTO3D_GROW") == "1"
	}
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "masks" {
		o := multiview.Oracle
		if o == nil {
			o = &multiview.PoseOracle{}
		}
		before := o.Before
		o.Before = func(vs []*multiview.View) {
			if before != nil {
				before(vs)
			}
			printMaskBias(m, vs)
		}
		multiview.Oracle = o
	}
	if os.Getenv("PHOTO3D_SPIN_TRUEAZ") == "1" {
		// What exact per-photo azimuths are worth: each photo's true azimuth put
		// in after the search, the rest of its camera as searched.
		o := multiview.Oracle
		if o == nil {
			o = &multiview.PoseOracle{}
		}
		next := o.After
		o.After = func(vs []*multiview.View, pose *multiview.PoseResult) {
			for i, v := range vs {
				v.Az = trueAzNearStated(m, i)
				v.Update()
			}
			if next != nil {
				next(vs, pose)
			}
		}
		multiview.Oracle = o
	}
	defer printEscapes()()
	if r, err := strconv.Atoi(os.Getenv("PHOTO3D_ESCAPE_ROUND")); err == nil {
		defer func(old int) { multiview.SpinEscapeRound = old }(multiview.SpinEscapeRound)
		multiview.SpinEscapeRound = r
	}
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "loo" {
		multiview.SpinDebugLOO = func(loo []float64) { fmt.Printf("    LOO %.3f\n", loo) }
		defer func() { multiview.SpinDebugLOO = nil }()
	}
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{StrictSubject: true}, nil) // the worker's options: a set it would refuse fails here too
	multiview.Oracle = nil
	require.NoError(t, err, m.base.name)
	require.Equal(t, ShapeTurntable, res.Stats.ShapeKind)
	fmt.Printf("    %s: coherence %.3f, leave-one-out %.3f, dropped %v, largest azimuth slip %.1f°, rings at %v° (true %v°), fidelity %s, turned backwards %v\n", m.base.name, rep.Coherence, rep.LeaveOneOut, rep.Dropped, rep.MaxAzCorrection, roundAll(rep.RingElevations), trueRingElevations(m, rings), fidelityText(res.Stats.Fidelity), rep.TurnedBackwards)
	return res
}

// printEscapes, under PHOTO3D_SPIN_DEBUG=escape, prints each escape the
// turntable search tries (its own, then each half's) and returns what puts the
// hook back.
func printEscapes() func() {
	if os.Getenv("PHOTO3D_SPIN_DEBUG") != "escape" {
		return func() {}
	}
	multiview.SpinDebugEscape = func(ring int, dEl, gain float64) {
		fmt.Printf("    escape: ring %d moved %+.0f°: settled %+.4f\n", ring+1, dEl, gain)
	}
	return func() { multiview.SpinDebugEscape = nil }
}

// turnedBackwards is a spin set's photos as a turntable turning the other way
// takes them: each ring still starts at its first photo, and goes round the
// product in the opposite direction.
func turnedBackwards(rings []RingSpec, photos [][]byte) [][]byte {
	out := make([][]byte, 0, len(photos))
	at := 0
	for _, r := range rings {
		ring := photos[at : at+r.Photos]
		out = append(out, ring[0])
		for k := r.Photos - 1; k >= 1; k-- {
			out = append(out, ring[k])
		}
		at += r.Photos
	}
	return out
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*10) / 10
	}
	return out
}

// trueRingElevations are the elevations the scene's rings were really shot from.
func trueRingElevations(m *mvScene, rings []RingSpec) []float64 {
	var out []float64
	at := 0
	for _, r := range rings {
		c := m.cams[at]
		d := vsub(c.pos, v3{0, 0.5, 0})
		out = append(out, math.Round(math.Asin(d[1]/math.Sqrt(vdot(d, d)))*180/math.Pi*10)/10)
		at += r.Photos
	}
	return out
}

// printMaskBias prints how each photo's mask (what the carve uses) compares with
// the true silhouette: its area over the true one's and their IoU, soft alphas
// counted as fractions. A ring whose masks are all larger (the toy car's level
// ring, 7–10 %: its windows have no glass, and the mask fills them) pulls the
// lens and the proportions with it.
func printMaskBias(m *mvScene, vs []*multiview.View) {
	line := "    masks " + m.base.name + ":"
	var ratio, iou float64
	for i, v := range vs {
		truth := trueSilhouette(m, i, v)
		var a, b, inter, union float64
		for j, t := range truth {
			x, y := float64(v.Alpha[j])/255, float64(t)/255
			a, b, inter, union = a+x, b+y, inter+min(x, y), union+max(x, y)
		}
		ratio += a / b / float64(len(vs))
		iou += inter / union / float64(len(vs))
		line += fmt.Sprintf(" %d:%.3f/%.3f", i+1, a/b, inter/union)
	}
	fmt.Printf("%s\n    masks %s: mean area over the true silhouette's %.3f, IoU %.3f\n", line, m.base.name, ratio, iou)
}
