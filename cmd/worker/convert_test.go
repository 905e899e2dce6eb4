package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo"
	"github.com/photo3d/photo3d/internal/reconstruct/spinvideo/spinvideotest"
)

// `worker convert` prints the model's fidelity score with its stats, and refuses a
// photo without a separable product with the same sentence a job would show.
func TestConvertPrintsFidelityAndRefusesAnInseparablePhoto(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "vase.png")
	require.NoError(t, os.WriteFile(in, jobtest.PNG(t, 320, 320), 0o644))
	var out, errOut strings.Builder
	code := runConvert(context.Background(), []string{in, filepath.Join(dir, "vase.glb")}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var st convertStats
	require.NoError(t, json.Unmarshal([]byte(out.String()), &st))
	require.NotNil(t, st.Fidelity)
	require.GreaterOrEqual(t, *st.Fidelity, reconstruct.FidelityWarnBelow, "a plain product shot matches its model")
	require.LessOrEqual(t, *st.Fidelity, 100)
	require.Empty(t, st.Warnings)
	require.Empty(t, errOut.String(), "nothing to warn about")

	// A photo that cuts the vase off at its right edge is built, and the builder's
	// warning is printed with the stats and to stderr.
	cut := filepath.Join(dir, "cut.png")
	require.NoError(t, os.WriteFile(cut, jobtest.OffFrame(t, 320, 320), 0o644))
	out.Reset()
	code = runConvert(context.Background(), []string{cut, filepath.Join(dir, "cut.glb")}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	st = convertStats{}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &st))
	const warning = "The product runs off the right edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."
	require.Equal(t, []string{warning}, st.Warnings)
	require.Contains(t, errOut.String(), "convert: warning: "+warning+"\n")

	busy := filepath.Join(dir, "close-up.png")
	require.NoError(t, os.WriteFile(busy, jobtest.CloseUp(t), 0o644))
	out.Reset()
	errOut.Reset()
	code = runConvert(context.Background(), []string{busy, filepath.Join(dir, "busy.glb")}, &out, &errOut)
	require.Equal(t, 1, code)
	require.Equal(t, reconstruct.ErrSubjectNotSeparated.Error()+"\n", errOut.String())
}

// `worker convert` takes further photos of the same product as further angles:
// four photos (here the same lathe-turned vase, identical from every side) make one
// model from four views, with or without stated azimuths; a wrong -azimuths list is
// a usage error that writes nothing.
func TestConvertBuildsOneModelFromSeveralPhotos(t *testing.T) {
	dir := t.TempDir()
	ins := writeVasePhotos(t, dir, 4)
	for _, args := range [][]string{
		append(append([]string{"-azimuths", "0,90,180,270"}, ins...), filepath.Join(dir, "a.glb")),
		append(append([]string{}, ins...), filepath.Join(dir, "b.glb")),
	} {
		var out, errOut strings.Builder
		code := runConvert(context.Background(), args, &out, &errOut)
		require.Equal(t, 0, code, errOut.String())
		var st convertStats
		require.NoError(t, json.Unmarshal([]byte(out.String()), &st))
		require.Equal(t, 4, st.Views)
		require.Equal(t, reconstruct.ShapeMultiView, st.Shape)
		glb, err := os.ReadFile(args[len(args)-1])
		require.NoError(t, err)
		gltfvalidate.Validate(t, glb)
	}

	var out, errOut strings.Builder
	bad := filepath.Join(dir, "bad.glb")
	code := runConvert(context.Background(), append(append([]string{"-azimuths", "0,90"}, ins...), bad), &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), "-azimuths has 2 values for 4 photos")
	require.NoFileExists(t, bad)
}

