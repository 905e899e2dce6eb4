package reconstruct

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// trueMVCam is the true camera c as an mvCam on a working photo w pixels wide.
func trueMVCam(c qcamera, w int) mvCam {
	k := float64(w) / float64(c.w)
	r := [3][3]float64{c.right, c.up, c.fwd}
	cam := mvCam{r: r, f: c.f * k, cx: c.cx * k, cy: c.cy * k}
	for i := range 3 {
		cam.t[i] = -vdot(r[i], c.pos)
	}
	return cam
}

// trueAzEl is the azimuth and elevation (degrees) of the true camera c.
func trueAzEl(c qcamera) (float64, float64) {
	return math.Atan2(-c.fwd[0], -c.fwd[2]) * 180 / math.Pi, math.Asin(-c.fwd[1]) * 180 / math.Pi
}

func angDiff(a, b float64) float64 {
	d := math.Mod(a-b+540, 360) - 180
	return math.Abs(d)
}

// meshTris turns a world-frame mesh into triangles.
func meshTris(m *mesh) []qtri {
	var out []qtri
	for k := 0; k+2 < len(m.idx); k += 3 {
		var tr qtri
		for c := range 3 {
			p := m.pos[m.idx[k+c]]
			tr.p[c] = v3{float64(p[0]), float64(p[1]), float64(p[2])}
		}
		out = append(out, tr)
	}
	return out
}

// TestRealSetFourPhotosDiag separates pose error from mask error on the real set:
// per model, the pose error of the estimated cameras (mean/max over views, azimuth
// and elevation, degrees) and F@5 of the hull carved from OUR masks with the TRUE
// cameras.
func TestRealSetFourPhotosDiag(t *testing.T) {
	if !*realFour {
		t.Skip("run with -realset.four")
	}
	if !realSetPresent() {
		t.Skip("real-product models missing")
	}
	ctx := context.Background()
	var sumAz, maxAz, sumEl, maxEl, sumMask float64
	nv := 0
	only := os.Getenv("PHOTO3D_ONLY")
	mvGrow = os.Getenv("PHOTO3D_NOGROW") == ""
	defer func() { mvGrow = true }()
	for _, e := range realManifest(t) {
		if only != "" && !strings.Contains(","+only+",", ","+e.name+",") {
			continue
		}
		m := realMVScene(e.name, loadRealModel(t, e.name), 960, 720)
		var views []View
		for k, p := range m.photos() {
			views = append(views, View{Image: p, Azimuth: m.stated[k]})
		}
		vs, _, err := prepareViews(ctx, views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		var pose poseResult
		if os.Getenv("PHOTO3D_NOPOSE") == "" {
			pose, err = estimatePoses(ctx, vs)
			require.NoError(t, err)
		}
		line := ""
		for i, v := range vs {
			ta, te := trueAzEl(m.cams[i])
			da, de := angDiff(v.az*180/math.Pi, ta), math.Abs(v.el*180/math.Pi-te)
			line += fmt.Sprintf(" v%d az%+.0f/%.1f el%.1f", i, ta, da, de)
			if i > 0 {
				sumAz += da
				maxAz = max(maxAz, da)
			}
			sumEl += de
			maxEl = max(maxEl, de)
			nv++
		}
		_ = pose
		for i, v := range vs {
			v.cam = trueMVCam(m.cams[i], v.p.w)
		}
		truth := alignTruth(m.base.tris)
		lo, hi := v3{math.Inf(1), math.Inf(1), math.Inf(1)}, v3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for _, tr := range m.base.tris {
			for _, p := range tr.p {
				for c := range 3 {
					lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
				}
			}
		}
		mm, err := carveMesh(ctx, vs, poseResult{lo: lo, hi: hi, voxel: 0.02}, DefaultMaxTriangles, false)
		require.NoError(t, err)
		fm := f5(alignTruth(meshTris(mm)), truth)
		sumMask += fm
		fmt.Printf("%-26s masks+exact F@5 %.3f |%s\n", e.name, fm, line)
	}
	n := float64(len(realManifest(t)))
	fmt.Printf("pose error: azimuth mean %.1f° max %.1f° (3 views/model), elevation mean %.1f° max %.1f°; masks+exact mean F@5 %.3f\n",
		sumAz/(n*3), maxAz, sumEl/float64(nv), maxEl, sumMask/n)
}

// TestRealSetFourPhotosMasks writes each view's photo and mask for the models named in
// PHOTO3D_MASKS (comma-separated) into PHOTO3D_MASKDIR.
func TestRealSetFourPhotosMasks(t *testing.T) {
	names, dir := os.Getenv("PHOTO3D_MASKS"), os.Getenv("PHOTO3D_MASKDIR")
	if names == "" || dir == "" || !realSetPresent() {
		t.Skip("set PHOTO3D_MASKS and PHOTO3D_MASKDIR")
	}
	for _, name := range strings.Split(names, ",") {
		m := realMVScene(name, loadRealModel(t, name), 960, 720)
		for k, ph := range m.photos() {
			p, err := decodePhoto(context.Background(), ph, 1024)
			require.NoError(t, err)
			seg, err := segment(context.Background(), p)
			require.NoError(t, err)
			v := newMVView(p, seg, 0)
			img := image.NewNRGBA(image.Rect(0, 0, 2*p.w, p.h))
			for y := range p.h {
				for x := range p.w {
					copy(img.Pix[y*img.Stride+4*x:], p.img.Pix[y*p.img.Stride+4*x:y*p.img.Stride+4*x+4])
					a := v.alpha[y*p.w+x]
					copy(img.Pix[y*img.Stride+4*(x+p.w):], []uint8{a, a, a, 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, k)))
			require.NoError(t, err)
			require.NoError(t, png.Encode(f, img))
			f.Close()
		}
	}
}
