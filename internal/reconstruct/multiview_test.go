package reconstruct

import (
	"context"
	"flag"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// The multi-view benchmark: each scene is photographed from the front, left, back
// and right (stated azimuths 0, 90, 180, 270) with the errors of a product turned by
// hand: every view but the front is up to ±10° off its stated azimuth, its elevation
// up to ±3° off the front's, its distance ±6 % and its aim ±0.05 of the height. The
// model is scored by F@5 (quality_test.go) next to the visual hull carved from the
// TRUE silhouettes with the EXACT cameras (the best pure carving can do).

var mvFull = flag.Bool("multiview.full", false, "run the full multi-view benchmark and print the table")
var mvClass = flag.String("multiview.class", "", "comma-separated classes of the full multi-view benchmark (default all)")
var mvN = flag.Int("multiview.n", 1, "scenes per class in the full multi-view benchmark")

// newQCameraAt is newQCamera at azimuth az (about +Y, the camera at 90° on +X), aimed
// at height targetY.
func newQCameraAt(w, h int, az, elev, f35, radius, fill, targetY float64) qcamera {
	diag := math.Hypot(float64(w), float64(h))
	f := f35 / 43.27 * diag
	d := radius * f / (fill * float64(h) / 2)
	dir := v3{math.Sin(az) * math.Cos(elev), math.Sin(elev), math.Cos(az) * math.Cos(elev)}
	pos := vadd(v3{0, targetY, 0}, vmul(dir, d))
	fwd := vmul(dir, -1)
	right := v3{math.Cos(az), 0, -math.Sin(az)}
	up := crossV(right, fwd)
	return qcamera{pos: pos, right: right, up: up, fwd: fwd, f: f, cx: float64(w) / 2, cy: float64(h) / 2, w: w, h: h}
}

// boxTris is an axis-aligned box [lo, hi] as 12 outward triangles.
func boxTris(lo, hi v3, col v3) []qtri {
	c := func(k int) v3 {
		p := lo
		if k&1 != 0 {
			p[0] = hi[0]
		}
		if k&2 != 0 {
			p[1] = hi[1]
		}
		if k&4 != 0 {
			p[2] = hi[2]
		}
		return p
	}
	var out []qtri
	quad := func(a, b, cc, d int) {
		out = append(out, qtri{[3]v3{c(a), c(b), c(cc)}, col}, qtri{[3]v3{c(a), c(cc), c(d)}, col})
	}
	quad(4, 5, 7, 6)
	quad(1, 0, 2, 3)
	quad(0, 4, 6, 2)
	quad(5, 1, 3, 7)
	quad(2, 6, 7, 3)
	quad(0, 1, 5, 4)
	return out
}

// furnitureScene builds a sofa, chair, table or tote from boxes (height 1).
func furnitureScene(class string, i int) (*qscene, float64) {
	rng := rand.New(rand.NewPCG(uint64(i)*31+7, uint64(len(class))*977))
	c1, c2 := randColour(rng), randColour(rng)
	s := &qscene{class: class, gradient: rng.IntN(2) == 0}
	var w, d float64
	legs := func(w, d, lh, t float64, col v3) {
		for _, sx := range []float64{-1, 1} {
			for _, sz := range []float64{-1, 1} {
				x, z := sx*(w/2-t), sz*(d/2-t)
				s.tris = append(s.tris, boxTris(v3{x - t/2, 0, z - t/2}, v3{x + t/2, lh, z + t/2}, col)...)
			}
		}
	}
	switch class {
	case "sofa":
		w, d = 2+rng.Float64()*0.6, 0.8+rng.Float64()*0.2
		arm := 0.18
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.12, -d / 2}, v3{w / 2, 0.42, d / 2}, c1)...)      // seat
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.42, -d / 2}, v3{w / 2, 1, -d/2 + 0.22}, c1)...)   // back
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.42, -d / 2}, v3{-w/2 + arm, 0.68, d / 2}, c1)...) // left arm
		s.tris = append(s.tris, boxTris(v3{w/2 - arm, 0.42, -d / 2}, v3{w / 2, 0.68, d / 2}, c1)...)   // right arm
		legs(w, d, 0.12, 0.06, c2)
	case "chair":
		w, d = 0.5+rng.Float64()*0.1, 0.5+rng.Float64()*0.1
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.45, -d / 2}, v3{w / 2, 0.52, d / 2}, c1)...)
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.52, -d / 2}, v3{w / 2, 1, -d/2 + 0.06}, c1)...)
		legs(w, d, 0.45, 0.05, c2)
	case "table":
		w, d = 1.4+rng.Float64()*0.4, 0.7+rng.Float64()*0.2
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0.92, -d / 2}, v3{w / 2, 1, d / 2}, c1)...)
		legs(w, d, 0.92, 0.06, c2)
	case "tote":
		w, d = 0.8+rng.Float64()*0.2, 0.15+rng.Float64()*0.1
		s.tris = append(s.tris, boxTris(v3{-w / 2, 0, -d / 2}, v3{w / 2, 0.75, d / 2}, c1)...)
		s.tris = append(s.tris, boxTris(v3{-0.2, 0.75, -0.02}, v3{-0.14, 1, 0.02}, c2)...)
		s.tris = append(s.tris, boxTris(v3{0.14, 0.75, -0.02}, v3{0.2, 1, 0.02}, c2)...)
		s.tris = append(s.tris, boxTris(v3{-0.2, 0.94, -0.02}, v3{0.2, 1, 0.02}, c2)...)
	default:
		panic(class)
	}
	s.footprint = func(x, z float64) float64 {
		dx, dz := math.Abs(x)-w/2, math.Abs(z)-d/2
		return math.Hypot(max(dx, 0), max(dz, 0)) + min(max(dx, dz), 0)
	}
	s.footR = math.Hypot(w/2, d/2)
	s.name = class + "-" + string(rune('a'+i))
	return s, math.Sqrt(w*w/4 + d*d/4 + 0.25)
}

