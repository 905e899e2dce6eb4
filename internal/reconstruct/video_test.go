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
// the twelve-photo spin set photographed at the same moments (F@5 within 0.05).
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

	// The same scene's spin set as photos, taken where even spacing puts them:
	// those frames themselves (rendered as photos are, before any encoding).
	photoRings := []RingSpec{{Photos: 12, ElevationDeg: 0}, {Photos: 12, ElevationDeg: 30}}
	var photos [][]byte
	for r := range rings {
		for k := range 12 {
			photos = append(photos, frames[r*perTurn+k*perTurn/12])
		}
	}
	photoSpin, err := NewSpinSet(photoRings, photos)
	require.NoError(t, err)
	photoRes, _, err := NewBuiltin().(SpinReconstructor).ReconstructSpin(context.Background(), photoSpin, Options{}, nil)
	require.NoError(t, err)

	truthA := alignTruth(m.base.tris)
	fromVideo := f5(alignedModel(t, res.GLB), truthA)
	fromPhotos := f5(alignedModel(t, photoRes.GLB), truthA)
	t.Logf("chair from two videos: F@5 %.3f, from the 24-photo spin set %.3f; coherence %.3f, rings at %v (true %v)", fromVideo, fromPhotos, rep.Coherence, roundAll(rep.RingElevations), trueRingElevations(m, rings))
	require.GreaterOrEqual(t, fromVideo, fromPhotos-0.05, "as good as the photos of the same turn")
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
