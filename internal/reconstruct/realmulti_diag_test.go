package reconstruct

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// trueMVCam is the true camera c as an mvCam on a working photo w pixels wide.
func trueMVCam(c qcamera, w int) multiview.Camera {
	k := float64(w) / float64(c.w)
	r := [3][3]float64{c.right, c.up, c.fwd}
	cam := multiview.Camera{R: r, F: c.f * k, Cx: c.cx * k, Cy: c.cy * k}
	for i := range 3 {
		cam.T[i] = -vdot(r[i], c.pos)
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
func meshTris(m *geom.Mesh) []qtri {
	var out []qtri
	for k := 0; k+2 < len(m.Idx); k += 3 {
		var tr qtri
		for c := range 3 {
			p := m.Pos[m.Idx[k+c]]
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
	multiview.Grow = os.Getenv("PHOTO3D_NOGROW") == ""
	defer func() { multiview.Grow = true }()
	for _, e := range realManifest(t) {
		if !fourPhotoModel(e.name) {
			continue
		}
		m := realMVScene(e.name, loadRealModel(t, e.name), 960, 720)
		var views []View
		for k, p := range m.photos() {
			views = append(views, View{Image: p, Azimuth: m.stated[k]})
		}
		vs, _, err := prepareViews(ctx, views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		var pose multiview.PoseResult
		if os.Getenv("PHOTO3D_NOPOSE") == "" {
			pose, err = multiview.EstimatePoses(ctx, vs)
			require.NoError(t, err)
		}
		line := ""
		for i, v := range vs {
			ta, te := trueAzEl(m.cams[i])
			da, de := angDiff(v.Az*180/math.Pi, ta), math.Abs(v.El*180/math.Pi-te)
			line += fmt.Sprintf(" v%d az%+.0f/%.1f el%.1f", i, ta, da, de)
			if i == 0 {
				line += fmt.Sprintf(" (true el %.1f est %.1f, f35 true %.0f est %.1f)", te, v.El*180/math.Pi, m.base.f35, shape.PhoneFocal35*math.Exp(v.Lf))
			}
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
			v.Cam = trueMVCam(m.cams[i], v.P.W)
			// The mask carved from against the true silhouette: recall (share of
			// the product kept) matters most, since carving removes whatever any
			// one view leaves out.
			want := silhouette(m.base.tris, m.cams[i])
			var inter, tp, mp int
			for y := range v.P.H {
				for x := range v.P.W {
					a := want[(y*m.cams[i].h/v.P.H)*m.cams[i].w+x*m.cams[i].w/v.P.W]
					b := v.Alpha[y*v.P.W+x] >= 128
					if a && b {
						inter++
					}
					if a {
						tp++
					}
					if b {
						mp++
					}
				}
			}
			line += fmt.Sprintf(" v%d mask R%.2f P%.2f", i, float64(inter)/float64(max(tp, 1)), float64(inter)/float64(max(mp, 1)))
		}
		truth := alignTruth(m.base.tris)
		lo, hi := triBox(m.base.tris)
		if os.Getenv("PHOTO3D_FORGIVE") != "" {
			d := 0.2
			distrustMasks(vs, multiview.PoseResult{Lo: [3]float64{lo[0] - d, lo[1] - d, lo[2] - d}, Hi: [3]float64{hi[0] + d, hi[1] + d, hi[2] + d}})
			for i, v := range vs {
				if v.Distrust {
					fmt.Printf("  view %d distrusted\n", i)
				}
			}
		}
		mm, err := multiview.CarveMesh(ctx, vs, multiview.PoseResult{Lo: lo, Hi: hi, Voxel: 0.02}, DefaultMaxTriangles, multiview.NoGround)
		require.NoError(t, err)
		fm := f5(alignTruth(meshTris(mm)), truth)
		mlo, mhi := mm.Bounds()
		fmt.Printf("  truth box %.2f..%.2f  hull box %.2f..%.2f\n", lo, hi, mlo, mhi)
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
			p, err := segment.DecodePhoto(context.Background(), ph, 1024)
			require.NoError(t, err)
			seg, err := segment.Segment(context.Background(), p)
			require.NoError(t, err)
			v := multiview.NewView(p, seg, 0)
			img := image.NewNRGBA(image.Rect(0, 0, 2*p.W, p.H))
			for y := range p.H {
				for x := range p.W {
					copy(img.Pix[y*img.Stride+4*x:], p.Img.Pix[y*p.Img.Stride+4*x:y*p.Img.Stride+4*x+4])
					a := v.Alpha[y*p.W+x]
					copy(img.Pix[y*img.Stride+4*(x+p.W):], []uint8{a, a, a, 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, k)))
			require.NoError(t, err)
			require.NoError(t, png.Encode(f, img))
			f.Close()
		}
	}
}

// An experiment kept for the record (the history of docs/reconstruction.md (git log -p)), not in the pipeline:
// leave out the one view whose mask disagrees with the others.

// mvDistrust switches distrustMasks' decision on. Off: with exact cameras it
// recovers a lost lamp base (real set IridescenceLamp 0.11 → 0.78, GlassHurricane
// 0.75 → 0.85, AnisotropyBarnLamp 0.39 → 0.65 with our masks), but with the
// estimated poses a view's miss is as much pose error as mask error, and leaving
// a view out cost more than it gave (IridescenceLamp 0.57 → 0.49, synthetic tote
// 0.97 → 0.56: a side view that carves a thin bag's depth left out).
var mvDistrust = true

// Mask consistency: each view's mask against the hull carved from the others.
const (
	// mvDistrustMiss is the share of the others' hull, projected into a view, that
	// the view's mask may miss before the mask is distrusted.
	mvDistrustMiss = 0.1
	// mvDistrustRatio: a distrusted view misses at least this many times as much
	// as the median view (a wrong pose makes every view miss a little).
	mvDistrustRatio = 2.5
	// mvDistrustHeight is the share of the others' hull's height a view's mask may
	// cut off before it is distrusted.
	mvDistrustHeight = 0.06
)

// distrustMasks marks the one view, if any, whose mask misses much more of the hull
// carved from the other views than the rest do: its segmentation lost part of the
// product (the others agree it is there), so carving with it would cut that part
// out of the model. With fewer than four views every view is needed and none is
// marked.
//
// It returns each view's miss: the share of the hull carved from the other views
// that the view's mask leaves out.
func distrustMasks(vs []*multiview.View, pose multiview.PoseResult) []float64 {
	for _, v := range vs {
		v.Distrust = false
	}
	m := 0.1 * max(pose.Hi[1]-pose.Lo[1], 1e-3)
	g := multiview.GridFor([3]float64{pose.Lo[0] - m, pose.Lo[1] - m, pose.Lo[2] - m}, [3]float64{pose.Hi[0] + m, pose.Hi[1] + m, pose.Hi[2] + m}, 64)
	miss := make([]float64, len(vs))
	loss := make([]float64, len(vs))
	for i, vi := range vs {
		var in, out float64
		// Lowest and highest layer of the others' hull (o) and of the whole hull (a).
		oLo, oHi, aLo, aHi := g.Ny, -1, g.Ny, -1
		for k := range g.Nz {
			for j := range g.Ny {
				for l := range g.Nx {
					c := g.Centre(l, j, k)
					ok := true
					for jv, v := range vs {
						if jv == i {
							continue
						}
						u, w, z := v.Cam.Project(c)
						if z <= 0 || v.CoverAt(u, w) < 0.5 {
							ok = false
							break
						}
					}
					if !ok {
						continue
					}
					oLo, oHi = min(oLo, j), max(oHi, j)
					u, w, z := vi.Cam.Project(c)
					if z > 0 && vi.CoverAt(u, w) >= 0.5 {
						in++
						aLo, aHi = min(aLo, j), max(aHi, j)
					} else {
						out++
					}
				}
			}
		}
		if in+out > 0 {
			miss[i] = out / (in + out)
		}
		if oHi > oLo {
			loss[i] = float64(min(aLo, oHi)-oLo) / float64(oHi-oLo)
		}
	}
	// A mask that cuts off the bottom of what the others show (a lamp's white base
	// lost on a white sweep, a grey foot taken for contact shadow) loses little
	// volume but a share of the height, and with it the model's proportions.
	if len(vs) < 4 || !mvDistrust {
		return miss
	}
	if w := slices.Index(loss, slices.Max(loss)); loss[w] > mvDistrustHeight {
		vs[w].Distrust = true
		return miss
	}
	sorted := append([]float64(nil), miss...)
	slices.Sort(sorted)
	med := sorted[len(sorted)/2]
	worst := slices.Index(miss, sorted[len(sorted)-1])
	if miss[worst] > mvDistrustMiss && miss[worst] > mvDistrustRatio*med {
		vs[worst].Distrust = true
	}
	return miss
}