// mvScene is one benchmark object photographed from four sides.
type mvScene struct {
	base   *qscene
	cams   []qcamera
	stated []float64 // degrees
}

// makeMVScene builds scene i of class with the hand-held errors described above.
func makeMVScene(class string, i, w, h int) *mvScene {
	var s *qscene
	var radius float64
	switch class {
	case "sofa", "chair", "table", "tote":
		s, radius = furnitureScene(class, i)
	default:
		s = makeScene(class, i, w, h)
		lo, hi := triBox(s.tris)
		radius = 0.5 * math.Sqrt(vdot(vsub(hi, lo), vsub(hi, lo)))
	}
	rng := rand.New(rand.NewPCG(uint64(i)*131+3, uint64(len(class))*7))
	out := &mvScene{base: s}
	out.handHeld(rng, w, h, radius)
	return out
}

func (m *mvScene) photos() [][]byte {
	var out [][]byte
	for k, c := range m.cams {
		s := *m.base
		s.cam = c
		out = append(out, s.photo(rand.New(rand.NewPCG(uint64(k)+11, 5))))
	}
	return out
}

// exactHull carves the visual hull from the true (anti-aliased) silhouettes with
// the true cameras, through the same field and mesher as the reconstructor, in
// the product's true box: that box is knowledge no hull has (it clips the roof
// the cones leave over a flat top and the wedge under the base), so
// exactHullOwnBox is printed beside it.
func exactHull(t testing.TB, m *mvScene, maxTris int) []qtri {
	lo, hi := triBox(m.base.tris)
	mesh, err := multiview.CarveMesh(context.Background(), exactViews(m), multiview.PoseResult{Lo: lo, Hi: hi, Voxel: 0.02}, maxTris, multiview.NoGround)
	require.NoError(t, err)
	return meshTris(mesh)
}

