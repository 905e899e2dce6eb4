package gltfvalidate

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// minimalGLB is a GLB with one empty scene: the smallest asset the validator accepts.
func minimalGLB(t *testing.T) []byte {
	t.Helper()
	js := []byte(`{"asset":{"version":"2.0","generator":"gltfvalidate test"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"empty"}]}`)
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	out := make([]byte, 0, 20+len(js))
	out = binary.LittleEndian.AppendUint32(out, 0x46546C67)
	out = binary.LittleEndian.AppendUint32(out, 2)
	out = binary.LittleEndian.AppendUint32(out, uint32(20+len(js)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = binary.LittleEndian.AppendUint32(out, 0x4E4F534A)
	return append(out, js...)
}

func TestValidateAcceptsMinimalGLB(t *testing.T) {
	t.Parallel()
	rep := Validate(t, minimalGLB(t))
	require.Equal(t, 0, rep.NumErrors)
	require.Equal(t, "gltfvalidate test", rep.Generator)
}

func TestRunReportsErrorsInGarbage(t *testing.T) {
	t.Parallel()
	script, err := validatorScript()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "bad.glb")
	require.NoError(t, os.WriteFile(path, []byte("definitely not a model"), 0o600))
	rep, err := run(script, path)
	require.NoError(t, err)
	require.Positive(t, rep.NumErrors)
	require.NotEmpty(t, rep.Messages)
}

func TestRepoRootFindsGoMod(t *testing.T) {
	t.Parallel()
	root, err := repoRoot()
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
}
