package spinvideo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo/spinvideotest"
)

const (
	w, h    = 640, 360
	perTurn = 60 // frames a turn: a 5-second turn at 12 fps
	fps     = 12.0
)

// A video of a turn and a quarter becomes twelve photos of one turn: the turn is
// found within a frame of its true 5 s, the photos spaced evenly over it (each
// within a quarter step of its ideal time, the first at the start), full size,
// and what came after the turn is reported as left out. MP4 and WebM alike.
func TestExtractTakesTwelvePhotosOfOneTurn(t *testing.T) {
	for _, c := range []struct {
		codec spinvideotest.Codec
		name  string
	}{{spinvideotest.H264, "turn.mp4"}, {spinvideotest.VP9, "turn.webm"}} {
		t.Run(string(c.codec), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			spinvideotest.Encode(t, path, c.codec, fps, spinvideotest.Chest.Turning(w, h, perTurn*5/4, perTurn, 0, 1, nil))
			jpegs, rep, err := spinvideo.Extract(context.Background(), path, 12)
			require.NoError(t, err)
			t.Logf("%+v", rep)
			require.Len(t, jpegs, 12)
			require.InDelta(t, 5.0, rep.TurnSec, 1/fps, "one turn is 5 s")
			require.False(t, rep.SameFromEverySide)
			step := rep.TurnSec / 12
			for k, f := range rep.Frames {
				require.InDelta(t, float64(k)*step, f.IdealSec, 0.01)
				require.InDelta(t, f.IdealSec, f.Sec, step/4+1/fps/2, "photo %d", k)
			}
			require.Zero(t, rep.Frames[0].Sec, "the first photo is the video's first frame: the product's front")
			for _, j := range jpegs {
				img, err := jpeg.Decode(bytes.NewReader(j))
				require.NoError(t, err)
				require.Equal(t, w, img.Bounds().Dx())
				require.Equal(t, h, img.Bounds().Dy())
			}
			require.NotEmpty(t, rep.Dropped)
			last := rep.Dropped[len(rep.Dropped)-1]
			require.Equal(t, "after the first full turn", last.Reason)
			require.InDelta(t, 5.0, last.FromSec, 1/fps)
		})
	}
}

// Two and a half turns in one video still give one turn, not two; the photos
// come from the first.
func TestExtractTakesTheFirstOfSeveralTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns.mp4")
	spinvideotest.Encode(t, path, spinvideotest.H264, fps, spinvideotest.Chest.Turning(w, h, perTurn*5/2, perTurn, 0, 1, nil))
	jpegs, rep, err := spinvideo.Extract(context.Background(), path, 8)
	require.NoError(t, err)
	require.Len(t, jpegs, 8)
	require.InDelta(t, 5.0, rep.TurnSec, 1/fps)
}

// A table turning the other way round is a turn all the same: found within a
// frame of its 5 s, the photos spread evenly over it from the first frame. (The
// search then finds which way the photos go, multiview.SpinTurn; four real
// products filmed turning backwards build as filmed forwards, docs/benchmarks.md.)
func TestExtractFindsTheTurnOfATableTurningTheOtherWay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "backwards.mp4")
	spinvideotest.Encode(t, path, spinvideotest.H264, fps, spinvideotest.Chest.Turning(w, h, perTurn*5/4, -perTurn, 0, 1, nil))
	jpegs, rep, err := spinvideo.Extract(context.Background(), path, 12)
	require.NoError(t, err)
	require.Len(t, jpegs, 12)
	require.InDelta(t, 5.0, rep.TurnSec, 1/fps, "one turn is 5 s, whichever way it goes")
	require.False(t, rep.SameFromEverySide)
	require.Zero(t, rep.Frames[0].Sec)
	step := rep.TurnSec / 12
	for k, f := range rep.Frames {
		require.InDelta(t, f.IdealSec, f.Sec, step/4+1/fps/2, "photo %d", k)
	}
}

// A product that looks the same from every side (a plain cylinder) shows no
// turn: the whole video is taken as one, and the report says why.
func TestExtractTakesTheWholeVideoOfARoundProduct(t *testing.T) {
	path := filepath.Join(t.TempDir(), "round.mp4")
	can := spinvideotest.Product{Round: true, Width: 0.3, Height: 0.6, Front: color.RGBA{60, 120, 80, 255}}
	spinvideotest.Encode(t, path, spinvideotest.H264, fps, can.Turning(w, h, 48, perTurn, 0, 1, nil))
	jpegs, rep, err := spinvideo.Extract(context.Background(), path, 12)
	require.NoError(t, err)
	require.Len(t, jpegs, 12)
	require.True(t, rep.SameFromEverySide)
	require.InDelta(t, 4.0, rep.TurnSec, 1/fps)
}

