package reconstruct

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
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

// mvView is one decoded, segmented photo with its camera.
type mvView struct {
	p   *photo
	seg *segmentation
	cam mvCam
	// Pose parameters (see pose.go): azimuth and elevation (radians), log of the
	// distance factor, and the pixel the world origin projects to.
	az, el, ls, du, dv float64
	lf                 float64 // log of the focal length over f0
	f0                 float64 // focal length assumed at first (a phone's main camera), pixels
	az0                float64 // stated azimuth
	baseZ              float64 // distance at ls = 0
	bbox               [4]float64
	// Coverage of the object on a coarse grid (cell lcell working pixels), used by the
	// pose search.
	lw, lh int
	lcell  float64
	lcov   []float32
	// lcovLoose is lcov of the loose mask (nil: none); see mvconsist.go.
	lcovLoose []float32
	// alpha is the mask carved from: seg.alpha grown by growMask.
	alpha []uint8
	// loose is alpha plus every cell that differs from the backdrop, shadow-like
	// ones included, except what a row's mask encloses (nil: none, as when
	// mvTakeBack is off); see mvconsist.go.
	loose []uint8
	// distrust leaves the view out of the carve (hullField); set only by the
	// real-set experiment in realmulti_diag_test.go.
	distrust bool
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
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	if mvPoseOracle != nil && mvPoseOracle.before != nil {
		mvPoseOracle.before(vs)
	}
	pose, err := estimatePoses(ctx, vs)
	if err != nil {
		return nil, err
	}
	if mvPoseOracle != nil && mvPoseOracle.after != nil {
		mvPoseOracle.after(vs, &pose)
	}
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)

	pr.report(StepAssembling, 50)
	m, err := carveMesh(ctx, vs, pose, opts.MaxTriangles, true)
	if err != nil {
		return nil, err
	}
	pr.report(StepAssembling, 65)
	atlas, err := textureViews(ctx, vs, m)
	if err != nil {
		return nil, err
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
	res := &Result{GLB: glb, Parts: parts, Warnings: warnings}
	front := vs[0]
	// The model, not the front photo: the photo looks right even when a wrong
	// pose carved thin parts away, and this build has no score to warn of it.
	if res.Thumbnail, err = modelThumbnailPNG(glb); err != nil {
		return nil, err
	}
	if res.Mask, err = maskPNG(front.seg); err != nil {
		return nil, err
	}
	if res.PartsMap, err = partsMapPNG(wholePartMap(front.seg)); err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, v := range views {
		h.Write(v.Image)
	}
	tm.done(StageFinalize)
	// No fidelity score: neither silhouette coherence (93–100 on the real-product
	// benchmark even where F@5 is 0.15 after a wrong pose) nor the views' mutual
	// agreement (each mask against the hull of the others: Pearson −0.13 with F@5
	// on that benchmark, docs/reconstruction.md) tracks shape error, so a score
	// would tell the merchant "accurate" when it is not. Stats.Fidelity stays nil
	// (as for the remote reconstructor) until one that tracks shape error exists.
	res.Stats = Stats{
		ShapeKind: ShapeMultiView, Triangles: m.triangles(), Vertices: len(m.pos), Parts: len(parts), Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "builtin", Version: Version,
		InputSHA256: fmt.Sprintf("%x", h.Sum(nil)), Views: len(views),
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// prepareViews decodes and segments every photo and sets its starting pose.
func prepareViews(ctx context.Context, views []View, opts Options, pr *progressReporter) ([]*mvView, []string, error) {
	az := Azimuths(views)
	vs := make([]*mvView, len(views))
	var warnings []string
	for i, v := range views {
		p, err := decodePhoto(ctx, v.Image, opts.WorkingSize)
		if err != nil {
			return nil, nil, fmt.Errorf("photo %d: %w", i+1, err)
		}
		seg, err := segment(ctx, p)
		if err != nil {
			return nil, nil, fmt.Errorf("segment photo %d: %w", i+1, err)
		}
		if !subjectSeparated(seg) {
			if opts.StrictSubject {
				return nil, nil, ErrSubjectNotSeparated
			}
			warnings = append(warnings, ErrSubjectNotSeparated.Error())
		}
		if seg.area == 0 {
			return nil, nil, ErrSubjectNotSeparated
		}
		vs[i] = newMVView(p, seg, az[i]*math.Pi/180)
		if pr != nil {
			pr.report(StepAnalyzing, 5+20*(i+1)/len(views))
		}
	}
	return vs, warnings, nil
}

// wholePartMap is the parts map of a one-part model: the front photo's mask on the
// segmentation grid, in the part's colour.
func wholePartMap(seg *segmentation) *partMap {
	pm := &partMap{w: seg.sw, h: seg.sh, labels: make([]int8, seg.sw*seg.sh)}
	info := partInfo{name: "Body"}
	for i, in := range seg.smask {
		if !in {
			pm.labels[i] = -1
			continue
		}
		c := seg.srgb[i]
		info.sum[0] += float64(c[0])
		info.sum[1] += float64(c[1])
		info.sum[2] += float64(c[2])
		info.area++
	}
	pm.parts = []partInfo{info}
	return pm
}

// placeMultiView moves the world-frame mesh so its base centre is at the origin and
// scales it to heightMetres; the model is one part.
func placeMultiView(m *mesh, front *mvView, heightMetres float64) ([]Part, []glbPart) {
	lo, hi := m.bounds()
	s := heightMetres / float64(hi[1]-lo[1])
	shift := [3]float64{-(float64(lo[0]) + float64(hi[0])) / 2, -float64(lo[1]), -(float64(lo[2]) + float64(hi[2])) / 2}
	for i := range m.pos {
		for c := range 3 {
			m.pos[i][c] = float32((float64(m.pos[i][c]) + shift[c]) * s)
		}
	}
	pm := wholePartMap(front.seg)
	r, g, b := pm.parts[0].meanRGB()
	light := (r + g + b) / (3 * 255)
	parts := []Part{{ID: "part-1", Name: "Body", Color: hexColor(r, g, b), Share: 1}}
	return parts, []glbPart{{name: "Body", mesh: m, roughness: 0.45 + 0.3*light}}
}