// `worker convert -rings` takes the photos as a turntable spin set (issue 48 §6):
// eight photos of a turned vase (identical from every side, as a round product on a
// turntable is) make one validated model whose stats carry the turntable fit; a
// layout that does not match the photos, a ring too short to be a turn, a photo
// the product runs off, or a malformed -rings is refused with its reason and
// writes nothing.
func TestConvertBuildsOneModelFromASpinSet(t *testing.T) {
	dir := t.TempDir()
	ins := writeVasePhotos(t, dir, 8)
	glbPath := filepath.Join(dir, "spin.glb")
	var out, errOut strings.Builder
	code := runConvert(context.Background(), append(append([]string{"-rings", "8@10"}, ins...), glbPath), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var st convertStats
	require.NoError(t, json.Unmarshal([]byte(out.String()), &st))
	require.Equal(t, 8, st.Views)
	require.Equal(t, reconstruct.ShapeTurntable, st.Shape)
	require.NotNil(t, st.Spin, "the turntable fit is reported")
	require.Len(t, st.Spin.RingElevations, 1)
	require.Greater(t, st.Spin.Coherence, 0.8, "identical silhouettes of a round product agree from every side")
	require.Nil(t, st.Fidelity, "a ring of eight does not split into two halves of six to score it")
	glb, err := os.ReadFile(glbPath)
	require.NoError(t, err)
	gltfvalidate.Validate(t, glb)

	offFrame := filepath.Join(dir, "off-frame.png") // the vase moved until it runs off the right edge
	require.NoError(t, os.WriteFile(offFrame, jobtest.OffFrame(t, 320, 320), 0o644))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{append(append([]string{"-rings", "4@0,3@30"}, ins[:7]...), filepath.Join(dir, "a.glb")), 1, "at least 4 in each ring, each ring one full turn: ring 2 has 3 photos"},
		{append(append([]string{"-rings", "12@0"}, ins...), filepath.Join(dir, "b.glb")), 1, "the rings name 12 photos, 8 were given"},
		{append(append([]string{"-rings", "twelve"}, ins...), filepath.Join(dir, "c.glb")), 2, `ring "twelve": want PHOTOS@ELEVATION, e.g. 12@30`},
		{append(append([]string{"-rings", "8@0", "-azimuths", "0,45,90,135,180,225,270,315"}, ins...), filepath.Join(dir, "d.glb")), 2, "-rings and -azimuths cannot be used together"},
		{append(append(append([]string{"-rings", "8@10"}, ins[:4]...), offFrame, ins[5], ins[6], ins[7]), filepath.Join(dir, "e.glb")), 1,
			"photo 5: the product runs off the edge of the frame; step back or zoom out"},
	} {
		out.Reset()
		errOut.Reset()
		code := runConvert(context.Background(), c.args, &out, &errOut)
		require.Equal(t, c.code, code, errOut.String())
		require.Contains(t, errOut.String(), c.want)
		require.NoFileExists(t, c.args[len(c.args)-1])
	}
}

// `worker convert -video` takes a turntable video as a spin set's ring (issue 48):
// a turn and a quarter of a product (a chest with a post, no two sides alike)
// filmed at 12 fps, a turn every 5 s, makes one validated model from twelve
// photos of its first turn; the stats line carries the turntable fit and the
// video's report (its turn, the moments taken). A video of half a turn is refused
// with the sentence a merchant sees, and -video with photos or -rings is a usage
// error; neither writes a model.
func TestConvertBuildsOneModelFromATurntableVideo(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "turn.mp4")
	spinvideotest.Encode(t, video, spinvideotest.H264, 12, spinvideotest.Chest.Turning(640, 480, 75, 60, 0, 1, nil))
	glbPath := filepath.Join(dir, "video.glb")
	var out, errOut strings.Builder
	code := runConvert(context.Background(), []string{"-video", video, glbPath}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var st convertStats
	require.NoError(t, json.Unmarshal([]byte(out.String()), &st))
	require.Equal(t, spinvideo.DefaultFrames, st.Views)
	require.Equal(t, reconstruct.ShapeTurntable, st.Shape)
	require.NotNil(t, st.Spin, "the turntable fit is reported")
	require.Len(t, st.Spin.RingElevations, 1)
	require.Len(t, st.Videos, 1, "the video's report")
	require.InDelta(t, 5.0, st.Videos[0].TurnSec, 1/12.0)
	require.Len(t, st.Videos[0].Frames, spinvideo.DefaultFrames)
	require.Positive(t, st.Ms.Video)
	glb, err := os.ReadFile(glbPath)
	require.NoError(t, err)
	gltfvalidate.Validate(t, glb)

	half := filepath.Join(dir, "half.mp4")
	spinvideotest.Encode(t, half, spinvideotest.H264, 12, spinvideotest.Chest.Turning(640, 480, 36, 60, 0, 1, nil))
	photo := filepath.Join(dir, "photo.png")
	require.NoError(t, os.WriteFile(photo, jobtest.PNG(t, 320, 320), 0o644))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-video", half, filepath.Join(dir, "a.glb")}, 1, spinvideo.ErrNoFullTurn.Error()},
		{[]string{"-video", video, "-video", half, filepath.Join(dir, "b.glb")}, 1, "video 2: " + spinvideo.ErrNoFullTurn.Error()},
		{[]string{"-video", video, photo, filepath.Join(dir, "c.glb")}, 2, "with -video, name only the output"},
		{[]string{"-video", video, "-rings", "12@0", filepath.Join(dir, "d.glb")}, 2, "-video cannot be used with -rings or -azimuths"},
	} {
		out.Reset()
		errOut.Reset()
		code := runConvert(context.Background(), c.args, &out, &errOut)
		require.Equal(t, c.code, code, errOut.String())
		require.Contains(t, errOut.String(), c.want)
		require.NoFileExists(t, c.args[len(c.args)-1])
	}
}

// writeVasePhotos writes n photos of the test vase (identical from every side, as a
// lathe-turned product is) into dir and returns their paths in order.
func writeVasePhotos(t *testing.T, dir string, n int) []string {
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("vase-%02d.png", i))
		require.NoError(t, os.WriteFile(p, jobtest.PNG(t, 320, 320), 0o644))
		paths = append(paths, p)
	}
	return paths
}
