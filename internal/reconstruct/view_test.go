package reconstruct

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRenderForHumans(t *testing.T) {
	if renderDir() == "" {
		t.Log("set PHOTO3D_RENDER_DIR to write renders")
		return
	}
	for name, sc := range map[string]scene{
		"bottle": twoToneBottle(640, 640),
		"blob":   twoToneBlob(640, 480),
		"rect":   rectScene(500, 400),
	} {
		res, err := NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, sc.render()), Options{}, nil)
		require.NoError(t, err)
		renderViews(t, readGLB(t, res.GLB), name)
	}
}
