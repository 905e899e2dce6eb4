package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
