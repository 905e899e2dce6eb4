package reconstruct

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/geom"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
	"github.com/photo3d/photo3d/internal/reconstruct/texture"
)

// builtin is the CPU reconstructor; it holds no state, so one value serves all jobs.
type builtin struct{}

// NewBuiltin returns the pure-Go reconstructor: no GPU, no model weights, so every
// deployment (and every developer laptop) can produce models.
func NewBuiltin() Reconstructor { return builtin{} }

func (builtin) Name() string    { return "builtin" }
func (builtin) Version() string { return Version }

// Reconstruct runs the whole pipeline; see the package documentation.
func (b builtin) Reconstruct(ctx context.Context, data []byte, opts Options, progress ProgressFunc) (*Result, error) {
	opts = opts.WithDefaults()
	pr := &progressReporter{fn: progress}
	tm := newStageTimer()

	pr.report(StepAnalyzing, 0)
	p, err := segment.DecodePhoto(ctx, data, opts.WorkingSize)
	if err != nil {
		return nil, err
	}
	pr.report(StepAnalyzing, 10)
	seg, err := segment.Segment(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("segment photo: %w", err)
	}
	var warnings []string
	if !segment.SubjectSeparated(seg) {
		if opts.StrictSubject {
			return nil, segment.ErrSubjectNotSeparated
		}
		warnings = append(warnings, segment.ErrSubjectNotSeparated.Error())
	} else if w := cutOffWarning(seg, 0); w != "" {
		warnings = append(warnings, w)
	}
	pr.report(StepAnalyzing, 25)
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	pm, err := segment.DetectParts(ctx, seg)
	if err != nil {
		return nil, fmt.Errorf("detect parts: %w", err)
	}
	rows := shape.MeasureRows(seg)
	// The silhouette's own cues come first: legs under a wide body, or a handle loop
	// over a bag, rule out the geometric fits (a chair's front view is symmetric, a
	// tote's trapezoid fits a lathe), which would make such products round or boxy.
	sil := shape.ClassifySilhouette(seg)
	var fit shape.LatheFit
	var box shape.CuboidFit
	if !sil.VetoFits {
		fit = shape.FitLathe(rows)
		if box, err = shape.FitCuboid(ctx, seg); err != nil {
			return nil, err
		}
	}
	if box.Ok && box.SquareOn() {
		// A rectangle seen square on shows no side, so its depth is a guess; in a
		// catalogue that is mostly a flat good (a frame, a book, a phone), and a
		// thin slab is never as wrong as a box as deep as it is wide.
		box.Ok, fit.Ok = false, false
		sil = shape.FlatClass(seg, 0.4)
		sil.VetoFits = true
	}
	if box.Ok {
		fit.Ok = false
	}
	var handle shape.HandleFit
	if !fit.Ok && !box.Ok && !sil.VetoFits {
		if handle = shape.FitHandle(seg, p, rows); handle.Ok {
			rows = handle.Body
			fit = shape.LatheFit{Ok: true, Axis: handle.Axis}
		}
	}
	if fit.Ok {
		pm.ToBands(seg)
	}
	pm.NameParts()
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	pr.report(StepAssembling, 50)
	atlasSrc, uvm, err := texture.BuildAtlas(ctx, p, seg)
	if err != nil {
		return nil, err
	}
	pr.report(StepAssembling, 58)
	var meshes []*geom.Mesh
	kind := shape.KindInflate
	cls := shape.SilClass{Class: shape.ShapeClassBox, Confidence: 0.85}
	if box.Ok {
		kind = shape.KindCuboid
		meshes = make([]*geom.Mesh, len(pm.Parts))
		meshes[0] = shape.BuildCuboid(box, uvm)
	} else if fit.Ok {
		kind = shape.KindLathe
		cls = shape.SilClass{Class: shape.ShapeClassRevolution, Confidence: 0.9}
		if handle.Ok {
			cls.Class = shape.ShapeClassMug
		}
		var place func(x, y float64) (float64, float64)
		meshes, place = shape.BuildLathe(seg, pm, fit, rows, uvm, opts.MaxTriangles)
		if handle.Ok {
			if hm := shape.BuildHandle(handle, place, uvm); hm != nil {
				ff := float64(seg.F * seg.F)
				pm.Parts = append(pm.Parts, segment.PartInfo{Name: "Handle", Area: int(float64(handle.Area) / ff),
					Sum: [3]float64{handle.Sum[0] / ff, handle.Sum[1] / ff, handle.Sum[2] / ff}})
				meshes = append(meshes, hm)
			}
		}
	} else {
		cls = sil
		if meshes, err = shape.BuildClassShape(ctx, seg, pm, uvm, opts.MaxTriangles, cls); err != nil {
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
	fidelity := fidelity.ModelFidelity(gparts, kind, seg, p, atlasSrc)
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
		tris += g.Mesh.Triangles()
		verts += len(g.Mesh.Pos)
	}
	tm.done(StageFinalize)
	res.Stats = Stats{
		ShapeKind: kind, Triangles: tris, Vertices: verts, Parts: len(parts), Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "builtin", Version: Version,
		InputSHA256: fmt.Sprintf("%x", sha256.Sum256(data)),
		ShapeClass:  cls.Class, ShapeConfidence: math.Round(cls.Confidence*100) / 100,
	}
	if fidelity >= 0 {
		res.Stats.Fidelity = &fidelity
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// assembleParts scales the pixel-space meshes into metres with the origin at the
// centre of the base, and computes the exploded-view offsets and the parts list.
func assembleParts(seg *segment.Segmentation, pm *segment.PartMap, meshes []*geom.Mesh, heightMetres float64) ([]Part, []glbio.Part) {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, m := range meshes {
		if m == nil {
			continue
		}
		l, h := m.Bounds()
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
	for _, p := range pm.Parts {
		total += p.Area
	}
	var parts []Part
	var gparts []glbio.Part
	for pi, m := range meshes {
		if m == nil {
			continue
		}
		for i := range m.Pos {
			for c := range 3 {
				m.Pos[i][c] = float32((float64(m.Pos[i][c]) + shift[c]) * scale)
			}
		}
		info := pm.Parts[pi]
		r, g, b := info.MeanRGB()
		parts = append(parts, Part{
			ID:    fmt.Sprintf("part-%d", len(parts)+1),
			Name:  info.Name,
			Color: segment.HexColor(r, g, b),
			Share: math.Round(float64(info.Area)/float64(max(1, total))*1e4) / 1e4,
		})
		// Darker, more saturated regions read as glossier plastic/glass; light ones as
		// matte. A gentle heuristic: roughness 0.45–0.75 by lightness.
		light := (r + g + b) / (3 * 255)
		gparts = append(gparts, glbio.Part{Name: info.Name, Mesh: m, Roughness: 0.45 + 0.3*light})
	}
	// Exploded view: each part moves away from the object's centre, proportionally
	// to its distance from it, plus a constant share of the height so touching parts
	// visibly separate.
	centre := [3]float64{0, heightMetres / 2, 0}
	for i := range gparts {
		if len(gparts) == 1 {
			break
		}
		l, h := gparts[i].Mesh.Bounds()
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
			gparts[i].Offset[c] = d[c]*0.6 + d[c]/n*0.15*heightMetres
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
func encodeWithinBudget(gparts []glbio.Part, src *texture.AtlasSource, side, budget int) ([]byte, error) {
	quality := texture.AtlasQuality
	for {
		atlas, err := src.Encode(side, quality)
		if err != nil {
			return nil, err
		}
		glb, err := glbio.EncodeGLB(gparts, atlas, "Photo3D builtin "+Version, 0)
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
