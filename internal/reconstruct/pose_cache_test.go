package reconstruct

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/stretchr/testify/require"
)

// TestCoherenceCacheMatchesPlainScore: the memoised coherence (verdicts kept per
// view and camera, rejections settled without projecting) gives exactly what
// projecting every voxel into every view gives, score and hull box bit for bit,
// along a walk like the pose search's: one view's parameter stepped and stepped
// back, the shared elevation and lens moving every view, a refit grid. The
// chair's hull is mostly thin parts; the box's is solid, so most of its blocks
// lie inside every silhouette whole and are kept without reading the masks.
func TestCoherenceCacheMatchesPlainScore(t *testing.T) {
	t.Parallel()
	for _, class := range []string{"chair", "box"} {
		t.Run(class, func(t *testing.T) {
			t.Parallel()
			kept := walkCoherence(t, sceneViews(t, class))
			if class == "box" {
				require.Positive(t, kept, "no block of the solid box was kept whole: that path went untested")
			}
		})
	}
}

// walkCoherence runs the walk over vs and returns how many blocks the
// memoised evaluations kept whole.
func walkCoherence(t *testing.T, vs []*multiview.View) int {
	rng := rand.New(rand.NewPCG(7, 8))
	deg := math.Pi / 180
	kept := 0
	for _, n := range []int{24, 40} {
		g := multiview.GridFor([3]float64{-0.8, -0.75, -0.8}, [3]float64{0.8, 0.75, 0.8}, n)
		e := multiview.NewCoherenceEval(vs, g)
		for step := range 120 {
			v := vs[1+rng.IntN(len(vs)-1)]
			old := *v
			switch step % 6 {
			case 0, 1, 2: // one view's azimuth, distance or aim
				v.Az += (rng.Float64() - 0.5) * 10 * deg
				v.Ls += (rng.Float64() - 0.5) * 0.1
				v.Du += (rng.Float64() - 0.5) * 8
				v.Update()
			case 3: // every view: the shared elevation and lens
				el, lf := (rng.Float64()*30)*deg, (rng.Float64()-0.3)*0.5
				for _, w := range vs {
					w.El, w.Lf = el, lf
					w.Update()
				}
			case 4: // the step is taken back: the remembered camera again
				v.Az -= 5 * deg
				v.Update()
				got, want := e.Score(), plainScore(vs, g)
				require.Equal(t, want.score, got, "step %d", step)
				*v = old
				v.Update()
			}
			got := e.Score()
			want := plainScore(vs, g)
			require.Equal(t, want.score, got, "grid %d step %d", n, step)
			require.Equal(t, want.lo, e.Lo, "grid %d step %d", n, step)
			require.Equal(t, want.hi, e.Hi, "grid %d step %d", n, step)
		}
		kept += e.BlocksKeptWhole()
	}
	return kept
}

// chairViews are the prepared views of the synthetic chair's four hand-held photos.
func chairViews(t *testing.T) []*multiview.View { return sceneViews(t, "chair") }

// sceneViews are the prepared views of four hand-held photos of a synthetic
// scene of class.
func sceneViews(t *testing.T, class string) []*multiview.View {
	t.Helper()
	m := makeMVScene(class, 1, 320, 240)
	var views []View
	for k, p := range m.photos() {
		views = append(views, View{Image: p, Azimuth: m.stated[k]})
	}
	vs, _, err := prepareViews(context.Background(), views, Options{}.WithDefaults(), nil)
	require.NoError(t, err)
	return vs
}

type plainCoherence struct {
	score  float64
	lo, hi [3]float64
}

// plainScore is the coherence without memo: every voxel projected into the
// views in order until one rejects it.
func plainScore(vs []*multiview.View, g geom.VoxGrid) plainCoherence {
	return plainScoreForgiving(vs, g, nil)
}