// exactHullOwnBox is the hull of exactHull's views in its own box: carved first
// in a box half the product's height wider on every side, then again in the box
// of that hull (as the reconstructor carves in the box its pose search found),
// standing on ground: the ground the hull's sections give (GroundBySections), as
// the reconstructor's does, or the highest base the silhouettes allow
// (GroundBySilhouettes).
func exactHullOwnBox(t testing.TB, m *mvScene, maxTris int, ground multiview.Ground) []qtri {
	vs := exactViews(m)
	lo, hi := triBox(m.base.tris)
	d := 0.5 * (hi[1] - lo[1])
	box := multiview.PoseResult{Lo: [3]float64{lo[0] - d, lo[1] - d, lo[2] - d}, Hi: [3]float64{hi[0] + d, hi[1] + d, hi[2] + d}, Voxel: 0.02}
	first, err := multiview.CarveMesh(context.Background(), vs, box, maxTris, multiview.NoGround)
	require.NoError(t, err)
	flo, fhi := first.Bounds()
	for c := range 3 {
		box.Lo[c], box.Hi[c] = float64(flo[c]), float64(fhi[c])
	}
	mesh, err := multiview.CarveMesh(context.Background(), vs, box, maxTris, ground)
	require.NoError(t, err)
	if os.Getenv("PHOTO3D_BOXDBG") != "" {
		mlo, mhi := mesh.Bounds()
		fmt.Printf("BOX %s true x %.3f..%.3f y %.3f..%.3f z %.3f..%.3f  hull x %.3f..%.3f y %.3f..%.3f z %.3f..%.3f\n", m.base.name,
			lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], mlo[0], mhi[0], mlo[1], mhi[1], mlo[2], mhi[2])
	}
	return meshTris(mesh)
}

// exactViews are m's views with the true silhouettes and cameras.
func exactViews(m *mvScene) []*multiview.View {
	var vs []*multiview.View
	for _, c := range m.cams {
		alpha := silhouetteAlpha(m.base.tris, c)
		r := [3][3]float64{c.right, c.up, c.fwd}
		cam := multiview.Camera{R: r, F: c.f, Cx: c.cx, Cy: c.cy}
		for k := range 3 {
			cam.T[k] = -vdot(r[k], c.pos)
		}
		vs = append(vs, &multiview.View{Seg: &segment.Segmentation{W: c.w, H: c.h, Alpha: alpha}, Alpha: alpha, Cam: cam})
	}
	return vs
}

// triBox is the bounding box of tris.
func triBox(tris []qtri) (lo, hi v3) {
	lo, hi = v3{math.Inf(1), math.Inf(1), math.Inf(1)}, v3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, tr := range tris {
		for _, p := range tr.p {
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
	}
	return lo, hi
}

// f5 scores aligned model triangles against aligned truth (quality_test.go's F@5).
func f5(model, truth []qtri) float64 {
	f, _ := surfaceScore(truth, model)
	return f
}

type mvScore struct {
	name      string
	ours, hul float64
	own       float64 // exactHullOwnBox's F@5 (with -multiview.full or -realset.four only)
	millis    int64
}

func runMultiView(t *testing.T, classes []string, n, w, h int, validate bool) []mvScore {
	var scenes []*mvScene
	for _, class := range classes {
		for i := range n {
			scenes = append(scenes, makeMVScene(class, i, w, h))
		}
	}
	return runMVScenes(t, scenes, validate)
}

// handHeldAzimuths are the stated azimuths of a hand-held capture: front, left,
// back and right, or PHOTO3D_VIEWS (2–8) photos evenly spaced (a measurement of
// what more photos buy; the history of docs/reconstruction.md (git log -p)).
func handHeldAzimuths() []float64 {
	n := 4
	if s := os.Getenv("PHOTO3D_VIEWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < MinViews || v > MaxViews {
			panic("PHOTO3D_VIEWS: a number of photos from 2 to 8")
		}
		n = v
	}
	az := make([]float64, n)
	for k := range az {
		az[k] = 360 * float64(k) / float64(n)
	}
	return az
}

