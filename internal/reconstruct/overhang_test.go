package reconstruct

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/stretchr/testify/require"
)

// Lamps seen from 20–25° above, which used to come out with a cone-shaped skirt under
// the shade, a pinched stem and a domed base (F@5% 0.83–0.86): the shade must be open
// underneath, the stem straight and the base flat, so the surface matches the true
// one (F@5%) and the re-rendered outline matches the photo's (IoU).
func TestLampsHaveOpenShadesStraightStemsAndFlatBases(t *testing.T) {
	if testing.Short() {
		t.Skip("reconstructs three photos")
	}
	for _, i := range []int{1, 2, 7} { // lamp-b, lamp-c, lamp-h
		s := makeScene("lamp", i, 384, 512)
		photo := s.photo(rand.New(rand.NewPCG(uint64(i), 5)))
		res, err := NewBuiltin().Reconstruct(context.Background(), photo, Options{}, nil)
		require.NoError(t, err, s.name)
		require.Equal(t, shape.KindLathe, res.Stats.ShapeKind, s.name)
		sc := scoreScene(t, s, res.GLB)
		t.Logf("%s: IoU %.3f F@5%% %.3f", s.name, sc.IoU, sc.F5)
		require.GreaterOrEqual(t, sc.F5, 0.95, "%s: F@5%% of the lamp", s.name)
		require.GreaterOrEqual(t, sc.IoU, 0.93, "%s: silhouette IoU of the lamp", s.name)
	}
}

// The rim ellipses of a lamp (shade rim near the middle of the photo, base rims near
// the bottom) seen through a known camera give that camera back: the depth of each
// ellipse is the sine of the viewing angle at its row, stretched by the row's
// distance from the optical axis.
func TestSolveCameraFromRimEllipses(t *testing.T) {
	const perMM = 1280 / 43.27 // 768×1024 photo
	for _, c := range []struct{ mm, pitch float64 }{{24, 0.43}, {35, 0.2}, {50, 0.05}} {
		f := c.mm * perMM
		off := -512.0
		var ells []shape.RimEllipse
		for _, row := range []float64{480, 700, 716} {
			phi := math.Atan((row + off) / f)
			R := 150.0
			ells = append(ells, shape.RimEllipse{Row: row, Radius: R, Depth: R * math.Abs(math.Sin(c.pitch+phi)) / math.Cos(phi)})
		}
		gotF, gotPitch, ok := shape.SolveCamera(ells, off, perMM)
		require.True(t, ok, "%v", c)
		require.InDelta(t, c.mm, gotF/perMM, 1, "focal length, %v", c)
		require.InDelta(t, c.pitch, gotPitch, 0.01, "pitch, %v", c)
	}
	// Rims too close together cannot tell focal length from pitch.
	_, _, ok := shape.SolveCamera([]shape.RimEllipse{{Row: 500, Depth: 40, Radius: 150}, {Row: 520, Depth: 42, Radius: 150}}, -512, perMM)
	require.False(t, ok)
}

// A shade's profile (top down to the rim) becomes an open shell: down the outside,
// back up the inside a thickness in, to a ceiling under the top; no disc across the
// rim. A shade too short to hollow stays closed.
func TestShadeShellIsOpenBelow(t *testing.T) {
	prof := []shape.ProfilePoint{{R: 50, Y: 100}, {R: 80, Y: 150}, {R: 100, Y: 200}}
	got := shape.ShadeShell(append([]shape.ProfilePoint(nil), prof...), 100, 5)
	require.Equal(t, prof, got[:3], "outside unchanged")
	require.Equal(t, shape.ProfilePoint{R: 95, Y: 200}, got[3], "rim: only the wall's thickness across")
	require.Equal(t, shape.ProfilePoint{R: 75, Y: 150}, got[4])
	require.InDelta(t, 48, got[5].R, 1e-9, "inside at the ceiling")
	require.Equal(t, 105.0, got[5].Y)
	require.Equal(t, shape.ProfilePoint{R: 0, Y: 105}, got[6], "ceiling closes under the top")
	short := []shape.ProfilePoint{{R: 50, Y: 100}, {R: 60, Y: 108}}
	require.Equal(t, short, shape.ShadeShell(append([]shape.ProfilePoint(nil), short...), 100, 5))
}

// discProfile is the outline's half-width, row by row from the top, of a body of
// radius body standing on a disc of radius R seen from above: the disc's top ellipse
// (depth b) shows its back half above the centre row cw and its front half below.
// bell, when set, replaces the disc by a body widening linearly over 2b rows to R,
// and can by straight sides of radius R: neither has a disc's top to flatten.
func discProfile(n, cw int, body, R, b float64, shape string) []float64 {
	out := make([]float64, n)
	for j := range n {
		d := float64(j - cw)
		switch {
		case j >= cw:
			out[j] = R * math.Sqrt(max(0, 1-(d/b)*(d/b)))
		case shape == "can":
			out[j] = R
		case shape == "bell":
			out[j] = max(body, R+(R-body)*d/(2*b))
		default:
			s := -d / b
			out[j] = max(body, R*math.Sqrt(max(0, 1-s*s)))
		}
	}
	return out
}

// A body on a wider disc, seen from above, shows the back of the disc's top as an
// outline widening towards the rim; read row by row that is a cone-shaped skirt
// (the real Corset on its stand: a flared base a ninth of its height). The body must
// go straight down to a flat disc, and only there: a can's straight sides and a
// bell's flare above their bottom rims are their own.
func TestBaseDiscIsFlatUnderItsBody(t *testing.T) {
	const n, cw, body, R, b = 400, 330, 100.0, 150.0, 45.0
	disc := discProfile(n, cw, body, R, b, "disc")
	kink := shape.FlattenBaseDisc(disc, cw, b)
	require.Greater(t, kink, cw-int(b), "the kink is where the body meets the disc's ellipse")
	for j := 0; j < cw; j++ {
		require.InDelta(t, body, disc[j], 1, "row %d: the body goes straight down to the disc", j)
	}
	require.InDelta(t, R, disc[cw], 1e-9, "the rim keeps the disc's radius")
	for _, kind := range []string{"can", "bell"} {
		p := discProfile(n, cw, body, R, b, kind)
		orig := append([]float64(nil), p...)
		require.Equal(t, -1, shape.FlattenBaseDisc(p, cw, b), kind)
		require.Equal(t, orig, p, "%s: unchanged", kind)
	}
}

// The bottom rim's ellipse is found under an outline that tapers to a point over its
// last rows (a disc seen from above, whose front tip the mask rounds off): a flat
// reading fitted to the tip's few narrow rows made the disc's ellipse a stem under a
// skirt.
func TestBottomRimFoundAboveATaperedTip(t *testing.T) {
	const n, R, b = 720, 198.0, 95.0
	hw := make([]float64, n) // from the bottom up
	for tt := range n {
		u := (float64(tt) + 0.5) / b
		hw[tt] = R
		if u < 1 {
			hw[tt] = R * math.Sqrt(1-(1-u)*(1-u))
		}
	}
	copy(hw, []float64{1.5, 3, 5, 7, 8.6}) // the mask's rounded tip
	gotB, gotR := shape.FitBottomRim(func(t int) float64 { return hw[min(n-1, t)] }, n)
	require.InDelta(t, b, gotB, 0.1*b, "depth of the bottom rim")
	require.InDelta(t, R, gotR, 0.05*R, "half-width of the bottom rim")
}
