package reconstruct

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// tabletopScene is an ordinary product photo as merchants take them (merchant
// walk 4, H11): an espresso cup on its saucer, standing on a wooden table seen
// from a little above, a painted wall behind, the table's back edge a horizon
// across the frame, wood grain running away from the camera and a soft contact
// shadow. grain scales the wood's contrast (0: a plain tabletop).
func tabletopScene(w, h int, grain, horizonFrac, scale float64) scene {
	W, H := float64(w), float64(h)
	horizon := horizonFrac * H
	cx := 0.5 * W
	base := 0.66 * H
	cupTop, cupBottom := base-0.3*H*scale, base
	cupR := 0.11 * W * scale
	saucerY, saucerRX, saucerRY := base+0.01*H*scale, 0.2*W*scale, 0.045*H*scale
	inside := func(x, y float64) bool {
		// The cup: a slightly tapered body with an elliptical rim on top.
		if y >= cupTop && y <= cupBottom {
			t := (y - cupTop) / (cupBottom - cupTop)
			r := cupR * (1 - 0.18*t)
			if math.Abs(x-cx) <= r {
				return true
			}
		}
		rimRY := 0.03 * H * scale
		if dx, dy := (x-cx)/cupR, (y-cupTop)/rimRY; dx*dx+dy*dy <= 1 {
			return true
		}
		// The handle: a ring on the right side.
		hx, hy := cx+cupR*1.05, cupTop+0.35*(cupBottom-cupTop)
		if d := math.Hypot((x-hx)/(0.06*W*scale), (y-hy)/(0.07*H*scale)); d <= 1 && d >= 0.55 && x > cx+0.8*cupR {
			return true
		}
		// The saucer.
		dx, dy := (x-cx)/saucerRX, (y-saucerY)/saucerRY
		return dx*dx+dy*dy <= 1
	}
	porcelain := func(x, y float64) [3]float64 {
		t := min(1, math.Abs(x-cx)/(1.8*cupR))
		k := 0.78 + 0.22*math.Cos(t*math.Pi/2)
		return [3]float64{246 * k, 244 * k, 238 * k}
	}
	backdrop := func(x, y float64) [3]float64 {
		if y < horizon && horizon > 0 {
			// Warm painted wall, a little darker towards the top.
			k := 0.9 + 0.1*y/horizon
			return [3]float64{196 * k, 178 * k, 150 * k}
		}
		// The table: planks running away from the camera (lines converging
		// on a vanishing point above the frame), grain along them.
		depth := (y - min(horizon, 0)) / (H - min(horizon, 0)) // 0 at the back edge, 1 at the front
		if horizon > 0 {
			depth = (y - horizon) / (H - horizon)
		}
		u := (x - cx) / (0.35 + 0.65*depth) // across the planks, perspective-corrected
		plank := math.Floor(u / (0.16 * W))
		f := u/(0.16*W) - plank
		v := 120 + 25*math.Sin(plank*2.3)
		streak := math.Sin(u*0.35+3*math.Sin(y*0.05+plank)) * 14
		fine := math.Sin(u*1.7+y*0.9) * 6
		seam := 0.0
		if f < 0.03 || f > 0.97 {
			seam = -40
		}
		l := v + grain*(streak+fine+seam)
		k := 0.85 + 0.15*depth
		clamp := func(v float64) float64 { return max(0, min(255, v)) }
		return [3]float64{clamp((l + 40) * k), clamp((l - 5) * k), clamp((l - 45) * k)}
	}
	return scene{w: w, h: h, inside: inside, object: porcelain, backdrop: backdrop,
		shadow: true, shadowY: saucerY + 0.5*saucerRY, shadowCX: cx, shadowRX: saucerRX * 1.1}
}

// An ordinary table-top photo (merchant walk 4, H11) becomes a model: the cup
// on its saucer is told from a wooden table whose grain, plank seams and the
// shadow under the saucer vary far more than a studio sweep, with the wall
// behind or with the table filling the frame, near and far. The outline is
// the cup's (mask IoU ≥ 0.95 against the drawn shape; nothing of the grain
// hangs under the saucer), and the strict build that the product runs
// (StrictSubject) makes a model from it instead of refusing the photo.
func TestTabletopPhotoBecomesAModel(t *testing.T) {
	cases := []struct {
		name                  string
		grain, horizon, scale float64
	}{
		{"wall behind, light grain", 1, 0.42, 1},
		{"wall behind, strong grain", 2, 0.42, 1},
		{"table filling the frame", 2, 0, 1},
		{"close up, from above", 2, 0.2, 1.8},
		{"close up, table only", 1, -0.5, 1.5},
	}
	for _, c := range cases {
		s := tabletopScene(640, 480, c.grain, c.horizon, c.scale)
		data := encodeJPEGBytes(t, s.render())
		photo, err := segment.DecodePhoto(context.Background(), data, 1024)
		require.NoError(t, err)
		seg, err := segment.Segment(context.Background(), photo)
		require.NoError(t, err)
		mask := make([]bool, len(seg.Alpha))
		for i, a := range seg.Alpha {
			mask[i] = a >= 128
		}
		score := iou(mask, s.truth())
		t.Logf("%s: mask IoU %.3f, outline %v", c.name, score, seg.Bbox)
		require.True(t, segment.SubjectSeparated(seg), "%s: the cup is one object clear of the frame", c.name)
		require.GreaterOrEqual(t, score, 0.95, c.name)
		truthBottom := 0
		for i, v := range s.truth() {
			if v {
				truthBottom = max(truthBottom, i/s.w)
			}
		}
		require.LessOrEqual(t, seg.Bbox.Max.Y, truthBottom+8, "%s: no streak of the table hangs under the saucer", c.name)
	}
	res, err := NewBuiltin().Reconstruct(context.Background(), encodeJPEGBytes(t, tabletopScene(640, 480, 2, 0.42, 1).render()), Options{StrictSubject: true}, nil)
	require.NoError(t, err, "the photo merchants take is built, not refused")
	require.Empty(t, res.Warnings)
	require.Positive(t, res.Stats.Triangles)
}