// handHeld places the cameras of m (four, or PHOTO3D_VIEWS) around its base scene
// with the hand-held errors described at the top of this file, from rng.
func (m *mvScene) handHeld(rng *rand.Rand, w, h int, radius float64) {
	elev := 5 + rng.Float64()*20
	f35 := []float64{24, 26, 28, 35}[rng.IntN(4)]
	fill := 0.6 + rng.Float64()*0.2
	m.cams, m.stated = nil, nil
	for k, az := range handHeldAzimuths() {
		a, e, fl, ty := az, elev, fill, 0.5
		if k > 0 {
			a += rng.Float64()*20 - 10
			e += rng.Float64()*6 - 3
			fl *= 1 + rng.Float64()*0.12 - 0.06
			ty += rng.Float64()*0.1 - 0.05
		}
		m.cams = append(m.cams, newQCameraAt(w, h, a*math.Pi/180, e*math.Pi/180, f35, radius, fl, ty))
		m.stated = append(m.stated, az)
	}
	m.base.cam = m.cams[0]
	m.base.elevDeg = elev
	m.base.f35 = f35
}

func runMVScenes(t *testing.T, scenes []*mvScene, validate bool) []mvScore {
	var out []mvScore
	{
		for _, m := range scenes {
			photos := m.photos()
			var views []View
			for k, p := range photos {
				views = append(views, View{Image: p, Azimuth: m.stated[k]})
			}
			// The oracle is a diagnostic run alone (PHOTO3D_ORACLE); without it the
			// package-level hook is left untouched, so parallel tests can share it.
			oracle := oracleFromEnv(m)
			if oracle != nil {
				multiview.Oracle = oracle
			}
			res, err := NewBuiltin().(MultiViewReconstructor).ReconstructViews(context.Background(), views, Options{}, nil)
			if oracle != nil {
				multiview.Oracle = nil
			}
			require.NoError(t, err, m.base.name)
			require.Equal(t, len(photos), res.Stats.Views)
			require.Equal(t, ShapeMultiView, res.Stats.ShapeKind)
			require.Empty(t, res.Warnings, "%s: every photo frames the whole product", m.base.name)
			if validate {
				requireProductGLB(t, res.GLB, DefaultHeightMetres, "Photo3D builtin")
			}
			truth := alignTruth(m.base.tris)
			require.Nil(t, res.Stats.Fidelity, "no score that would claim accuracy it cannot check")
			// The thumbnail is the model drawn from the front, not the front photo's cut-out,
			// so a build that lost a part shows it on its card.
			drawn, err := modelThumbnailPNG(res.GLB)
			require.NoError(t, err)
			require.Equal(t, drawn, res.Thumbnail, m.base.name)
			p0, err := segment.DecodePhoto(context.Background(), photos[0], Options{}.WithDefaults().WorkingSize)
			require.NoError(t, err)
			seg0, err := segment.Segment(context.Background(), p0)
			require.NoError(t, err)
			cut, err := thumbnailPNG(p0, seg0)
			require.NoError(t, err)
			require.NotEqual(t, cut, res.Thumbnail, m.base.name)
			sc := mvScore{name: m.base.name, millis: res.Stats.TotalMillis}
			sc.ours = f5(alignedModel(t, res.GLB), truth)
			sc.hul = f5(alignTruth(exactHull(t, m, DefaultMaxTriangles)), truth)
			if *mvFull || *realFour {
				sc.own = f5(alignTruth(exactHullOwnBox(t, m, DefaultMaxTriangles, multiview.GroundBySections)), truth)
			}
			if dir := renderDir(); dir != "" {
				_ = os.MkdirAll(dir, 0o755)
				for k, p := range photos {
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-view%d.jpg", m.base.name, k)), p, 0o644)
				}
				renderViews(t, readGLB(t, res.GLB), m.base.name+"-mv")
			}
			if *mvFull {
				fmt.Printf("  %-9s ours F@5 %.3f  exact-pose hull %.3f  (%+.3f)  own box %.3f (%+.3f)  %4d ms\n",
					sc.name, sc.ours, sc.hul, sc.ours-sc.hul, sc.own, sc.ours-sc.own, sc.millis)
			}
			out = append(out, sc)
		}
	}
	return out
}

