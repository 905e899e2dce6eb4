package reconstruct

import (
	"bytes"
	"context"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// A product whose colour is close to the backdrop's (a cream vase on a warm grey
// sweep, like the real set's candle holder) keeps its whole outline: the colour cut
// alone keeps only its shaded side, and the model is then built from that sliver.
// Fails without encloseRecover (mask IoU about 0.3).
func TestSegmentKeepsBackdropColouredProduct(t *testing.T) {
	if testing.Short() {
		t.Skip("segments a 384×512 photo")
	}
	t.Parallel()
	s := makeScene("vase", 2, 384, 512)
	s.gradient = false
	// Render once to learn the backdrop, then paint the vase a little lighter and
	// warmer than it (same seed: same backdrop and noise).
	first := s.photo(rand.New(rand.NewPCG(3, 9)))
	img, err := jpeg.Decode(bytes.NewReader(first))
	require.NoError(t, err)
	r, g, b, _ := img.At(4, 4).RGBA()
	bg := v3{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
	for i := range s.tris {
		s.tris[i].col = v3{min(255, bg[0]*1.1+6), min(255, bg[1]*1.1), min(255, bg[2]*1.1-12)}
	}
	photo := s.photo(rand.New(rand.NewPCG(3, 9)))
	p, err := segment.DecodePhoto(context.Background(), photo, DefaultWorkingSize)
	require.NoError(t, err)
	seg, err := segment.Segment(context.Background(), p)
	require.NoError(t, err)
	got := iou(maskOf(seg), silhouette(s.tris, s.cam))
	t.Logf("mask IoU %.3f", got)
	require.GreaterOrEqual(t, got, 0.9, "the backdrop-coloured vase lost its outline")
}
