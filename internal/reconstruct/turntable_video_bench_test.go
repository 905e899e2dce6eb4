package reconstruct

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo/spinvideotest"
)

// The turntable benchmark from videos (issue 48): each real product of
// testdata/real/MANIFEST filmed as two 10-second 1080p videos, one per ring of
// the spin-set benchmark (TestTurntableRealSet: same heights, same turntable
// error), each a turn of 8 s at 12 fps and a quarter turn more, read into twelve
// photos a turn by SpinSetFromVideos and built by ReconstructSpin. Each model is
// scored by F@5 beside the same product's spin set from photos (runSpinModel);
// the target is within 0.03 of it.
//
//	go test ./internal/reconstruct -run 'TestTurntableVideoRealSet$' -v -timeout 120m -args -video
//
// PHOTO3D_ONLY names the models (comma-separated); TURNTABLE_RINGS the photo rings
// (default 12@0,12@30: the videos take as many photos a turn as each ring has);
// TURNTABLE_VIDEO_ONLY=1 builds the videos alone (the photos' columns print NaN);
// PHOTO3D_SPIN_BACKWARDS=1 films the turntable turning the other way.

var turntableVideoRun = flag.Bool("video", false, "run the real-product turntable benchmark from videos and print the table")

// Videos of the benchmark: a turn in videoTurnSec at videoFPS (TURNTABLE_VIDEO_FPS),
// filmed for a turn and a quarter (10 s). 12 fps keeps rendering 1080p frames
// affordable; its frames' spacing (3.75°) is about the photos' sharpness window
// (3°), and twelve photos a turn fall on whole frames (8 apart; 4 at 6 fps).
const videoTurnSec = 8.0

func videoFPS() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("TURNTABLE_VIDEO_FPS"), 64); err == nil && v > 0 {
		return v
	}
	return 12
}

func TestTurntableVideoRealSet(t *testing.T) {
	if !*turntableVideoRun {
		t.Skip("run with -video (needs the models: ops/realset.sh)")
	}
	if !realSetPresent() {
		t.Skip("real-product models missing: run ops/realset.sh")
	}
	spinvideotest.RequireFFmpeg(t)
	spec := os.Getenv("TURNTABLE_RINGS")
	if spec == "" {
		spec = "12@0,12@30"
	}
	rings, err := ParseRings(spec)
	require.NoError(t, err)
	require.LessOrEqual(t, len(rings), MaxVideos)
	fmt.Printf("| model | set | photos F@5 | video F@5 | video − photos | exact-pose hull | turns found (s; true %.0f) | photos s | video s |\n|---|---|---|---|---|---|---|---|---|\n", videoTurnSec)
	for _, set := range []string{"MANIFEST", "HELDOUT"} {
		var sp, sv, worst float64
		n := 0
		for _, e := range realManifestFile(t, set) {
			if !fourPhotoModel(e.name) {
				continue
			}
			p := spinResult{ours: math.NaN(), hull: math.NaN(), secs: math.NaN()}
			if os.Getenv("TURNTABLE_VIDEO_ONLY") != "1" { // 1: the photos' figures are taken from TestTurntableRealSet
				p = runSpinModel(t, e.name, rings)
			}
			v := runVideoModel(t, e.name, rings)
			fmt.Printf("| %s | %s | %.3f | %.3f | %+.3f | %.3f | %s | %.1f | %.1f |\n", e.name, strings.ToLower(set), p.ours, v.ours, v.ours-p.ours, p.hull, v.turns, p.secs, v.secs)
			sp, sv, n = sp+p.ours, sv+v.ours, n+1
			worst = min(worst, v.ours-p.ours)
		}
		if n > 0 {
			fmt.Printf("| **mean, %s (%d models, rings %s)** | | **%.3f** | **%.3f** | worst %+.3f | | | | |\n", strings.ToLower(set), n, spec, sp/float64(n), sv/float64(n), worst)
		}
	}
}

// videoResult is one real product built from turntable videos.
type videoResult struct {
	ours, secs float64
	turns      string
}

