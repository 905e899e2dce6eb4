package reconstruct

import (
	"context"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

func photoFrom(img *image.NRGBA) *segment.Photo {
	return &segment.Photo{Img: img, W: img.Rect.Dx(), H: img.Rect.Dy(), SrcW: img.Rect.Dx(), SrcH: img.Rect.Dy(), HasAlpha: segment.MeaningfulAlpha(img)}
}

// segmentedMask segments a photo as the pipeline does and returns its mask.
func segmentedMask(t *testing.T, data []byte) []bool {
	t.Helper()
	p, err := segment.DecodePhoto(context.Background(), data, DefaultWorkingSize)
	require.NoError(t, err)
	seg, err := segment.Segment(context.Background(), p)
	require.NoError(t, err)
	return maskOf(seg)
}

// partsKept segments a photo and returns, for each part's true mask (disjoint), its
// size and the share of it kept, and how many kept pixels outside every part are
// shadow by the scene's rule (the contact shadow under the product).
func partsKept(t *testing.T, data []byte, shadow func(i int) bool, parts ...[]bool) (size []int, recall []float64, shadowKept int) {
	t.Helper()
	size, kept := make([]int, len(parts)), make([]int, len(parts))
	for i, v := range segmentedMask(t, data) {
		in := false
		for k, part := range parts {
			if part[i] {
				in = true
				size[k]++
				if v {
					kept[k]++
				}
				break
			}
		}
		if !in && v && shadow(i) {
			shadowKept++
		}
	}
	recall = make([]float64, len(parts))
	for k := range parts {
		recall[k] = float64(kept[k]) / float64(max(1, size[k]))
	}
	return size, recall, shadowKept
}

func maskOf(s *segment.Segmentation) []bool {
	m := make([]bool, len(s.Alpha))
	for i, a := range s.Alpha {
		m[i] = a >= 128
	}
	return m
}

func TestSegmentIoU(t *testing.T) {
	t.Parallel()
	const w, h = 640, 640
	tests := []struct {
		name  string
		scene scene
	}{
		{"bottle on white", bottleScene(w, h, solid(252, 252, 252), false)},
		{"bottle on white with soft shadow", bottleScene(w, h, solid(245, 245, 245), true)},
		{"bottle on coloured backdrop", bottleScene(w, h, solid(230, 180, 60), true)},
		{"bottle on mild gradient with shadow", bottleScene(w, h, gradient([3]float64{235, 238, 245}, [3]float64{200, 205, 215}, h), true)},
		{"blob on blue", blobScene(w, h, solid(40, 70, 200))},
		{"blob on gradient", blobScene(w, h, gradient([3]float64{250, 250, 250}, [3]float64{215, 215, 220}, h))},
		{"rectangle on blue", rectScene(w, h)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := photoFrom(tc.scene.render())
			seg, err := segment.Segment(context.Background(), p)
			require.NoError(t, err)
			got := iou(maskOf(seg), tc.scene.truth())
			t.Logf("IoU %.4f", got)
			require.GreaterOrEqual(t, got, 0.97)
		})
	}
}

func TestSegmentUsesAlpha(t *testing.T) {
	t.Parallel()
	sc := blobScene(300, 240, solid(0, 0, 0))
	img := image.NewNRGBA(image.Rect(0, 0, sc.w, sc.h))
	truth := sc.truth()
	for i, in := range truth {
		if in {
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = 200, 90, 30, 255
		} else {
			// Transparent pixels carry a colour close to the object's on purpose: only
			// alpha may decide.
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = 190, 90, 30, 0
		}
	}
	img.SetNRGBA(5, 5, color.NRGBA{200, 90, 30, 255}) // a stray opaque speck is dropped
	p := photoFrom(img)
	require.True(t, p.HasAlpha)
	seg, err := segment.Segment(context.Background(), p)
	require.NoError(t, err)
	require.GreaterOrEqual(t, iou(maskOf(seg), truth), 0.99)
	require.Zero(t, seg.Alpha[5*sc.w+5])
}

// gridMask draws filled rectangles [x0,x1)×[y0,y1) on a w×h grid.
func gridMask(w, h int, rects ...[4]int) []bool {
	m := make([]bool, w*h)
	for _, r := range rects {
		for y := r[2]; y < r[3]; y++ {
			for x := r[0]; x < r[1]; x++ {
				m[y*w+x] = true
			}
		}
	}
	return m
}

// A lamp whose thin stem the cut split from the shade by one grid row is one object:
// the backdrop beside the stem, between shade and base, stays background, while a
// bottle cut in two by a backdrop-coloured label band is still bridged whole.
func TestJoinPiecesSealsCracksBeforeBridging(t *testing.T) {
	t.Parallel()
	const w, h = 60, 80
	// shade rows 10–39, crack row 40, stem rows 41–54 (4 wide), base rows 55–74
	lamp := gridMask(w, h, [4]int{10, 50, 10, 40}, [4]int{28, 32, 41, 55}, [4]int{15, 45, 55, 75})
	got := segment.LargestComponent(segment.JoinPieces(lamp, w, h), w, h)
	for _, p := range [][2]int{{20, 48}, {40, 48}, {27, 45}, {32, 45}} {
		require.False(t, got[p[1]*w+p[0]], "backdrop beside the stem at %v filled", p)
	}
	for _, p := range [][2]int{{30, 20}, {30, 40}, {30, 48}, {30, 65}} {
		require.True(t, got[p[1]*w+p[0]], "shade, crack, stem and base at %v kept as one object", p)
	}

	// bottle body rows 10–39 and 45–74 split by a 5-row label band across its whole width
	bottle := gridMask(w, h, [4]int{20, 40, 10, 40}, [4]int{20, 40, 45, 75})
	got = segment.LargestComponent(segment.JoinPieces(bottle, w, h), w, h)
	for y := 10; y < 75; y++ {
		require.True(t, got[y*w+30], "bottle row %d bridged", y)
	}
}

// The photo of a lamp (scene lamp-o of the quality benchmark) where the cut splits
// the stem from the shade by one grid row: the mask must keep the backdrop between
// shade, stem and base, so the lamp is not built as a solid block.
func TestSegmentKeepsBackdropBetweenShadeAndBase(t *testing.T) {
	if testing.Short() {
		t.Skip("segments a 768×1024 photo")
	}
	t.Parallel()
	s := makeScene("lamp", 14, 768, 1024)
	photo := s.photo(rand.New(rand.NewPCG(14, 5)))
	p, err := segment.DecodePhoto(context.Background(), photo, DefaultWorkingSize)
	require.NoError(t, err)
	seg, err := segment.Segment(context.Background(), p)
	require.NoError(t, err)
	got := iou(maskOf(seg), silhouette(s.tris, s.cam))
	t.Logf("%s: mask IoU %.3f", s.name, got)
	require.GreaterOrEqual(t, got, 0.95, "%s: mask against the true silhouette", s.name)
}
