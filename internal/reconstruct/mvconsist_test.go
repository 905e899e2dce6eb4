package reconstruct

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// silhouetteAlpha is the anti-aliased silhouette of tris seen by c (0–255).
func silhouetteAlpha(tris []qtri, c qcamera) []uint8 {
	ids, sw, _ := rasterize(tris, c, 4)
	alpha := make([]uint8, c.w*c.h)
	for y := range c.h {
		for x := range c.w {
			n := 0
			for k := range 16 {
				if ids[(4*y+k/4)*sw+4*x+k%4] >= 0 {
					n++
				}
			}
			alpha[y*c.w+x] = uint8(n * 255 / 16)
		}
	}
	return alpha
}

func maxAlpha(a, b []uint8) []uint8 {
	out := make([]uint8, len(a))
	for i := range a {
		out[i] = max(a[i], b[i])
	}
	return out
}

// lampViews are the four views of TestTakeBackRestoresAPartOneViewLost's scene
// (mode 0: the right view's mask without the base; 1: with its loose mask; 2:
// the true silhouettes), the right view carved with its camera turned bend
// degrees from the one that took its photo.
func lampViews(mode int, shift float64) []*multiview.View {
	body := boxTris(v3{-0.12, 0.3, -0.12}, v3{0.12, 1, 0.12}, v3{200, 60, 60})
	base := boxTris(v3{-0.3, 0, -0.3}, v3{0.3, 0.3, 0.3}, v3{150, 100, 50})
	shadow := boxTris(v3{-0.55, -0.005, -0.55}, v3{0.55, 0.005, 0.55}, v3{140, 140, 142})
	all := append(append([]qtri{}, body...), base...)
	table := segment.SrgbLinearTable()
	// mode 0: the right view's mask without the base; 1: with its loose mask;
	// 2: the true silhouette (the hull to match).
	var vs []*multiview.View
	{
		for k, az := range []float64{0, 95, 172, 265} {
			c := newQCameraAt(320, 240, az*math.Pi/180, 15*math.Pi/180, 28, 0.9, 0.7, 0.5)
			seg := &segment.Segmentation{W: c.w, H: c.h, F: 1, Sw: c.w, Sh: c.h, Slab: make([]segment.Lab, c.w*c.h)}
			// Colours: the scene's front-most surface at each pixel, the right
			// view's side of the product in shade.
			ids, ssw, _ := rasterize(append(append([]qtri{}, all...), shadow...), c, 1)
			light := 1.0
			if k == 3 {
				light = 0.5
			}
			for i := range seg.Slab {
				col, l := v3{235, 235, 238}, 1.0
				if id := ids[(i/c.w)*ssw+i%c.w]; id >= 0 {
					col = shadowTriColour(id, len(all), all, shadow)
					if int(id) < len(all) {
						l = light
					}
				}
				seg.Slab[i] = segment.ToLab(table, uint8(col[0]*l), uint8(col[1]*l), uint8(col[2]*l))
			}
			cam := trueMVCam(c, c.w)
			if k == 1 {
				cam.T[0] += shift
			}
			v := &multiview.View{P: &segment.Photo{W: c.w, H: c.h}, Seg: seg, Cam: cam, Lcell: 2}
			v.Lw, v.Lh = c.w/2+1, c.h/2+1
			v.Alpha = silhouetteAlpha(all, c)
			if k == 3 && mode < 2 {
				v.Alpha = silhouetteAlpha(body, c)
				if mode == 1 {
					v.Loose = maxAlpha(silhouetteAlpha(all, c), silhouetteAlpha(shadow, c))
				}
			}
			seg.Alpha = v.Alpha
			v.Lcov = v.Coverage(v.Alpha, image.Rect(0, 0, c.w, c.h))
			vs = append(vs, v)
		}
	}
	return vs
}

// A lamp-like product, a red body on a wide brown base, photographed from four
// sides with the exact cameras. The right view's segmentation lost the base (in
// shade: to one photo the backdrop darkened by a shadow) but its loose mask,
// which keeps every cell that differs from the backdrop, has it, and also the
// grey contact shadow on the floor around the base. The carve takes the base
// back, because the other three views show it and the view facing the right one
// sees it in the same colour, and not the shadow: the other views' hull leaves
// some slack beside the base (perspective), but there the facing view sees the
// base's brown, not the shadow's grey. Without the loose masks the base is
// carved away; without the colour check the slack is filled with shadow.
func TestTakeBackRestoresAPartOneViewLost(t *testing.T) {
	carve := func(mode int) (lo, hi [3]float32) {
		m, err := multiview.CarveMesh(context.Background(), lampViews(mode, 0), multiview.PoseResult{Lo: [3]float64{-0.6, 0, -0.6}, Hi: [3]float64{0.6, 1, 0.6}, Voxel: 0.02}, DefaultMaxTriangles, multiview.GroundBySections)
		require.NoError(t, err)
		return m.Bounds()
	}
	tlo, thi := carve(2)
	lo, hi := carve(0)
	t.Logf("true silhouettes %.2f..%.2f; strict masks %.2f..%.2f", tlo, thi, lo, hi)
	require.Greater(t, lo[1], float32(0.1), "without the loose mask the base is carved away")
	require.Less(t, hi[2]-lo[2], float32(0.4), "without the loose mask the base is carved away")
	lo, hi = carve(1)
	t.Logf("with the take-back: %.2f..%.2f", lo, hi)
	require.Less(t, lo[1], float32(0.05), "the base is taken back")
	require.InDelta(t, thi[1], hi[1], 0.02)
	for c := range 3 {
		require.InDelta(t, tlo[c], lo[c], 0.03, "axis %d: the base is taken back, the shadow is not", c)
		require.InDelta(t, thi[c], hi[c], 0.03, "axis %d: the base is taken back, the shadow is not", c)
	}
}