// runVideoModel films the real product name at the rings' heights and builds it
// from the videos; secs is reading the videos and building, not rendering.
func runVideoModel(t *testing.T, name string, rings []RingSpec) videoResult {
	base, radius := realStudioScene(name, loadRealModel(t, name))
	fps := videoFPS()
	perTurn := int(videoTurnSec * fps)
	vrings := make([]RingSpec, len(rings))
	for i, r := range rings {
		vrings[i] = RingSpec{Photos: perTurn, ElevationDeg: r.ElevationDeg}
	}
	m, _ := spinScene(base, radius, vrings, 1920, 1080, rand.New(rand.NewPCG(uint64(len(name))*7919+realMVSeed(), uint64(name[0]))), usualTurntableError)
	frames := spinVideoFrames(m)
	if os.Getenv("PHOTO3D_SPIN_BACKWARDS") == "1" {
		frames = turnedBackwards(vrings, frames) // the turntable turning the other way
	}
	paths := writeSpinVideos(t, t.TempDir(), frames, vrings, 1.25, fps)
	if os.Getenv("PHOTO3D_SPIN_DEBUG") == "phase" {
		multiview.SpinDebugPhase = func(ring int, phase, score, best float64) {
			fmt.Printf("    ring %d from %.0f°: settled at %.4f (the best so far %.4f)\n", ring+1, phase*180/math.Pi, score, best)
		}
		defer func() { multiview.SpinDebugPhase = nil }()
	}
	defer printEscapes()()
	start := time.Now()
	spin, reports, err := SpinSetFromVideos(context.Background(), paths, rings[0].Photos)
	require.NoError(t, err, name)
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{StrictSubject: true}, nil) // the worker's options
	require.NoError(t, err, name)
	var r videoResult
	r.secs = time.Since(start).Seconds()
	r.ours = f5(alignedModel(t, res.GLB), alignTruth(m.base.tris))
	var turns []string
	for _, v := range reports {
		turns = append(turns, fmt.Sprintf("%.2f", v.TurnSec))
	}
	r.turns = strings.Join(turns, ", ")
	fmt.Printf("    %s from video: coherence %.3f, largest azimuth slip %.1f°, rings at %v° (true %v°), turns %s s, fidelity %s, turned backwards %v\n", name, rep.Coherence, rep.MaxAzCorrection, roundAll(rep.RingElevations), trueRingElevations(m, vrings), r.turns, fidelityText(res.Stats.Fidelity), rep.TurnedBackwards)
	return r
}

// cpuWithChildren is the CPU time used so far by this process and its finished
// children (the ffmpeg runs).
func cpuWithChildren() float64 {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	t := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
	}
	return t(self) + t(kids)
}

// BenchmarkVideo20s1080p: one 20-second 1080p turntable video (H.264, 24 fps,
// two turns of 10 s of the test chest, spinvideotest.Chest: rendering 480
// 1080p frames of a triangle scene would take longer than the benchmark) to a
// validated GLB: probing, both decoding passes, twelve photos, the turntable
// build. Target: 90 s wall on a 2-core machine; cpu-s (this process and its
// ffmpeg runs) is the figure a busy machine does not inflate.
//
//	go test ./internal/reconstruct -run '^$' -bench 'BenchmarkVideo20s1080p$' -benchtime 1x -v
func BenchmarkVideo20s1080p(b *testing.B) {
	spinvideotest.RequireFFmpeg(b)
	const turnSec, seconds, fps = 10.0, 20.0, 24.0
	path := filepath.Join(b.TempDir(), "turntable.mp4")
	spinvideotest.Encode(b, path, spinvideotest.H264, fps, spinvideotest.Chest.Turning(1920, 1080, int(seconds*fps), int(turnSec*fps), 0, 1, nil))
	info, err := os.Stat(path)
	require.NoError(b, err)
	b.Logf("%s: %.1f MB", filepath.Base(path), float64(info.Size())/1e6)
	b.ResetTimer()
	for range b.N {
		cpu0 := cpuWithChildren()
		start := time.Now()
		spin, reports, err := SpinSetFromVideos(context.Background(), []string{path}, 12)
		require.NoError(b, err)
		read := time.Since(start)
		res, _, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
		require.NoError(b, err)
		wall := time.Since(start)
		cpu := cpuWithChildren() - cpu0
		b.StopTimer()
		rep := gltfvalidate.Validate(b, res.GLB)
		require.Zero(b, rep.NumWarnings)
		require.InDelta(b, turnSec, reports[0].TurnSec, 1/fps)
		if res.Stats.Fidelity == nil { // one ring of twelve: the halves are part of the build
			b.Fatal("no fidelity score")
		}
		b.ReportMetric(float64(*res.Stats.Fidelity), "fidelity")
		b.ReportMetric(read.Seconds(), "video-s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(cpu, "cpu-s")
		b.StartTimer()
	}
}