// plainTakeBackScore is the take-back coherence without memo (what score did
// before it remembered loose verdicts): one view's rejection forgiven where its
// loose mask keeps the voxel and the facing view agrees (multiview/takeback.go).
func plainTakeBackScore(vs []*multiview.View, g geom.VoxGrid) plainCoherence {
	opp := make([]int, len(vs))
	for vi := range vs {
		opp[vi] = multiview.OppositeView(vs, vi)
	}
	return plainScoreForgiving(vs, g, func(vi int, u, w float64, c [3]float64) bool {
		v := vs[vi]
		return v.LcovLoose != nil && v.CoverOf(v.LcovLoose, u, w) >= 0.5 && multiview.ConsistentAt(v, vs[opp[vi]], c)
	})
}

// plainScoreForgiving is plainScore where forgive (nil: never), asked about a
// view's rejection of voxel c projected to (u, w), may let one view per voxel
// reject it.
func plainScoreForgiving(vs []*multiview.View, g geom.VoxGrid, forgive func(vi int, u, w float64, c [3]float64) bool) plainCoherence {
	out := plainCoherence{
		lo: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)},
		hi: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)},
	}
	proj := make([][]float32, len(vs))
	for i, v := range vs {
		proj[i] = make([]float32, v.Lw*v.Lh)
	}
	type projected struct{ u, w, z float64 }
	at := make([]projected, len(vs))
	for k := range g.Nz {
		for j := range g.Ny {
			for i := range g.Nx {
				c := g.Centre(i, j, k)
				in, forgiven := true, false
				for vi, v := range vs {
					u, w, z := v.Cam.Project(c)
					at[vi] = projected{u, w, z}
					if v.CoverAt(u, w) < 0.5 {
						if !forgiven && forgive != nil && forgive(vi, u, w, c) {
							forgiven = true
							continue
						}
						in = false
						break
					}
				}
				if !in {
					continue
				}
				for a := range 3 {
					out.lo[a] = min(out.lo[a], c[a]-g.S/2)
					out.hi[a] = max(out.hi[a], c[a]+g.S/2)
				}
				for vi, v := range vs {
					u, w, z := at[vi].u, at[vi].w, at[vi].z
					r := v.Cam.F * g.S / (z * v.Lcell) * 0.5
					cx, cy := u/v.Lcell-0.5, w/v.Lcell-0.5
					x0, x1 := int(math.Ceil(cx-r)), int(math.Floor(cx+r))
					y0, y1 := int(math.Ceil(cy-r)), int(math.Floor(cy+r))
					if x1 < x0 {
						x0 = int(math.Round(cx))
						x1 = x0
					}
					if y1 < y0 {
						y0 = int(math.Round(cy))
						y1 = y0
					}
					for y := max(0, y0); y <= min(v.Lh-1, y1); y++ {
						for x := max(0, x0); x <= min(v.Lw-1, x1); x++ {
							proj[vi][y*v.Lw+x] = 1
						}
					}
				}
			}
		}
	}
	total := 0.0
	for vi, v := range vs {
		var inter, sil float64
		for k, c := range v.Lcov {
			if c < 0.5 {
				continue
			}
			sil++
			inter += float64(proj[vi][k])
		}
		if sil > 0 {
			total += inter / sil
		}
	}
	out.score = total / float64(len(vs))
	return out
}

// TestLitCoverBound: coverage cells at or below multiview.LitCover never mix to ½
// anywhere between them (float32 rounding included), which is what lets a
// block whose projection only meets such cells be rejected without projecting
// its voxels.
func TestLitCoverBound(t *testing.T) {
	t.Parallel()
	v := &multiview.View{Lw: 6, Lh: 5, Lcell: 3}
	v.Lcov = make([]float32, v.Lw*v.Lh)
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 2000 {
		for i := range v.Lcov {
			v.Lcov[i] = multiview.LitCover
			if trial%2 == 1 {
				v.Lcov[i] = multiview.LitCover * float32(rng.Float64())
			}
		}
		for range 100 {
			x, y := rng.Float64()*float64(v.Lw+1)-1, rng.Float64()*float64(v.Lh+1)-1
			require.Less(t, v.CoverCell(x, y), float32(0.5), "at %.3f,%.3f", x, y)
		}
	}
}

