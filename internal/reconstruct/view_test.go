package reconstruct

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRenderForHumans writes renders of synthetic scenes, and of any GLB files listed
// in PHOTO3D_RENDER_GLB (comma-separated), to PHOTO3D_RENDER_DIR so people can look at
// what the pipeline makes. Without PHOTO3D_RENDER_DIR it only checks that rendering
// works on one model.
func TestRenderForHumans(t *testing.T) {
	t.Parallel()
	scenes := map[string]scene{"bottle": twoToneBottle(320, 320)}
	if renderDir() != "" {
		scenes["blob"] = twoToneBlob(640, 480)
		scenes["rect"] = rectScene(500, 400)
	}
	for name, sc := range scenes {
		res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, sc.render()), Options{}, nil)
		require.NoError(t, err)
		g := readGLB(t, res.GLB)
		img := renderOrtho(g, 0.5, 0.2, 64)
		require.Equal(t, 64, img.Rect.Dx())
		renderViews(t, g, name)
	}
	for _, path := range strings.Split(os.Getenv("PHOTO3D_RENDER_GLB"), ",") {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		renderViews(t, readGLB(t, data), strings.TrimSuffix(filepath.Base(path), ".glb"))
	}
}
