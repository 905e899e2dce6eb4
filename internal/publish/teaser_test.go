package publish_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/publish"
)

// The gate's teaser fits TeaserMaxSide whatever the poster's shape, puts a
// transparent background on white, and refuses what is not a picture.
func TestMakeTeaser(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ w, h, tw, th int }{{300, 900, 11, 32}, {1024, 1024, 32, 32}, {20, 10, 20, 10}, {2000, 10, 32, 1}} {
		im := image.NewNRGBA(image.Rect(0, 0, c.w, c.h)) // transparent
		var buf bytes.Buffer
		require.NoError(t, png.Encode(&buf, im))
		b, err := publish.MakeTeaser(buf.Bytes())
		require.NoError(t, err)
		got, err := jpeg.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		require.Equal(t, image.Pt(c.tw, c.th), got.Bounds().Size(), "%d×%d", c.w, c.h)
		r, g, bl, _ := got.At(0, 0).RGBA()
		require.Greater(t, min(r, g, bl), uint32(0xf000), "transparent is white: %v", color.RGBA64Model.Convert(got.At(0, 0)))
	}
	_, err := publish.MakeTeaser([]byte("\x89PNG\r\n\x1a\n not a poster"))
	require.Error(t, err)
}
