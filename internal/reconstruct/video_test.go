package reconstruct

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo/spinvideotest"
)

// spinVideoFrames renders every camera of a spin scene as a video frame (JPEG, as
// the renderer makes them), on both cores: the same backdrop and sensor noise in
// every frame (one camera, one light), as a video's frames have, where photos()
// draws a studio per photo.
func spinVideoFrames(m *mvScene) [][]byte {
	out := make([][]byte, len(m.cams))
	done := make(chan struct{})
	work := make(chan int)
	for range 2 {
		go func() {
			for k := range work {
				s := *m.base
				s.cam = m.cams[k]
				out[k] = s.photo(rand.New(rand.NewPCG(11, 5)))
			}
			done <- struct{}{}
		}()
	}
	for k := range m.cams {
		work <- k
	}
	close(work)
	<-done
	<-done
	return out
}

// writeSpinVideos encodes each ring of a spin scene (perTurn frames over one turn)
// as one video of turns turns at fps, the first ring as MP4 (H.264) and the others
// as WebM (VP9), and returns their paths, lowest ring first.
func writeSpinVideos(t testing.TB, dir string, frames [][]byte, rings []RingSpec, turns, fps float64) []string {
	var paths []string
	at := 0
	for i, r := range rings {
		var video [][]byte
		for k := range int(turns * float64(r.Photos)) {
			video = append(video, frames[at+k%r.Photos]) // after a turn the product is where it started
		}
		codec, ext := spinvideotest.H264, "mp4"
		if i > 0 {
			codec, ext = spinvideotest.VP9, "webm"
		}
		p := filepath.Join(dir, fmt.Sprintf("ring%d.%s", i+1, ext))
		spinvideotest.EncodeJPEGs(t, p, codec, fps, video)
		paths = append(paths, p)
		at += r.Photos
	}
	return paths
}

// A synthetic chair filmed on a turntable at two heights (an MP4 level with it
// and a WebM from 30° above, 48 frames a turn at 12 fps, a turn and a quarter
// each, the turntable's usual errors) comes back as the chair: each video's turn
// is found (4 s), its twelve photos make a validated GLB as close to the truth as
// the hull carved from the true silhouettes with the exact cameras of the same
// moments (F@5 within 0.05).
func TestVideoRebuildsAChairFromTwoTurntableVideos(t *testing.T) {
	if testing.Short() {
		t.Skip("renders, encodes and reconstructs two videos")
	}
	// The package's longest test, single-threaded for most of it: beside the
	// other parallel tests it uses the core the sequential ones leave idle. It
	// sets no package state (the turntable tests' SpinDebugLOO hook is set and
	// cleared before any parallel test resumes).
	t.Parallel()
	spinvideotest.RequireFFmpeg(t)
	const perTurn, fps = 48, 12.0
	base, radius := furnitureScene("chair", 1)
	rings := []RingSpec{{Photos: perTurn, ElevationDeg: 0}, {Photos: perTurn, ElevationDeg: 30}}
	m, _ := spinScene(base, radius, rings, 640, 480, rand.New(rand.NewPCG(48, 3)), usualTurntableError)
	frames := spinVideoFrames(m)
	paths := writeSpinVideos(t, t.TempDir(), frames, rings, 1.25, fps)

	spin, reports, err := SpinSetFromVideos(context.Background(), paths, 12)
	require.NoError(t, err)
	require.Len(t, spin.Rings, 2)
	for i, rep := range reports {
		t.Logf("video %d: turn %.2f s, match %.2f, frames %v, dropped %v", i+1, rep.TurnSec, rep.TurnMatch, rep.Frames, rep.Dropped)
		require.InDelta(t, perTurn/fps, rep.TurnSec, 1/fps, "video %d's turn", i+1)
		require.Len(t, spin.Rings[i].Images, 12)
		require.Equal(t, VideoElevationsDeg[i], spin.Rings[i].ElevationDeg)
	}
	res, rep, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), spin, Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, ShapeTurntable, res.Stats.ShapeKind)
	require.Equal(t, 24, res.Stats.Views)
	requireProductGLB(t, res.GLB, DefaultHeightMetres, "Photo3D builtin")

	// What these 24 views can give at best: the hull carved from the true
	// silhouettes with the exact cameras of the frames where even spacing puts the
	// photos (a second build from those frames as photos scored 0.979 against the
	// videos' 0.973, and cost as much CPU as the rest of the test).
	picked := &mvScene{base: m.base}
	for r := range rings {
		for k := range 12 {
			picked.cams = append(picked.cams, m.cams[r*perTurn+k*perTurn/12])
		}
	}
	truthA := alignTruth(m.base.tris)
	fromVideo := f5(alignedModel(t, res.GLB), truthA)
	hull := f5(alignTruth(exactHull(t, picked, DefaultMaxTriangles)), truthA)
	t.Logf("chair from two videos: F@5 %.3f, the exact-pose hull of the same 24 views %.3f; coherence %.3f, rings at %v (true %v), fidelity %s", fromVideo, hull, rep.Coherence, roundAll(rep.RingElevations), trueRingElevations(m, rings), fidelityText(res.Stats.Fidelity))
	require.GreaterOrEqual(t, fromVideo, hull-0.05, "as close to the truth as these views allow")
	require.NotNil(t, res.Stats.Fidelity, "two rings of twelve frames are scored")
	require.GreaterOrEqual(t, *res.Stats.Fidelity, 80, "both halves of the frames rebuild the chair")
}

// Videos that cannot make a spin set are refused with the video's number and
// its reason, or, for the layout, with ErrSpinSet.
func TestVideoSpinSetRefusals(t *testing.T) {
	spinvideotest.RequireFFmpeg(t)
	dir := t.TempDir()
	short := filepath.Join(dir, "short.mp4")
	spinvideotest.Encode(t, short, spinvideotest.H264, 12, spinvideotest.Chest.Turning(640, 360, 12, 60, 0, 1, nil))
	good := filepath.Join(dir, "good.mp4")
	spinvideotest.Encode(t, good, spinvideotest.H264, 12, spinvideotest.Chest.Turning(640, 360, 75, 60, 0, 1, nil))

	_, reports, err := SpinSetFromVideos(context.Background(), []string{good, short}, 12)
	require.ErrorIs(t, err, spinvideo.ErrTooShort)
	require.ErrorContains(t, err, "video 2: the video is too short")
	require.Len(t, reports, 2)
	require.InDelta(t, 5.0, reports[0].TurnSec, 1/12.0)

	_, _, err = SpinSetFromVideos(context.Background(), []string{good, good, good, good}, 12)
	require.ErrorIs(t, err, ErrSpinSet)
	_, _, err = SpinSetFromVideos(context.Background(), []string{good, good, good}, 30)
	require.ErrorIs(t, err, ErrSpinSet, "90 photos")
	_, _, err = SpinSetFromVideos(context.Background(), nil, 12)
	require.ErrorIs(t, err, ErrSpinSet)

	spin, _, err := SpinSetFromVideos(context.Background(), []string{good}, 0)
	require.NoError(t, err)
	require.Len(t, spin.Rings[0].Images, spinvideo.DefaultFrames)
}
