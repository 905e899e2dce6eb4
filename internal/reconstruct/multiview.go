package reconstruct

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/multiview"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// Multi-view reconstruction (issue 34 §3): two to eight photos taken around the
// product. Each photo is decoded and segmented exactly like a single photo; the
// views' real poses are estimated from their silhouettes (stated azimuths are only
// approximate: a product turned by hand is ±10° off, shot from a slightly different
// distance and height), the visual hull is carved from all silhouettes, turned into
// a closed, smoothed mesh within the triangle budget, textured from the photos
// (each triangle from the view that sees it best) and encoded through the same GLB
// path as a single photo (variants, Explode animation, ≤ 2 MB).
//
// Frame: +Y up, the first (front) photo's camera on +Z, origin at the centre of the
// base. A view's azimuth θ is measured about +Y from the front camera, right-handed,
// so the camera of a photo at 90° sits on the model's +X side.

// View is one photo of a multi-view reconstruction.
type View struct {
	Image []byte
	// Azimuth in degrees about +Y from the front photo's camera; NaN means "not
	// stated" (then views are spaced evenly in the order given).
	Azimuth float64
}

// Limits of a multi-view reconstruction.
const (
	MinViews = 2
	MaxViews = 8
)

// ErrViewCount is returned when fewer than MinViews or more than MaxViews photos are
// given to ReconstructViews.
var ErrViewCount = errors.New("a multi-photo model needs 2 to 8 photos")

// ShapeMultiView is Stats.ShapeKind of a model carved from several photos.
const ShapeMultiView = "multiview"

// MultiViewReconstructor is implemented by reconstructors that can use several
// photos of one product. Callers holding another Reconstructor use the first photo.
type MultiViewReconstructor interface {
	ReconstructViews(ctx context.Context, views []View, opts Options, progress ProgressFunc) (*Result, error)
}

// Azimuths returns each view's azimuth in degrees: the stated one, or for views
// without one, 360·k/n (evenly spaced in the order given). The first view is the
// front: its azimuth is 0 whatever was stated.
func Azimuths(views []View) []float64 {
	out := make([]float64, len(views))
	for k, v := range views {
		switch {
		case k == 0:
			out[k] = 0
		case math.IsNaN(v.Azimuth) || math.IsInf(v.Azimuth, 0):
			out[k] = 360 * float64(k) / float64(len(views))
		default:
			out[k] = math.Mod(math.Mod(v.Azimuth, 360)+360, 360)
		}
	}
	return out
}

// ReconstructViews builds one model from several photos of the same product; see the
// comment at the top of this file.
func (b builtin) ReconstructViews(ctx context.Context, views []View, opts Options, progress ProgressFunc) (*Result, error) {
	if len(views) == 1 {
		return b.Reconstruct(ctx, views[0].Image, opts, progress)
	}
	if len(views) < MinViews || len(views) > MaxViews {
		return nil, ErrViewCount
	}
	opts = opts.WithDefaults()
	pr := &progressReporter{fn: progress}
	tm := newStageTimer()
	pr.report(StepAnalyzing, 0)
	vs, warnings, err := prepareViews(ctx, views, opts, pr)
	if err != nil {
		return nil, err
	}
	for i, v := range vs {
		if w := cutOffWarning(v.Seg, i+1); w != "" {
			warnings = append(warnings, w)
		}
	}
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	if multiview.Oracle != nil && multiview.Oracle.Before != nil {
		multiview.Oracle.Before(vs)
	}
	pose, err := multiview.EstimatePoses(ctx, vs)
	if err != nil {
		return nil, err
	}
	if multiview.Oracle != nil && multiview.Oracle.After != nil {
		multiview.Oracle.After(vs, &pose)
	}
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)
	res, err := carveViews(ctx, vs, pose, views, opts, pr, tm, multiview.GroundBySections, nil)
	if err != nil {
		return nil, err
	}
	res.Warnings = warnings
	return res, nil
}

