package reconstruct

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// TestRealSetMasks is a diagnostic of the real-product benchmark (behind
// -quality.full): for every photo it compares the segmenter's mask with the true
// silhouette (IoU, recall = share of the product kept, precision = share of the mask
// that is product), because a shape built on a wrong outline cannot be right. With
// PHOTO3D_RENDER_DIR it writes an overlay per photo (green: kept product, red: lost
// product, blue: backdrop taken for product).
func TestRealSetMasks(t *testing.T) {
	if !*qualityFull {
		t.Skip("run with -quality.full")
	}
	if !realSetPresent() {
		t.Skip("real-product models not extracted: see testdata/real/MANIFEST (ops/realset.sh)")
	}
	var mIoU float64
	n := 0
	fmt.Printf("| photo | IoU | recall | precision |\n|---|---|---|---|\n")
	for _, e := range realManifest(t) {
		if only := os.Getenv("REALSET_MODEL"); only != "" && e.name != only {
			continue
		}
		truth := loadRealModel(t, e.name)
		// REALSET_MASKVIEWS=ci: the regression subset's photo (TestRealSetRegression).
		views, w, h := realViewsFull, 768, 1024
		if os.Getenv("REALSET_MASKVIEWS") == "ci" {
			views, w, h = realViewsCI, 384, 512
		}
		for vi, v := range views {
			sh := newStudioShot(fmt.Sprintf("%s-%d", e.name, vi), truth, v, w, h)
			data := sh.scene.photo(rand.New(rand.NewPCG(uint64(vi), 11)))
			p, err := segment.DecodePhoto(context.Background(), data, DefaultWorkingSize)
			require.NoError(t, err)
			seg, err := segment.Segment(context.Background(), p)
			require.NoError(t, err)
			want := silhouette(sh.truth, sh.scene.cam)
			var inter, union, tp, mp int
			img := image.NewRGBA(image.Rect(0, 0, seg.W, seg.H))
			for y := range seg.H {
				for x := range seg.W {
					tx, ty := x*sh.scene.cam.w/seg.W, y*sh.scene.cam.h/seg.H
					a := want[ty*sh.scene.cam.w+tx]
					b := seg.Alpha[y*seg.W+x] >= 128
					c := color.RGBA{240, 240, 240, 255}
					switch {
					case a && b:
						inter++
						c = color.RGBA{40, 170, 60, 255}
					case a:
						c = color.RGBA{220, 40, 40, 255}
					case b:
						c = color.RGBA{40, 80, 220, 255}
					}
					if a || b {
						union++
					}
					if a {
						tp++
					}
					if b {
						mp++
					}
					img.Set(x, y, c)
				}
			}
			iou := float64(inter) / float64(max(union, 1))
			fmt.Printf("| %s %s | %.2f | %.2f | %.2f |\n", e.name, realResult{View: v}.viewName(), iou,
				float64(inter)/float64(max(tp, 1)), float64(inter)/float64(max(mp, 1)))
			mIoU += iou
			n++
			if dir := renderDir(); dir != "" {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				f, err := os.Create(filepath.Join(dir, sh.scene.name+"-mask.png"))
				require.NoError(t, err)
				require.NoError(t, png.Encode(f, img))
				require.NoError(t, f.Close())
			}
		}
	}
	fmt.Printf("\nmean mask IoU over %d photos: %.3f\n", n, mIoU/float64(n))
}
