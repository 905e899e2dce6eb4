package reconstruct

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
)

// builtin is the CPU reconstructor; it holds no state, so one value serves all jobs.
type builtin struct{}

// NewBuiltin returns the pure-Go reconstructor: no GPU, no model weights, so every
// deployment (and every developer laptop) can produce models.
func NewBuiltin() Reconstructor { return builtin{} }

func (builtin) Name() string    { return "builtin" }
func (builtin) Version() string { return Version }

// Shape kinds reported in Stats.ShapeKind.
const (
	ShapeLathe   = "lathe"
	ShapeInflate = "inflate"
	ShapeCuboid  = "cuboid"
	ShapeRemote  = "remote"
)

// Reconstruct runs the whole pipeline; see the package documentation.
func (b builtin) Reconstruct(ctx context.Context, data []byte, opts Options, progress ProgressFunc) (*Result, error) {
	opts = opts.WithDefaults()
	pr := &progressReporter{fn: progress}
	tm := newStageTimer()

	pr.report(StepAnalyzing, 0)
	p, err := decodePhoto(ctx, data, opts.WorkingSize)
	if err != nil {
		return nil, err
	}
	pr.report(StepAnalyzing, 10)
	seg, err := segment(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("segment photo: %w", err)
	}
	var warnings []string
	if !subjectSeparated(seg) {
		if opts.StrictSubject {
			return nil, ErrSubjectNotSeparated
		}
		warnings = append(warnings, ErrSubjectNotSeparated.Error())
	}
	pr.report(StepAnalyzing, 25)
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	pm, err := detectParts(ctx, seg)
	if err != nil {
		return nil, fmt.Errorf("detect parts: %w", err)
	}
	rows := measureRows(seg)
	// The silhouette's own cues come first: legs under a wide body, or a handle loop
	// over a bag, rule out the geometric fits (a chair's front view is symmetric, a
	// tote's trapezoid fits a lathe), which would make such products round or boxy.
	sil := classifySilhouette(seg)
	var fit latheFit
	var box cuboidFit
	if !sil.vetoFits {
		fit = fitLathe(rows)
		if box, err = fitCuboid(ctx, seg); err != nil {
			return nil, err
		}
	}
	if box.ok && box.squareOn() {
		// A rectangle seen square on shows no side, so its depth is a guess; in a
		// catalogue that is mostly a flat good (a frame, a book, a phone), and a
		// thin slab is never as wrong as a box as deep as it is wide.
		box.ok, fit.ok = false, false
		sil = flatClass(seg, 0.4)
		sil.vetoFits = true
	}
	if box.ok {
		fit.ok = false
	}
	var handle handleFit
	if !fit.ok && !box.ok && !sil.vetoFits {
		if handle = fitHandle(seg, p, rows); handle.ok {
			rows = handle.body
			fit = latheFit{ok: true, axis: handle.axis}
		}
	}
	if fit.ok {
		pm.toBands(seg)
	}
	pm.nameParts()
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	pr.report(StepAssembling, 50)
	atlasSrc, uvm, err := buildAtlas(ctx, p, seg)
	if err != nil {
		return nil, err
	}
	pr.report(StepAssembling, 58)
	var meshes []*mesh
	kind := ShapeInflate
	cls := silClass{class: ShapeClassBox, confidence: 0.85}
	if box.ok {
		kind = ShapeCuboid
		meshes = make([]*mesh, len(pm.parts))
		meshes[0] = buildCuboid(box, uvm)
	} else if fit.ok {
		kind = ShapeLathe
		cls = silClass{class: ShapeClassRevolution, confidence: 0.9}
		if handle.ok {
			cls.class = ShapeClassMug
		}
		var place func(x, y float64) (float64, float64)
		meshes, place = buildLathe(seg, pm, fit, rows, uvm, opts.MaxTriangles)
		if handle.ok {
			if hm := buildHandle(handle, place, uvm); hm != nil {
				ff := float64(seg.f * seg.f)
				pm.parts = append(pm.parts, partInfo{name: "Handle", area: int(float64(handle.area) / ff),
					sum: [3]float64{handle.sum[0] / ff, handle.sum[1] / ff, handle.sum[2] / ff}})
				meshes = append(meshes, hm)
			}
		}
	} else {
		cls = sil
		if meshes, err = buildClassShape(ctx, seg, pm, uvm, opts.MaxTriangles, cls); err != nil {
			return nil, fmt.Errorf("inflate shape: %w", err)
		}
	}
	parts, gparts := assembleParts(seg, pm, meshes, opts.HeightMetres)
	if len(gparts) == 0 {
		return nil, fmt.Errorf("assemble model: no geometry produced")
	}
	pr.report(StepAssembling, 75)
	tm.done(StageAssemble)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	pr.report(StepFinalizing, 75)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fidelity := modelFidelity(gparts, kind, seg, p, atlasSrc)
	glb, err := encodeWithinBudget(gparts, atlasSrc, opts.AtlasSize, MaxGLBBytes)
	if err != nil {
		return nil, err
	}
	pr.report(StepFinalizing, 85)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{GLB: glb, Parts: parts, Warnings: warnings}
	if res.Thumbnail, err = thumbnailPNG(p, seg); err != nil {
		return nil, err
	}
	if res.Mask, err = maskPNG(seg); err != nil {
		return nil, err
	}
	if res.PartsMap, err = partsMapPNG(pm); err != nil {
		return nil, err
	}
	tris, verts := 0, 0
	for _, g := range gparts {
		tris += g.mesh.triangles()
		verts += len(g.mesh.pos)
	}
	tm.done(StageFinalize)
	res.Stats = Stats{
		ShapeKind: kind, Triangles: tris, Vertices: verts, Parts: len(parts), Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "builtin", Version: Version,
		InputSHA256: fmt.Sprintf("%x", sha256.Sum256(data)),
		ShapeClass:  cls.class, ShapeConfidence: math.Round(cls.confidence*100) / 100,
	}
	if fidelity >= 0 {
		res.Stats.Fidelity = &fidelity
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// assembleParts scales the pixel-space meshes into metres with the origin at the
// centre of the base, and computes the exploded-view offsets and the parts list.
func assembleParts(seg *segmentation, pm *partMap, meshes []*mesh, heightMetres float64) ([]Part, []glbPart) {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, m := range meshes {
		if m == nil {
			continue
		}
		l, h := m.bounds()
		for c := range 3 {
			lo[c] = min(lo[c], float64(l[c]))
			hi[c] = max(hi[c], float64(h[c]))
		}
	}
	if math.IsInf(lo[0], 1) || hi[1] <= lo[1] {
		return nil, nil
	}
	scale := heightMetres / (hi[1] - lo[1])
	shift := [3]float64{-(lo[0] + hi[0]) / 2, -lo[1], -(lo[2] + hi[2]) / 2}
	total := 0
	for _, p := range pm.parts {
		total += p.area
	}
	var parts []Part
	var gparts []glbPart
	for pi, m := range meshes {
		if m == nil {
			continue
		}
		for i := range m.pos {
			for c := range 3 {
				m.pos[i][c] = float32((float64(m.pos[i][c]) + shift[c]) * scale)
			}
		}
		info := pm.parts[pi]
		r, g, b := info.meanRGB()
		parts = append(parts, Part{
			ID:    fmt.Sprintf("part-%d", len(parts)+1),
			Name:  info.name,
			Color: hexColor(r, g, b),
			Share: math.Round(float64(info.area)/float64(max(1, total))*1e4) / 1e4,
		})
		// Darker, more saturated regions read as glossier plastic/glass; light ones as
		// matte. A gentle heuristic: roughness 0.45–0.75 by lightness.
		light := (r + g + b) / (3 * 255)
		gparts = append(gparts, glbPart{name: info.name, mesh: m, roughness: 0.45 + 0.3*light})
	}
	// Exploded view: each part moves away from the object's centre, proportionally
	// to its distance from it, plus a constant share of the height so touching parts
	// visibly separate.
	centre := [3]float64{0, heightMetres / 2, 0}
	for i := range gparts {
		if len(gparts) == 1 {
			break
		}
		l, h := gparts[i].mesh.bounds()
		d := [3]float64{}
		n := 0.0
		for c := range 3 {
			d[c] = (float64(l[c])+float64(h[c]))/2 - centre[c]
			n += d[c] * d[c]
		}
		n = math.Sqrt(n)
		if n < 1e-6 {
			d, n = [3]float64{0, 0, 1}, 1 // a centred part comes forward
		}
		for c := range 3 {
			gparts[i].offset[c] = d[c]*0.6 + d[c]/n*0.15*heightMetres
		}
	}
	return parts, gparts
}

// MaxGLBBytes is the size budget of a builtin GLB: phones download it over mobile
// networks before AR opens. The atlas gives way (JPEG quality, then size); geometry is
// bounded by Options.MaxTriangles (60,000 triangles are about 1.2 MB).
const MaxGLBBytes = 2 << 20

// encodeWithinBudget encodes the GLB, lowering the atlas's JPEG quality and then its
// size until the file fits budget (or the atlas is 256 px, where geometry
// dominates and the cap on triangles bounds it).
func encodeWithinBudget(gparts []glbPart, src *atlasSource, side, budget int) ([]byte, error) {
	quality := atlasQuality
	for {
		atlas, err := src.encode(side, quality)
		if err != nil {
			return nil, err
		}
		glb, err := encodeGLB(gparts, atlas, "Photo3D builtin "+Version, 0)
		if err != nil || len(glb) <= budget || (side <= 256 && quality <= 60) {
			return glb, err
		}
		if quality > 60 {
			quality = max(60, quality-14)
		} else {
			side /= 2
		}
	}
}