// carveViews carves, textures and encodes the posed views (views are the photos,
// for the input hash): the assembling and finalising steps of a multi-view build.
// score, when set, gives the model's fidelity from its carved mesh in the
// cameras' frame and what each photo sees of it (a spin set's, ReconstructSpin);
// without it the build has no score. The hull stands on ground.
func carveViews(ctx context.Context, vs []*multiview.View, pose multiview.PoseResult, views []View, opts Options, pr *progressReporter, tm *stageTimer, ground multiview.Ground, score func(context.Context, *geom.Mesh, *multiview.Sight) (*int, error)) (*Result, error) {
	pr.report(StepAssembling, 50)
	m, err := multiview.CarveMesh(ctx, vs, pose, opts.MaxTriangles, ground)
	if err != nil {
		return nil, err
	}
	pr.report(StepAssembling, 65)
	atlas, sight, err := multiview.TextureViews(ctx, vs, m)
	if err != nil {
		return nil, err
	}
	// Scored while m is still in the cameras' frame (placing moves and scales
	// it).
	var fid *int
	if score != nil {
		if fid, err = score(ctx, m, sight); err != nil {
			return nil, err
		}
	}
	parts, gparts := placeMultiView(m, vs[0], opts.HeightMetres)
	pr.report(StepAssembling, 75)
	tm.done(StageAssemble)

	pr.report(StepFinalizing, 75)
	glb, err := encodeWithinBudget(gparts, atlas, opts.AtlasSize, MaxGLBBytes)
	if err != nil {
		return nil, err
	}
	pr.report(StepFinalizing, 85)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{GLB: glb, Parts: parts}
	front := vs[0]
	// The model, not the front photo: the photo looks right even when a wrong
	// pose carved thin parts away, and this build has no score to warn of it.
	if res.Thumbnail, err = modelThumbnailPNG(glb); err != nil {
		return nil, err
	}
	if res.Mask, err = maskPNG(front.Seg); err != nil {
		return nil, err
	}
	if res.PartsMap, err = partsMapPNG(wholePartMap(front.Seg)); err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, v := range views {
		h.Write(v.Image)
	}
	tm.done(StageFinalize)
	// A hand-held multi-view build has no fidelity score: neither silhouette
	// coherence (93–100 on the real-product benchmark even where F@5 is 0.15
	// after a wrong pose) nor the views' mutual agreement (each mask against the
	// hull of the others: Pearson −0.13 with F@5 on that benchmark,
	// docs/reconstruction.md) tracks shape error, so a score would tell the
	// merchant "accurate" when it is not. Stats.Fidelity stays nil (as for the
	// remote reconstructor). A spin set has enough photos to split: its score
	// is how well two halves of it rebuild the same shape (score).
	res.Stats = Stats{
		ShapeKind: ShapeMultiView, Triangles: m.Triangles(), Vertices: len(m.Pos), Parts: len(parts), Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "builtin", Version: Version,
		InputSHA256: fmt.Sprintf("%x", h.Sum(nil)), Views: len(views), Fidelity: fid,
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// wholePartMap is the parts map of a one-part model: the front photo's mask on the
// segmentation grid, in the part's colour.
func wholePartMap(seg *segment.Segmentation) *segment.PartMap {
	pm := &segment.PartMap{W: seg.Sw, H: seg.Sh, Labels: make([]int8, seg.Sw*seg.Sh)}
	info := segment.PartInfo{Name: "Body"}
	for i, in := range seg.Smask {
		if !in {
			pm.Labels[i] = -1
			continue
		}
		c := seg.Srgb[i]
		info.Sum[0] += float64(c[0])
		info.Sum[1] += float64(c[1])
		info.Sum[2] += float64(c[2])
		info.Area++
	}
	pm.Parts = []segment.PartInfo{info}
	return pm
}

// placeMultiView moves the world-frame mesh so its base centre is at the origin and
// scales it to heightMetres; the model is one part.
func placeMultiView(m *geom.Mesh, front *multiview.View, heightMetres float64) ([]Part, []glbio.Part) {
	lo, hi := m.Bounds()
	s := heightMetres / float64(hi[1]-lo[1])
	shift := [3]float64{-(float64(lo[0]) + float64(hi[0])) / 2, -float64(lo[1]), -(float64(lo[2]) + float64(hi[2])) / 2}
	for i := range m.Pos {
		for c := range 3 {
			m.Pos[i][c] = float32((float64(m.Pos[i][c]) + shift[c]) * s)
		}
	}
	pm := wholePartMap(front.Seg)
	r, g, b := pm.Parts[0].MeanRGB()
	light := (r + g + b) / (3 * 255)
	parts := []Part{{ID: "part-1", Name: "Body", Color: segment.HexColor(r, g, b), Share: 1}}
	return parts, []glbio.Part{{Name: "Body", Mesh: m, Roughness: 0.45 + 0.3*light}}
}
