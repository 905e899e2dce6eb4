package multiview

import (
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Where the photos disagree about the model's colour. A carved model's surface
// is where the photos' outlines put it. Over a hollow no outline shows (a
// dish's inside, a toy car's open windows) that surface is a roof over air:
// each photo that looks at it from above sees, through it, another part of the
// product, so the photos that see a point of that roof disagree about its
// colour. On the true surface of a matte product they agree, up to lighting.
// The two halves of a spin set (SpinHalves.Agreement) carve the same roof and
// agree about it; the colours do not.

// disagreeFacing is the least cosine between a triangle's normal and the
// direction to a camera for that photo to see it squarely enough to judge.
const disagreeFacing = 0.5

// disagreeMinViews is how many photos must see a triangle squarely for it to
// be judged: with two, a highlight in one splits them evenly.
const disagreeMinViews = 3

// disagreeMinJudged is the least share of the model's surface the judged
// triangles must cover for the share that disagrees to mean anything.
const disagreeMinJudged = 0.1

// SurfaceDisagreement is the share (0–1) of m's judged surface (triangles at
// least disagreeMinViews photos see squarely, unhidden and well inside their
// outline) where the median photo's colour differs from the photos' median
// colour by more than mvConsistChroma in chromaticity (lightness scaled out,
// so the light falling differently on a face does not count). 0 when too
// little of the surface is judged. vs carry the build's cameras and sight is
// what TextureViews found they see of m; the photos left out of the carve
// (Distrust, Unseparated) are not asked.
func SurfaceDisagreement(vs []*View, m *geom.Mesh, sight *Sight) float64 {
	nv, nt := len(vs), len(m.Idx)/3
	if nv < disagreeMinViews || nt == 0 || sight == nil || sight.nv != nv || len(sight.score) != nt*nv {
		return 0
	}
	table := segment.SrgbLinearTable()
	var total, judged, differ float64
	cols := make([]segment.Lab, 0, nv)
	ls, as, bs, devs := make([]float64, 0, nv), make([]float64, 0, nv), make([]float64, 0, nv), make([]float64, 0, nv)
	for t := range nt {
		pa, pb, pc := m.Pos[m.Idx[3*t]], m.Pos[m.Idx[3*t+1]], m.Pos[m.Idx[3*t+2]]
		var ctr [3]float64
		for k := range 3 {
			ctr[k] = (float64(pa[k]) + float64(pb[k]) + float64(pc[k])) / 3
		}
		n := geom.Cross([3]float64{float64(pb[0] - pa[0]), float64(pb[1] - pa[1]), float64(pb[2] - pa[2])},
			[3]float64{float64(pc[0] - pa[0]), float64(pc[1] - pa[1]), float64(pc[2] - pa[2])})
		ln := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if ln == 0 {
			continue
		}
		total += ln / 2
		cols = cols[:0]
		for vi, v := range vs {
			if v.Distrust || v.Unseparated || !sight.SeesSquarely(t, vi, disagreeFacing) {
				continue
			}
			u, w, _ := v.Cam.Project(ctr)
			if v.AlphaAt(u, w) < mvConsistInside {
				continue
			}
			if c, ok := photoColour(v, table, u, w); ok {
				cols = append(cols, c)
			}
		}
		if len(cols) < disagreeMinViews {
			continue
		}
		ls, as, bs = ls[:0], as[:0], bs[:0]
		for _, c := range cols {
			ls, as, bs = append(ls, float64(c.L)), append(as, float64(c.A)), append(bs, float64(c.B))
		}
		ref := [3]float64{median(ls), median(as), median(bs)}
		devs = devs[:0]
		for _, c := range cols {
			devs = append(devs, segment.ShadowChromaDev(c, ref))
		}
		judged += ln / 2
		if median(devs) > mvConsistChroma {
			differ += ln / 2
		}
	}
	if total == 0 || judged < disagreeMinJudged*total {
		return 0
	}
	return differ / judged
}

// photoColour is the mean colour of the 3×3 working pixels of v's photo around
// (u, w); false near the frame's edge.
func photoColour(v *View, table *[256]float32, u, w float64) (segment.Lab, bool) {
	x, y := int(u), int(w)
	if x < 1 || y < 1 || x >= v.P.W-1 || y >= v.P.H-1 {
		return segment.Lab{}, false
	}
	var r, g, b int
	for dy := -1; dy <= 1; dy++ {
		o := (y+dy)*v.P.Img.Stride + 4*(x-1)
		for dx := range 3 {
			r += int(v.P.Img.Pix[o+4*dx])
			g += int(v.P.Img.Pix[o+4*dx+1])
			b += int(v.P.Img.Pix[o+4*dx+2])
		}
	}
	return segment.ToLab(table, uint8((r+4)/9), uint8((g+4)/9), uint8((b+4)/9)), true
}