var mvClasses = []string{"bottle", "vase", "can", "mug", "box", "lamp", "sofa", "chair", "table", "tote"}

// TestMultiViewFull prints the four-photo benchmark (go test -run TestMultiViewFull
// -multiview.full ./internal/reconstruct).
func TestMultiViewFull(t *testing.T) {
	if !*mvFull {
		t.Skip("run with -multiview.full")
	}
	classes := mvClasses
	if *mvClass != "" {
		classes = strings.Split(*mvClass, ",")
	}
	sc := runMultiView(t, classes, *mvN, 960, 720, false)
	var mo, mh, mw float64
	for _, s := range sc {
		mo += s.ours
		mh += s.hul
		mw += s.own
	}
	n := float64(len(sc))
	fmt.Printf("mean over %d: ours F@5 %.3f, exact-pose hull %.3f (true box), %.3f (own box)\n", len(sc), mo/n, mh/n, mw/n)
}

// Four hand-held photos of a vase, a chair and a tote bag become one valid product GLB (one
// part, variants, Explode, ≤ 2 MB) with F@5 ≥ 0.7 although the photos' azimuths were up
// to 10° off, each within 0.05 of the visual hull carved with the exact cameras (the
// chair's thin legs and back too, since growMask keeps what the segmenter took for
// shadow).
func TestMultiViewCarvesFourHandHeldPhotos(t *testing.T) {
	if testing.Short() {
		t.Skip("renders and reconstructs 12 photos")
	}
	// CPU-bound and sharing no state: runs beside the other parallel tests (ops/test.sh's
	// no-race step has a core to spare).
	t.Parallel()
	for _, s := range runMultiView(t, []string{"vase", "chair", "tote"}, 1, 640, 480, true) {
		t.Logf("%s: ours %.3f, exact-pose hull %.3f", s.name, s.ours, s.hul)
		require.GreaterOrEqual(t, s.ours, 0.7, s.name)
		require.GreaterOrEqual(t, s.ours, s.hul-0.05, s.name)
	}
}

var _ = image.Rect

// Unstated azimuths are spaced evenly in the order given, stated ones are kept
// (modulo 360), and the first photo is the front whatever was stated.
func TestMultiViewAzimuths(t *testing.T) {
	nan := math.NaN()
	require.Equal(t, []float64{0, 90, 180, 270}, Azimuths([]View{{Azimuth: nan}, {Azimuth: nan}, {Azimuth: nan}, {Azimuth: nan}}))
	require.Equal(t, []float64{0, 120, 240}, Azimuths([]View{{Azimuth: 30}, {Azimuth: nan}, {Azimuth: nan}}))
	require.Equal(t, []float64{0, 80, 315}, Azimuths([]View{{Azimuth: 0}, {Azimuth: 440}, {Azimuth: -45}}))
	_, err := NewBuiltin().(MultiViewReconstructor).ReconstructViews(context.Background(), make([]View, MaxViews+1), Options{}, nil)
	require.ErrorIs(t, err, ErrViewCount)
}

// trueSilhouette is photo i's true silhouette at the working size of its view v.
func trueSilhouette(m *mvScene, i int, v *multiview.View) []uint8 {
	c := m.cams[i]
	k := float64(v.P.W) / float64(c.w)
	c.f, c.cx, c.cy, c.w, c.h = c.f*k, c.cx*k, c.cy*k, v.P.W, v.P.H
	return silhouetteAlpha(m.base.tris, c)
}

