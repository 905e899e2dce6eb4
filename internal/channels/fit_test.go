package channels_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// photo is a small product photo: a tan vase on white.
func photo(t testing.TB, side int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, side, side*13/10))
	h := img.Bounds().Dy()
	for y := range h {
		for x := range side {
			c := color.RGBA{250, 250, 250, 255}
			dx := float64(x-side/2) / (float64(side)*0.28 + float64(side)*0.1*math.Sin(float64(y)/float64(h)*6))
			dy := float64(y-h/2) / (float64(h) * 0.42)
			if dx*dx+dy*dy < 1 {
				c = color.RGBA{uint8(120 + 100*y/h), uint8(90 + (x*7)%40), 60, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

var model = sync.OnceValues(func() ([]byte, error) {
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), photo(nil, 320), reconstruct.Options{}, nil)
	if err != nil {
		return nil, err
	}
	return res.GLB, nil
})

func realModel(t testing.TB) []byte {
	t.Helper()
	glb, err := model()
	require.NoError(t, err)
	return glb
}

func stats(t *testing.T, glb []byte) (tris, texSide int) {
	t.Helper()
	doc := new(gltf.Document)
	require.NoError(t, gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc))
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			tris += doc.Accessors[*p.Indices].Count / 3
		}
	}
	for _, im := range doc.Images {
		v := doc.BufferViews[*im.BufferView]
		c, _, err := image.DecodeConfig(bytes.NewReader(doc.Buffers[0].Data[v.ByteOffset : v.ByteOffset+v.ByteLength]))
		require.NoError(t, err)
		texSide = max(texSide, c.Width, c.Height)
	}
	return tris, texSide
}

// A model within the budget is passed on byte for byte, with nothing to say.
func TestFitKeepsAModelWithinBudget(t *testing.T) {
	t.Parallel()
	glb := realModel(t)
	out, notes, err := channels.FitGLB(glb, channels.CommerceBudget)
	require.NoError(t, err)
	require.Equal(t, glb, out)
	require.Empty(t, notes)
	require.Equal(t, "green", channels.CommerceBudget.Status(int64(len(out))))
}

// Over a channel's texture limit: textures are resized to it, the file
// stays a valid GLB (Khronos validator) and the notes say why.
func TestFitResizesTexturesOverTheChannelsLimit(t *testing.T) {
	t.Parallel()
	glb := realModel(t)
	tris, side := stats(t, glb)
	require.Greater(t, side, 128)
	out, notes, err := channels.FitGLB(glb, channels.Budget{WarnBytes: 1 << 30, MaxBytes: 1 << 30, MaxTexture: 128})
	require.NoError(t, err)
	gltfvalidate.Validate(t, out)
	gotTris, gotSide := stats(t, out)
	require.Equal(t, tris, gotTris)
	require.Equal(t, 128, gotSide)
	require.Less(t, len(out), len(glb))
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "resized to at most 128 px")
}

// Over the byte budget with small textures already: the mesh is
// simplified until the file fits, and stays valid.
func TestFitSimplifiesAMeshOverTheByteBudget(t *testing.T) {
	t.Parallel()
	glb := realModel(t)
	small, _, err := channels.FitGLB(glb, channels.Budget{WarnBytes: 1 << 30, MaxBytes: 1 << 30, MaxTexture: 128})
	require.NoError(t, err)
	tris, _ := stats(t, small)
	budget := int64(len(small)) * 3 / 4
	out, notes, err := channels.FitGLB(glb, channels.Budget{WarnBytes: budget, MaxBytes: budget, MaxTexture: 128})
	require.NoError(t, err)
	require.LessOrEqual(t, int64(len(out)), budget)
	gltfvalidate.Validate(t, out)
	gotTris, _ := stats(t, out)
	require.Less(t, gotTris, tris)
	require.Greater(t, gotTris, 0)
	require.Contains(t, notes[len(notes)-1], "mesh simplified")
	require.Equal(t, "amber", channels.Budget{WarnBytes: budget / 2, MaxBytes: budget}.Status(int64(len(out))))
}

// A budget no reduction can reach is an error, not a broken file.
func TestFitRefusesAnImpossibleBudget(t *testing.T) {
	t.Parallel()
	_, _, err := channels.FitGLB(realModel(t), channels.Budget{WarnBytes: 2000, MaxBytes: 2000, MaxTexture: 4096})
	require.ErrorIs(t, err, channels.ErrCannotFit)
	require.Equal(t, "red", channels.Budget{WarnBytes: 10, MaxBytes: 20}.Status(21))
}
