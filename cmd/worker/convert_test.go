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
	var ins []string
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("vase-%d.png", i))
		require.NoError(t, os.WriteFile(p, jobtest.PNG(t, 320, 320), 0o644))
		ins = append(ins, p)
	}
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