// oracleFromEnv hands the pose search parts of m's true cameras, for measuring
// what each unknown costs (the history of docs/reconstruction.md (git log -p), "Where the four-photo gap is"):
// PHOTO3D_ORACLE is a comma-separated list of el (the shared elevation), lens,
// az (every view's azimuth), cam (every camera replaced by the true one after the
// search, carved in the true box widened by a tenth of the height) and box (with
// cam: carved in the true box, as exactHull is) and consist (with cam: print the
// views' colour disagreement on the hull at our poses and at the true cameras,
// colourDisagreement), start (with el, lens and az: the search starts from the
// true angles instead of holding them), nosearch (the starting pose is kept: the
// stated azimuths, the ground prior's elevation, the phone lens), truestart (the
// search starts from the true cameras expressed in its own parameters,
// setTruePoses; with nosearch, the true poses are carved in the reconstructor's
// own box), mask (the views' masks are the true silhouettes) and err (print each
// view's angle errors and the strict coherence at our poses and at the true
// cameras). Unset: nil, the search alone.
func oracleFromEnv(m *mvScene) *multiview.PoseOracle {
	env := os.Getenv("PHOTO3D_ORACLE")
	if env == "" {
		return nil
	}
	o := &multiview.PoseOracle{}
	for _, w := range strings.Split(env, ",") {
		switch w {
		case "el":
			o.KnowsEl, o.El = true, m.base.elevDeg*math.Pi/180
		case "lens":
			o.KnowsLens, o.Lens = true, math.Log(m.base.f35/shape.PhoneFocal35)
		case "az":
			o.Az = make([]float64, len(m.cams))
			for i := range m.cams {
				o.Az[i] = trueAzNearStated(m, i)
			}
		case "mask":
			o.Before = func(vs []*multiview.View) {
				for i, v := range vs {
					v.Alpha, v.Loose, v.LcovLoose = trueSilhouette(m, i, v), nil, nil
					v.Measure()
				}
			}
		case "start":
			o.Start = true
		case "nosearch":
			o.NoSearch = true
		case "truestart":
			o.KeepStart = true
		case "cam", "box", "consist", "err":
		default:
			panic("PHOTO3D_ORACLE: el, lens, az, start, nosearch, truestart, mask, cam, box, consist, err")
		}
	}
	if o.KeepStart {
		masks := o.Before
		o.Before = func(vs []*multiview.View) {
			if masks != nil {
				masks(vs)
			}
			setTruePoses(m, vs)
		}
	}
	if strings.Contains(","+env+",", ",cam,") {
		trueBox := strings.Contains(","+env+",", ",box,")
		consist := strings.Contains(","+env+",", ",consist,")
		o.After = func(vs []*multiview.View, pose *multiview.PoseResult) {
			ours := math.NaN()
			if consist {
				ours = colourDisagreement(vs, *pose)
			}
			for i, v := range vs {
				v.Cam = trueMVCam(m.cams[i], v.P.W)
			}
			lo, hi := triBox(m.base.tris)
			if consist {
				fmt.Printf("CONSIST %s colour disagreement at our poses %.2f, at the true cameras %.2f\n", m.base.name, ours,
					colourDisagreement(vs, trueBoxWidened(m)))
			}
			if trueBox {
				pose.Lo, pose.Hi, pose.Voxel = lo, hi, 0.02
				return
			}
			tb := trueBoxWidened(m)
			pose.Lo, pose.Hi, pose.Voxel = tb.Lo, tb.Hi, tb.Voxel
		}
	}
	if strings.Contains(","+env+",", ",err,") {
		next := o.After
		o.After = func(vs []*multiview.View, pose *multiview.PoseResult) {
			line := "POSEERR " + m.base.name
			for i, v := range vs {
				ta, te := trueAzEl(m.cams[i])
				line += fmt.Sprintf(" v%d az%+.1f el%+.1f ls%+.2f", i, math.Remainder(v.Az*180/math.Pi-ta, 360), v.El*180/math.Pi-te, v.Ls)
			}
			line += fmt.Sprintf(" f35 true %.0f est %.1f", m.base.f35, shape.PhoneFocal35*math.Exp(vs[0].Lf))
			// The search's strict objective at our poses (on a 64-voxel grid over
			// their box) and at the true cameras (over trueBoxWidened).
			mg := 2 * pose.Voxel
			g := multiview.GridFor([3]float64{pose.Lo[0] - mg, pose.Lo[1] - mg, pose.Lo[2] - mg}, [3]float64{pose.Hi[0] + mg, pose.Hi[1] + mg, pose.Hi[2] + mg}, 64)
			ours := multiview.NewCoherenceEvalTakeBack(vs, g, false).Score()
			saved := make([]multiview.Camera, len(vs))
			for i, v := range vs {
				saved[i] = v.Cam
				v.Cam = trueMVCam(m.cams[i], v.P.W)
			}
			tb := trueBoxWidened(m)
			truth := multiview.NewCoherenceEvalTakeBack(vs, multiview.GridFor(tb.Lo, tb.Hi, 64), false).Score()
			for i, v := range vs {
				v.Cam = saved[i]
			}
			line += fmt.Sprintf(" coherence ours %.4f true %.4f", ours, truth)
			fmt.Println(line)
			if next != nil {
				next(vs, pose)
			}
		}
	}
	return o
}

