package reconstruct

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Spin-set fidelity research (diagnostic, test only; PHOTO3D_SPIN_DEBUG=features in the
// turntable benchmark): after the turntable search, what could tell a merchant that the
// model is off? It prints one FEAT line per model: the hull's proportions and coherence
// at our poses and at the true cameras, how the proportions and the coherence move when
// each pose parameter is nudged (a flat coherence with moving proportions is a pose the
// silhouettes do not pin down), the colour disagreement of the views on the hull, and how
// well each mask's outline follows the photo's edges.

type spinNudge struct {
	Name   string  `json:"n"`
	DCoh   float64 `json:"dc"`
	Aspect float64 `json:"a"`
}

type spinFeatures struct {
	Model      string      `json:"model"`
	Coherence  float64     `json:"coh"`
	Aspect     float64     `json:"aspect"`
	TrueCoh    float64     `json:"trueCoh"`
	TrueAspect float64     `json:"trueAspect"`
	Nudges     []spinNudge `json:"nudges"`
	Colour     float64     `json:"colour"`
	StrayMean  float64     `json:"strayMean"`
	StrayMax   float64     `json:"strayMax"`
	Separated  int         `json:"separated"`
	MeshAspect float64     `json:"meshAspect"`
}

// hullAspect is the height of the hull's box over the geometric mean of its width
// and depth: a model squashed or stretched by a wrong pose changes it.
func hullAspect(lo, hi [3]float64) float64 {
	w, h, d := hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]
	if w <= 0 || d <= 0 {
		return math.NaN()
	}
	return h / math.Sqrt(w*d)
}

func spinFeatureOracle(m *mvScene, ringSizes []int) *multiview.PoseOracle {
	return &multiview.PoseOracle{After: func(vs []*multiview.View, pose *multiview.PoseResult) {
		f := spinFeatures{Model: m.base.name}
		g := multiview.GridFor(pose.Lo, pose.Hi, 64)
		eval := func() (float64, float64) {
			e := multiview.NewCoherenceEval(vs, g)
			c := e.Score()
			return c, hullAspect(e.Lo, e.Hi)
		}
		f.Coherence, f.Aspect = eval()
		snap := multiview.SnapshotPoses(vs)
		restore := func() {
			for i, v := range vs {
				v.Az, v.El, v.Ls, v.Du, v.Dv, v.Lf = snap[i][0], snap[i][1], snap[i][2], snap[i][3], snap[i][4], snap[i][5]
				v.Update()
			}
		}
		nudge := func(name string, apply func()) {
			apply()
			for _, v := range vs {
				v.Update()
			}
			c, a := eval()
			f.Nudges = append(f.Nudges, spinNudge{Name: name, DCoh: f.Coherence - c, Aspect: a})
			restore()
		}
		deg := math.Pi / 180
		for _, s := range []float64{-1, 1} {
			nudge(fmt.Sprintf("lens%+.0f", s), func() {
				for _, v := range vs {
					v.Lf += 0.05 * s
				}
			})
			nudge(fmt.Sprintf("dolly%+.0f", s), func() {
				for _, v := range vs {
					v.Lf += 0.05 * s
					v.Ls += 0.05 * s
				}
			})
			at := 0
			for r, n := range ringSizes {
				ring := vs[at : at+n]
				nudge(fmt.Sprintf("el%d%+.0f", r, s), func() {
					for _, v := range ring {
						v.El += 2 * deg * s
					}
				})
				nudge(fmt.Sprintf("ls%d%+.0f", r, s), func() {
					for _, v := range ring {
						v.Ls += 0.03 * s
					}
				})
				at += n
			}
		}
		f.Colour = colourDisagreement(vs, *pose)
		for _, v := range vs {
			s := fidelity.StrayEdges(v.Seg, v.P)
			f.StrayMean += s / float64(len(vs))
			f.StrayMax = max(f.StrayMax, s)
			if segment.SubjectSeparated(v.Seg) {
				f.Separated++
			}
		}
		saved := make([]multiview.Camera, len(vs))
		for i, v := range vs {
			saved[i] = v.Cam
			v.Cam = trueMVCam(m.cams[i], v.P.W)
		}
		lo, hi := triBox(m.base.tris)
		f.MeshAspect = hullAspect(lo, hi)
		tb := trueBoxWidened(m)
		e := multiview.NewCoherenceEval(vs, multiview.GridFor(tb.Lo, tb.Hi, 64))
		f.TrueCoh = e.Score()
		f.TrueAspect = hullAspect(e.Lo, e.Hi)
		for i, v := range vs {
			v.Cam = saved[i]
		}
		restore()
		b, _ := json.Marshal(f)
		fmt.Printf("FEAT %s\n", b)
	}}
}
