// Package reconstruct turns one product photo into an AR-ready GLB. It is the heart of
// the product: everything a merchant publishes starts here, so the pipeline is
// deterministic (same photo, same model), respects cancellation, reports real progress
// and produces files that pass the Khronos glTF-Validator.
//
// Two implementations share the Reconstructor interface and are chosen by config:
//
//   - NewBuiltin: pure Go on the CPU, no model weights. Decode (EXIF orientation
//     applied) → segment (alpha channel, else a border-modelled background refined with
//     a GrabCut-style graph cut) → parts (CIELAB k-means regions) → shape (surface of
//     revolution for mirror-symmetric silhouettes, Poisson inflation elsewhere; every
//     part mesh is closed) → texture (front projection, mirrored back, one JPEG atlas) →
//     GLB (one node, mesh and PBR material per part, KHR_materials_variants, an
//     "Explode" animation).
//   - NewRemote: an HTTP inference server on a GPU speaking the Hunyuan3D-2
//     api_server.py contract (see remote.go). Its GLB is checked and normalised to the
//     same frame as the built-in's, and thumbnail and mask come from the built-in
//     segmenter, so downstream code cannot tell the two apart.
//
// Output frame (both implementations): metres, +Y up, the photo's front facing +Z,
// origin at the centre of the object's base, height equal to Options.HeightMetres.
//
// Closed parts. Every part of a builtin model is its own watertight, outward-facing
// mesh, so parts can be exploded, hidden or 3D-printed on their own:
//
//   - lathe parts are horizontal bands (cap, neck, label, base…), each a closed solid
//     of revolution capped by flat discs where it meets the next band;
//   - inflate parts are regions of the silhouette, each closed by front and back
//     surfaces that share their vertices on the outline (the rim weld) and by a
//     vertical wall where the region meets another part. Neighbouring parts' walls
//     coincide, so the assembled model shows no seam, and the walls become the cut
//     faces seen in the exploded view.
//
// Shape choice: the silhouette's own cues come first (shape/depthprior.go): legs standing
// apart under a wide body make furniture, a loop over the middle a bag; either rules
// out the geometric fits. Otherwise a silhouette whose lower outline is two straight
// edges and that a cuboid's outline (under a phone camera's perspective) matches is
// built as a box (shape/cuboid.go), unless it is seen square on (a sliver of side: a flat
// good); a mirror-symmetric one as a solid of revolution with the camera's pitch and
// perspective undone (shape/view.go). Anything else is a height field over the silhouette
// whose depth comes from its class: furniture (seat as deep as the piece, legs at
// front and rear, a sofa's back as a slab at the rear), flat goods (a thin slab), or
// the fallback, a rounded prism about as deep as wide (capped by the height), which
// is never as wrong as a pillow-thin inflation on solid products. Stats.ShapeClass and
// Stats.ShapeConfidence report the class and how clear its cue was.
//
// Known limits: one photo cannot show the back, so the back is the mirrored front;
// a bag's loop and a carrying handle (a boombox) look alike, so both are thin; holes larger than 4% of the object are kept open; lathe bands take the
// majority part of each row, so a logo that does not wrap around becomes texture on
// its band rather than a separate part.
//
// Layout, one package per stage (docs/reconstruction.md describes each):
//
//   - segment: decode, silhouette (backdrop model and graph cut), colour parts;
//   - shape: one silhouette to closed parts (outline classes, lathe, cuboid,
//     inflation, furniture, handles, overhangs);
//   - multiview: several photos (poses by silhouette coherence, hull carving,
//     take-back, ground, texturing from the best-facing view);
//   - geom: meshes, voxel grids, surface extraction; texture: the photo atlas;
//   - glbio: the GLB we write and the glTF we read; fidelity: the 0–100 score.
//
// This package holds the API, the orchestration of one photo (builtin.go) and of
// several (multiview.go), the GPU path (remote.go, normalise.go), uploaded models
// (model_upload.go), and the tests that run whole reconstructions on synthetic and
// real products.
package reconstruct