// Each way a merchant's video can fail is refused with the sentence that says
// what to do, before any photo is made.
func TestExtractRefusesVideosThatAreNotOneTurn(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, frames int, p spinvideotest.Product, scale float64, shift func(int) (int, int)) string {
		path := filepath.Join(dir, name)
		spinvideotest.Encode(t, path, spinvideotest.H264, fps, p.Turning(w, h, frames, perTurn, 0, scale, shift))
		return path
	}
	junk := filepath.Join(dir, "junk.mp4")
	noise := make([]byte, 64<<10)
	_, _ = rand.Read(noise)
	require.NoError(t, os.WriteFile(junk, noise, 0o644))
	// An MP4 header on a body that is not one.
	fake := filepath.Join(dir, "fake.mp4")
	require.NoError(t, os.WriteFile(fake, append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), noise...), 0o644))

	// A cut: the chest, then another product.
	cut := filepath.Join(dir, "cut.mp4")
	other := spinvideotest.Product{Width: 0.3, Depth: 0.3, Height: 0.4, Front: color.RGBA{200, 180, 40, 255}, Side: color.RGBA{30, 150, 60, 255}}
	frames := append(spinvideotest.Chest.Turning(w, h, 40, perTurn, 0, 1, nil), other.Turning(w, h, 40, perTurn, 0, 1, nil)...)
	spinvideotest.Encode(t, cut, spinvideotest.H264, fps, frames)

	for _, c := range []struct {
		name string
		path string
		want error
	}{
		{"random bytes named .mp4", junk, spinvideo.ErrNotVideo},
		{"an MP4 header on random bytes", fake, spinvideo.ErrNotVideo},
		{"a one-second video", write("short.mp4", 12, spinvideotest.Chest, 1, nil), spinvideo.ErrTooShort},
		{"half a turn", write("half.mp4", perTurn/2+6, spinvideotest.Chest, 1, nil), spinvideo.ErrNoFullTurn},
		{"a camera panning 8 % of the width over the video", write("pan.mp4", perTurn*5/4, spinvideotest.Chest, 1, func(i int) (int, int) { return i * w * 8 / 100 / (perTurn * 5 / 4), 0 }), spinvideo.ErrCameraMoved},
		{"a camera sinking", write("sink.mp4", perTurn*5/4, spinvideotest.Chest, 1, func(i int) (int, int) { return 0, i * h * 8 / 100 / (perTurn * 5 / 4) }), spinvideo.ErrCameraMoved},
		{"a product too big for the frame", write("big.mp4", perTurn*5/4, spinvideotest.Chest, 1.9, nil), spinvideo.ErrLeavesFrame},
		{"a cut to another product", cut, spinvideo.ErrCut},
	} {
		t.Run(c.name, func(t *testing.T) {
			jpegs, _, err := spinvideo.Extract(context.Background(), c.path, 12)
			require.ErrorIs(t, err, c.want)
			require.ErrorIs(t, err, spinvideo.ErrVideo)
			var e *spinvideo.Error
			require.True(t, errors.As(err, &e))
			require.Nil(t, jpegs)
			t.Log(err)
		})
	}
}

// The extracted frames keep the video's detail: the frame at 0 s matches the
// rendered front closely.
func TestExtractedFramesMatchTheVideo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turn.mp4")
	frames := spinvideotest.Chest.Turning(w, h, perTurn*5/4, perTurn, 0, 1, nil)
	spinvideotest.Encode(t, path, spinvideotest.H264, fps, frames)
	jpegs, _, err := spinvideo.Extract(context.Background(), path, 12)
	require.NoError(t, err)
	got := spinvideotest.DecodeJPEG(t, jpegs[0])
	var s float64
	for i := range got.Pix {
		if i%4 != 3 {
			s += math.Abs(float64(got.Pix[i]) - float64(frames[0].Pix[i]))
		}
	}
	require.Less(t, s/float64(w*h*3), 3.0, "mean error in grey levels")
}

// A phone's video is larger than the model needs and often upright (stored
// sideways with a rotation tag): the photos come out upright, the long side
// scaled to 1920.
func TestExtractScalesAndTurnsUprightAPhoneVideo(t *testing.T) {
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.mp4")
	// 2560×1440 stored, tagged to be shown turned a quarter: 1440×2560 upright.
	spinvideotest.Encode(t, wide, spinvideotest.H264, fps, spinvideotest.Chest.Turning(2560, 1440, 30, 24, 0, 1, nil))
	upright := filepath.Join(dir, "upright.mp4")
	out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", wide, "-c", "copy", "-metadata:s:v:0", "rotate=90", upright).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, c := range []struct {
		path string
		w, h int
	}{{wide, 1920, 1080}, {upright, 1080, 1920}} {
		jpegs, rep, err := spinvideo.Extract(context.Background(), c.path, 4)
		require.NoError(t, err)
		require.InDelta(t, 2.0, rep.TurnSec, 1/fps)
		require.Equal(t, c.w*1440/1080, rep.Width, "the video as shown")
		img, err := jpeg.Decode(bytes.NewReader(jpegs[0]))
		require.NoError(t, err)
		require.Equal(t, c.w, img.Bounds().Dx())
		require.Equal(t, c.h, img.Bounds().Dy())
	}
}