// setTruePoses sets every view's pose parameters to its true camera, expressed in
// the search's frame (the front view's parameters fixed: the world is the true one
// scaled and moved so that the front view's camera is the one its fixed
// parameters give).
func setTruePoses(m *mvScene, vs []*multiview.View) {
	lf := math.Log(m.base.f35 / shape.PhoneFocal35)
	tc := make([]multiview.Camera, len(vs))
	for i, v := range vs {
		tc[i] = trueMVCam(m.cams[i], v.P.W)
		_, te := trueAzEl(m.cams[i])
		v.Az, v.El, v.Lf = trueAzNearStated(m, i), te*math.Pi/180, lf
	}
	v0 := vs[0]
	v0.Update()
	sigma := v0.Cam.T[2] / tc[0].T[2]
	var d, T [3]float64
	for k := range 3 {
		d[k] = sigma*tc[0].T[k] - v0.Cam.T[k]
	}
	for c := range 3 {
		for k := range 3 {
			T[c] += tc[0].R[k][c] * d[k]
		}
	}
	for i := 1; i < len(vs); i++ {
		v := vs[i]
		var t [3]float64
		for k := range 3 {
			t[k] = sigma * tc[i].T[k]
			for c := range 3 {
				t[k] -= tc[i].R[k][c] * T[c]
			}
		}
		f := v.F0 * math.Exp(lf)
		v.Ls = math.Log(t[2]/v.BaseZ) - lf
		v.Du, v.Dv = v.Cam.Cx+t[0]*f/t[2], v.Cam.Cy-t[1]*f/t[2]
		v.Update()
	}
}

// trueAzNearStated is view i's true azimuth (radians), within half a turn of the
// stated one (as the search's azimuth is).
func trueAzNearStated(m *mvScene, i int) float64 {
	ta, _ := trueAzEl(m.cams[i])
	return (m.stated[i] + math.Remainder(ta-m.stated[i], 360)) * math.Pi / 180
}

// trueBoxWidened is m's true box widened by a tenth of its height on every side,
// with the voxel of a 64-layer grid over the height: where the oracles carve and
// score the true cameras.
func trueBoxWidened(m *mvScene) multiview.PoseResult {
	lo, hi := triBox(m.base.tris)
	d := 0.1 * (hi[1] - lo[1])
	return multiview.PoseResult{Lo: [3]float64{lo[0] - d, lo[1] - d, lo[2] - d}, Hi: [3]float64{hi[0] + d, hi[1] + d, hi[2] + d}, Voxel: (hi[1] - lo[1]) / 64}
}