import (
	"context"
	"time"

	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
)

// ErrSubjectNotSeparated is the refusal (or warning) for a photo whose product could
// not be told apart from its background; callers match it with errors.Is.
var ErrSubjectNotSeparated = segment.ErrSubjectNotSeparated

// fidelity.WarnBelow and LowFidelityAdvice: a model scoring under fidelity.WarnBelow is
// flagged to the merchant with LowFidelityAdvice (see package fidelity).
const (
	FidelityWarnBelow = fidelity.WarnBelow
	LowFidelityAdvice = fidelity.LowFidelityAdvice
	// LowSpinFidelityAdvice replaces LowFidelityAdvice for a spin set's build.
	LowSpinFidelityAdvice = fidelity.LowSpinFidelityAdvice
)

// Version of the built-in reconstructor. It is written into asset.generator and the
// stats so a model can always be traced back to the code that made it; bump it whenever
// output for the same photo changes.
const Version = "1.3.20"

// Step is one of the four user-visible processing steps named by the product spec.
type Step string

// The steps in the order they run; the strings are shown to users verbatim.
const (
	StepAnalyzing      Step = "Analyzing Image"
	StepDeconstructing Step = "Deconstructing Components"
	StepAssembling     Step = "Assembling 3D Model"
	StepFinalizing     Step = "Finalizing Details"
)

// ProgressFunc receives real progress so the processing screen is not a fake timer.
// percent is overall (0..100) and never decreases within one reconstruction.
type ProgressFunc func(step Step, percent int)

// Options tune a reconstruction. The zero value is valid: every field has a default
// chosen for phone viewing and AR (Options.WithDefaults documents them).
type Options struct {
	// HeightMetres is the real-world height of the object (default 0.3 m) so AR
	// placement shows it at a believable size.
	HeightMetres float64
	// MaxTriangles caps the whole model (default 60000) to keep mobile viewers smooth.
	MaxTriangles int
	// WorkingSize is the long side, in pixels, the photo is scaled to (default 1024).
	WorkingSize int
	// AtlasSize caps the texture atlas side (default and maximum 2048).
	AtlasSize int
	// StrictSubject makes the builtin fail with ErrSubjectNotSeparated when no single
	// object can be separated from the background; otherwise it still builds a model
	// and reports the problem in Result.Warnings.
	StrictSubject bool
}

// Defaults and bounds for Options.
const (
	DefaultHeightMetres = 0.3
	DefaultMaxTriangles = 60000
	DefaultWorkingSize  = 1024
	DefaultAtlasSize    = 2048
	minWorkingSize      = 64
	maxWorkingSize      = 4096
	minTriangles        = 500
)

// WithDefaults fills zero or out-of-range fields so every caller gets the same
// behaviour for "unset".
func (o Options) WithDefaults() Options {
	if !(o.HeightMetres > 0) || o.HeightMetres > 100 {
		o.HeightMetres = DefaultHeightMetres
	}
	if o.MaxTriangles <= 0 {
		o.MaxTriangles = DefaultMaxTriangles
	}
	o.MaxTriangles = max(o.MaxTriangles, minTriangles)
	if o.WorkingSize <= 0 {
		o.WorkingSize = DefaultWorkingSize
	}
	o.WorkingSize = min(max(o.WorkingSize, minWorkingSize), maxWorkingSize)
	if o.AtlasSize <= 0 || o.AtlasSize > DefaultAtlasSize {
		o.AtlasSize = DefaultAtlasSize
	}
	o.AtlasSize = max(o.AtlasSize, 64)
	return o
}

// Part is one configurable component of the model (one glTF node, mesh and material),
// listed so the configurator can offer per-part materials.
type Part struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Color string  `json:"color"` // mean colour as #rrggbb
	Share float64 `json:"share"` // fraction of the object's silhouette
}