// TestCoverageGridMatchesPerPixel: multiview.NewView's coarse coverage grid (cells
// looked up per row and column, counts as rows × columns) is exactly the
// per-pixel accumulation, for objects of several sizes (so non-integer cells).
func TestCoverageGridMatchesPerPixel(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{320, 240}, {257, 331}} {
		m := makeMVScene("vase", 0, size[0], size[1])
		m.cams = m.cams[:2] // two views are enough, and rendering is the test's cost
		for k, ph := range m.photos() {
			p, err := segment.DecodePhoto(context.Background(), ph, DefaultWorkingSize)
			require.NoError(t, err)
			seg, err := segment.Segment(context.Background(), p)
			require.NoError(t, err)
			v := multiview.NewView(p, seg, float64(k))
			b := multiview.AlphaBounds(v.Alpha, p.W, p.H, seg.Bbox)
			want := make([]float32, v.Lw*v.Lh)
			cnt := make([]float32, v.Lw*v.Lh)
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					want[int(float64(y)/v.Lcell)*v.Lw+int(float64(x)/v.Lcell)] += float32(v.Alpha[y*p.W+x]) / 255
				}
			}
			for y := range p.H {
				for x := range p.W {
					cnt[int(float64(y)/v.Lcell)*v.Lw+int(float64(x)/v.Lcell)]++
				}
			}
			for i := range want {
				if cnt[i] > 0 {
					want[i] /= cnt[i]
				}
			}
			require.NotEqual(t, math.Floor(v.Lcell), v.Lcell, "cells should not be whole pixels")
			require.Equal(t, want, v.Lcov)
		}
	}
}

// TestTakeBackCoherenceMemoMatchesPlain: with the take-back (one view's rejection
// forgiven where its loose mask keeps the voxel and the facing view sees the same
// colour), the memoised coherence still gives exactly what projecting every voxel
// gives, score and hull box, along a pose-search-like walk. The scene's loose
// masks must forgive something, or the test would not exercise the loose verdicts.
func TestTakeBackCoherenceMemoMatchesPlain(t *testing.T) {
	t.Parallel()
	vs := chairViews(t)
	loose := 0
	for _, v := range vs {
		if v.LcovLoose != nil {
			loose++
		}
	}
	require.Positive(t, loose, "the scene's views should have loose masks")
	rng := rand.New(rand.NewPCG(7, 9))
	deg := math.Pi / 180
	forgiven := false
	for _, n := range []int{24, 40} {
		g := multiview.GridFor([3]float64{-0.8, -0.75, -0.8}, [3]float64{0.8, 0.75, 0.8}, n)
		e := multiview.NewCoherenceEvalTakeBack(vs, g, true)
		strict := multiview.NewCoherenceEvalTakeBack(vs, g, false)
		for step := range 60 {
			v := vs[1+rng.IntN(len(vs)-1)]
			switch step % 3 {
			case 0, 1:
				v.Az += (rng.Float64() - 0.5) * 10 * deg
				v.Ls += (rng.Float64() - 0.5) * 0.1
				v.Du += (rng.Float64() - 0.5) * 8
				v.Update()
			case 2:
				el, lf := (rng.Float64()*30)*deg, (rng.Float64()-0.3)*0.5
				for _, w := range vs {
					w.El, w.Lf = el, lf
					w.Update()
				}
			}
			got, want := e.Score(), plainTakeBackScore(vs, g)
			require.Equal(t, want.score, got, "grid %d step %d", n, step)
			require.Equal(t, want.lo, e.Lo, "grid %d step %d", n, step)
			require.Equal(t, want.hi, e.Hi, "grid %d step %d", n, step)
			if got != strict.Score() {
				forgiven = true
			}
		}
	}
	require.True(t, forgiven, "the take-back never changed the coherence: the loose verdicts went untested")
}