// shadowTriColour is the colour of triangle id of the scene all ‖ shadow.
func shadowTriColour(id int32, n int, all, shadow []qtri) v3 {
	if int(id) < n {
		return all[id].col
	}
	return shadow[int(id)-n].col
}

// multiview.LooseCells leaves out what a row's mask encloses (a see-through gap between
// legs, in the product's shadow) and keeps what extends the outline.
func TestLooseCellsLeaveOutEnclosedGaps(t *testing.T) {
	// Row 0: two legs with a shadowed gap between them; row 1: a stem with a
	// lost base either side of it; row 2: nothing kept, all lost.
	kept := []bool{
		false, true, false, false, true, false,
		false, false, true, false, false, false,
		false, false, false, false, false, false,
	}
	loose := []bool{
		false, false, true, true, false, false,
		true, true, false, true, true, false,
		false, true, true, true, false, false,
	}
	got := multiview.LooseCells(loose, kept, 6, 3)
	require.Equal(t, []bool{
		false, false, false, false, false, false,
		true, true, false, true, true, false,
		false, true, true, true, false, false,
	}, got)
}

// envSwitch sets *v from the environment variable name for a benchmark's
// before/after run: unset keeps the default, "0" turns it off, anything else on.
func envSwitch(name string, v *bool) {
	switch os.Getenv(name) {
	case "":
	case "0":
		*v = false
	default:
		*v = true
	}
}

// Switches for the benchmarks' before/after runs (the history of docs/reconstruction.md (git log -p)):
// PHOTO3D_TAKEBACK=0 turns the take-back off (1: on, the default), PHOTO3D_POSETB=0
// keeps it out of the pose search (1: the second search with it, the default),
// PHOTO3D_CHOOSEAFTER=N compares the two searches after round N instead of 2,
// PHOTO3D_ENCLOSED=1 keeps what a row's mask encloses in the loose masks.
func init() {
	envSwitch("PHOTO3D_TAKEBACK", &multiview.UseTakeBack)
	envSwitch("PHOTO3D_POSETB", &multiview.PoseTakeBack)
	if v := os.Getenv("PHOTO3D_CHOOSEAFTER"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > multiview.SearchRounds {
			panic("PHOTO3D_CHOOSEAFTER: a round from 0 to " + strconv.Itoa(multiview.SearchRounds))
		}
		multiview.ChooseAfter = n
	}
	if os.Getenv("PHOTO3D_TBDIAG") != "" {
		multiview.TakeBackDiag = func(miss float64, used bool) {
			fmt.Printf("TBDIAG the hull with the take-back leaves %.3f of the masks uncovered; take-back used %v\n", miss, used)
		}
	}
	if os.Getenv("PHOTO3D_ENCLOSED") != "" {
		multiview.LooseOutside = false
	}
}

// The take-back trusts the cameras to place what one view lost. With the right
// view's camera turned from the one that took its photo (a pose bent to explain
// the lost base), the strict hull no longer fills the masks and the take-back is
// refused: the carve is the strict one. With the exact cameras it is used.
func TestTakeBackRefusedWhenPosesDisagree(t *testing.T) {
	defer func(d func(float64, bool)) { multiview.TakeBackDiag = d }(multiview.TakeBackDiag)
	var miss float64
	var used bool
	multiview.TakeBackDiag = func(m float64, u bool) { miss, used = m, u }
	carve := func(mode int, shift float64) (lo, hi [3]float32) {
		miss, used = -1, false
		m, err := multiview.CarveMesh(context.Background(), lampViews(mode, shift), multiview.PoseResult{Lo: [3]float64{-0.6, 0, -0.6}, Hi: [3]float64{0.6, 1, 0.6}, Voxel: 0.02}, DefaultMaxTriangles, multiview.GroundBySections)
		require.NoError(t, err)
		return m.Bounds()
	}
	lo, _ := carve(1, 0)
	t.Logf("exact cameras: %.3f of the masks uncovered", miss)
	require.True(t, used, "exact cameras: the take-back is used")
	require.Less(t, lo[1], float32(0.05), "exact cameras: the base is taken back")

	// The middle view's camera 0.15 sideways: taken back, the base would land
	// beside the product (reaching z = 0.43; the true silhouettes' hull ends at 0.37).
	slo, shi := carve(0, 0.15)
	lo, hi := carve(1, 0.15)
	t.Logf("camera shifted: %.3f of the masks uncovered; strict %.2f..%.2f, carved %.2f..%.2f", miss, slo, shi, lo, hi)
	require.False(t, used, "camera shifted: the take-back is refused")
	require.Less(t, hi[2], float32(0.4), "nothing taken back beside the product")
	require.Equal(t, slo, lo, "the strict hull is kept")
	require.Equal(t, shi, hi, "the strict hull is kept")
}