// Stats describe how a model was made, for the job record, metrics and support.
type Stats struct {
	ShapeKind string `json:"shapeKind"` // "lathe", "cuboid" or "inflate" (builtin), "remote"
	// ShapeClass is the kind of product the builtin read the silhouette as (the
	// ShapeClass* constants: revolution, mug, box, furniture, bulky, flat), which
	// decides the depth one photo cannot show; empty for remote.
	ShapeClass string `json:"shapeClass,omitempty"`
	// ShapeConfidence (0–1) is how clearly the photo showed that class's cue (a fitted
	// solid of revolution or box: high; furniture: by how clear the legs are; flat and
	// bulky are priors with no cue to check, so low). A fidelity score can use it to
	// tell a measured shape from a guessed one.
	ShapeConfidence float64          `json:"shapeConfidence,omitempty"`
	Triangles       int              `json:"triangles"`
	Vertices        int              `json:"vertices"`
	Parts           int              `json:"parts"`
	Bytes           int              `json:"bytes"` // GLB size
	StepMillis      map[string]int64 `json:"stepMillis"`
	TotalMillis     int64            `json:"totalMillis"`
	Reconstructor   string           `json:"reconstructor"`
	Version         string           `json:"version"`
	// InputSHA256 is the hex SHA-256 of the photo bytes, so an analyst can tell which
	// code made which model from which photo (with Reconstructor and Version).
	InputSHA256 string `json:"inputSha256,omitempty"`
	// Fidelity (0–100) is how well the model, re-rendered through the estimated
	// photo camera, matches the photo's silhouette and colours (fidelity/fidelity.go); nil
	// when the reconstructor cannot score its model (remote).
	Fidelity *int `json:"fidelity,omitempty"`
	// Views is how many photos the model was built from (0 or 1: one photo).
	Views int `json:"views,omitempty"`
}

// Stage keys used in Stats.StepMillis.
const (
	StageAnalyze     = "analyze"
	StageDeconstruct = "deconstruct"
	StageAssemble    = "assemble"
	StageFinalize    = "finalize"
)

// Result is everything a reconstruction produces; the worker stores each file as a blob.
type Result struct {
	GLB       []byte `json:"-"`
	Thumbnail []byte `json:"-"` // PNG cut-out, long side ≤ 512 px
	Mask      []byte `json:"-"` // PNG, 8-bit alpha mask at working resolution
	PartsMap  []byte `json:"-"` // PNG, each part painted in its colour
	Parts     []Part `json:"parts"`
	Stats     Stats  `json:"stats"`
	// Warnings are user-facing sentences about doubtful results (for example
	// ErrSubjectNotSeparated's text), empty when all is well.
	Warnings []string `json:"warnings,omitempty"`
}

// Reconstructor turns photo bytes into a model. Implementations must be safe for
// concurrent use, return ctx.Err() promptly when ctx ends, and return imagecheck's
// errors for invalid photos so users see the spec's messages.
type Reconstructor interface {
	Name() string
	Version() string
	Reconstruct(ctx context.Context, image []byte, opts Options, progress ProgressFunc) (*Result, error)
}

// progressReporter keeps reported percentages monotonic and tolerates a nil callback.
type progressReporter struct {
	fn   ProgressFunc
	last int
}

func (p *progressReporter) report(step Step, pct int) {
	pct = min(max(pct, p.last), 100)
	p.last = pct
	if p.fn != nil {
		p.fn(step, pct)
	}
}

// stageTimer records per-stage wall time for Stats.
type stageTimer struct {
	start  time.Time
	marks  map[string]int64
	stageT time.Time
}

func newStageTimer() *stageTimer {
	now := time.Now()
	return &stageTimer{start: now, stageT: now, marks: map[string]int64{}}
}

func (s *stageTimer) done(stage string) {
	now := time.Now()
	s.marks[stage] += now.Sub(s.stageT).Milliseconds()
	s.stageT = now
}

func (s *stageTimer) total() int64 { return time.Since(s.start).Milliseconds() }