// The pose search with the take-back can fit a contact shadow that two opposite
// views' loose masks both hold: on the synthetic tote (a thin bag, a hard shadow
// around its base) the take-back search alone ends at poses whose take-back
// coherence is lower than the strict search's poses give it, and its carve lost
// 0.12 F@5. multiview.EstimatePoses compares the two after multiview.ChooseAfter rounds and
// finishes the strict search, whose poses it returns exactly.
func TestPoseSearchKeepsStrictPosesWhenTheTakeBackFitsAShadow(t *testing.T) {
	if testing.Short() {
		t.Skip("renders four photos and runs three pose searches")
	}
	m := makeMVScene("tote", 0, 640, 480)
	var views []View
	for k, p := range m.photos() {
		views = append(views, View{Image: p, Azimuth: m.stated[k]})
	}
	prepare := func() []*multiview.View {
		vs, _, err := prepareViews(context.Background(), views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		require.True(t, multiview.TakeBackPossible(vs), "the tote's views should have loose masks")
		return vs
	}
	vs := prepare()
	var strictScore, looseScore float64
	multiview.PoseChoiceDiag = func(s, l float64) { strictScore, looseScore = s, l }
	defer func() { multiview.PoseChoiceDiag = nil }()
	_, err := multiview.EstimatePoses(context.Background(), vs)
	require.NoError(t, err)
	require.Greater(t, strictScore, looseScore, "the strict poses explain the loose masks better than the take-back search's")

	alone := prepare()
	_, _, err = multiview.SearchPoses(context.Background(), alone, false, multiview.SearchRounds)
	require.NoError(t, err)
	require.Equal(t, multiview.SnapshotPoses(alone), multiview.SnapshotPoses(vs), "the strict search's poses, as if it had run alone")
}

// The turntable search remembers each layout it scores and looks the score up
// when it comes back to one (a settle repeated from the same phases, the
// trials of a pass that no step changed since): it finds the same cameras,
// hull box and residual, bit for bit, as when it scores every layout again.
// Not parallel: it switches multiview.SpinRememberLayouts, which parallel
// tests read, and only while they wait for it.
func TestSpinSearchFindsTheSameCamerasRememberingLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("searches a spin set of 8 photos twice")
	}
	base, radius := furnitureScene("chair", 1)
	rings := []RingSpec{{Photos: 8, ElevationDeg: 20}}
	m, _ := spinScene(base, radius, rings, 320, 240, rand.New(rand.NewPCG(48, 24)), usualTurntableError)
	photos := m.photos()
	type found struct {
		cams []multiview.Camera
		pose multiview.PoseResult
		fit  multiview.SpinResidual
	}
	search := func(remember bool) found {
		defer func(was bool) { multiview.SpinRememberLayouts = was }(multiview.SpinRememberLayouts)
		multiview.SpinRememberLayouts = remember
		var views []View
		for k, p := range photos {
			views = append(views, View{Image: p, Azimuth: m.stated[k]})
		}
		vs, _, err := prepareViews(context.Background(), views, Options{}.WithDefaults(), nil)
		require.NoError(t, err)
		pose, fit, err := multiview.SearchTurntable(context.Background(), []multiview.SpinRing{{Views: vs, ElevDeg: 20}}, nil)
		require.NoError(t, err)
		out := found{pose: pose, fit: fit}
		for _, v := range vs {
			out.cams = append(out.cams, v.Cam)
		}
		return out
	}
	looked, again := search(true), search(false)
	t.Logf("%d of %d layouts looked up", looked.fit.Remembered, looked.fit.Evaluations)
	require.Positive(t, looked.fit.Remembered, "the search came back to no layout: the memo went untested")
	require.Zero(t, again.fit.Remembered)
	require.Equal(t, again.fit.Evaluations, looked.fit.Evaluations, "the same walk")
	again.fit.Remembered = looked.fit.Remembered
	require.Equal(t, again.fit, looked.fit, "the same residual: coherence, rings, corrections, photos left out")
	require.Equal(t, again.pose, looked.pose, "the same hull box")
	require.Equal(t, again.cams, looked.cams, "the same cameras, bit for bit")
}
