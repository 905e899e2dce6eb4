package reconstruct

// Remote inference contract (Hunyuan3D-2 api_server.py, also served by compatible
// SF3D/TRELLIS wrappers):
//
//	POST {URL}/generate
//	Content-Type: application/json
//	{"image": "<base64 PNG>", "texture": true, "type": "glb", "seed": 1234,
//	 "face_count": <MaxTriangles>}
//
//	200 → the GLB file itself (FileResponse, any content type).
//	404 + {"text": "...", "error_code": 1} → the server failed to generate (the
//	    reference server reports every exception, CUDA errors included, this way).
//	5xx / 429 / network errors → transient.
//
// The image sent is the upright (EXIF-applied) photo at working resolution as PNG,
// because the reference server opens it with PIL, which ignores EXIF orientation; the
// server removes the background itself. Transient failures (network, 5xx, 429, the
// 404 error_code reply) are retried with exponential backoff; other 4xx are final.
// Each attempt has its own timeout and the response is read through a size cap.
//
// The returned GLB is then checked (magic "glTF", version 2, parses, self-contained,
// has geometry) and normalised to the builtin's frame: a root node scales it to
// Options.HeightMetres and moves the centre of its base to the origin (+Y up, as
// trimesh exports). It also gets the same KHR_materials_variants set on its largest
// mesh and an "Explode" animation, and thumbnail, mask and parts map come from the
// built-in segmenter run on the same photo.
//
// Unlike the builtin, the separation check is advisory here even under
// Options.StrictSubject: the inference server removes the background itself (its
// own, stronger segmenter), so a photo the built-in segmenter cannot cut out is no
// reason to refuse it; the doubt is reported in Result.Warnings instead. The model
// gets a fidelity score from the returned mesh and the photo (remote_fidelity.go),
// held to the builtin's rule that a hidden side the photo does not evidence is a
// guess (below the warning threshold), or a warning saying why it has none.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/qmuntal/gltf"

	"github.com/photo3d/photo3d/internal/glbwrite"
)

// RemoteConfig configures the GPU inference client.
type RemoteConfig struct {
	// URL is the server's base URL, e.g. http://gpu-1:8081 (no trailing /generate).
	URL string
	// Timeout bounds one attempt (default 5 minutes: GPU generation takes 30–90 s).
	Timeout time.Duration
	// Retries is how many times a transient failure is retried (default 2; -1: none).
	Retries int
	// MaxResponseBytes caps the GLB read from the server (default 64 MiB).
	MaxResponseBytes int64
	// HTTPClient is used for requests (default: a client without its own timeout).
	HTTPClient *http.Client
	// Backoff is the first retry delay, doubled per retry (default 500 ms).
	Backoff time.Duration
}

// Errors of the remote reconstructor, distinguishable by the worker with errors.Is
// (for example to fall back to the built-in reconstructor).
var (
	// ErrRemoteUnavailable means every attempt failed with a transient error.
	ErrRemoteUnavailable = errors.New("remote reconstructor unavailable")
	// ErrRemoteRejected means the server refused the request (a non-transient 4xx).
	ErrRemoteRejected = errors.New("remote reconstructor rejected the request")
	// ErrRemoteTooLarge means the response exceeded MaxResponseBytes.
	ErrRemoteTooLarge = errors.New("remote model exceeds the size limit")
	// ErrRemoteInvalidModel means the response is not a usable glTF 2.0 binary.
	ErrRemoteInvalidModel = errors.New("remote model is not a valid GLB")
)

const (
	defaultRemoteTimeout  = 5 * time.Minute
	defaultRemoteRetries  = 2
	defaultRemoteMaxBytes = 64 << 20
	defaultRemoteBackoff  = 500 * time.Millisecond
	remoteSeed            = 1234
)

type remote struct {
	cfg RemoteConfig
}

// NewRemote returns a reconstructor that delegates geometry to a GPU inference server
// (see the contract above) and normalises its output like the built-in's.
func NewRemote(cfg RemoteConfig) Reconstructor {
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultRemoteTimeout
	}
	switch {
	case cfg.Retries < 0:
		cfg.Retries = 0
	case cfg.Retries == 0:
		cfg.Retries = defaultRemoteRetries
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = defaultRemoteMaxBytes
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = defaultRemoteBackoff
	}
	return &remote{cfg: cfg}
}

func (r *remote) Name() string    { return "remote" }
func (r *remote) Version() string { return Version }

// Reconstruct sends the photo to the server and normalises the returned model.
func (r *remote) Reconstruct(ctx context.Context, data []byte, opts Options, progress ProgressFunc) (*Result, error) {
	opts = opts.WithDefaults()
	pr := &progressReporter{fn: progress}
	tm := newStageTimer()

	pr.report(StepAnalyzing, 0)
	p, err := decodePhoto(ctx, data, opts.WorkingSize)
	if err != nil {
		return nil, err
	}
	seg, err := segment(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("segment photo: %w", err)
	}
	// Advisory only (see the file comment): the server separates the product
	// itself, so the built-in segmenter's doubt must not veto it.
	var warnings []string
	if !subjectSeparated(seg) {
		warnings = append(warnings, ErrSubjectNotSeparated.Error())
	}
	upright, err := encodePNG(p.img)
	if err != nil {
		return nil, err
	}
	pr.report(StepAnalyzing, 25)
	tm.done(StageAnalyze)

	pr.report(StepDeconstructing, 25)
	raw, err := r.generate(ctx, upright, opts)
	if err != nil {
		return nil, err
	}
	pr.report(StepDeconstructing, 50)
	tm.done(StageDeconstruct)

	pr.report(StepAssembling, 50)
	glb, tris, verts, err := normaliseGLB(raw, opts.HeightMetres)
	if err != nil {
		return nil, err
	}
	pr.report(StepAssembling, 75)
	tm.done(StageAssemble)

	pr.report(StepFinalizing, 75)
	pm := singlePart(seg)
	res := &Result{GLB: glb, Warnings: warnings}
	if res.Thumbnail, err = thumbnailPNG(p, seg); err != nil {
		return nil, err
	}
	if res.Mask, err = maskPNG(seg); err != nil {
		return nil, err
	}
	if res.PartsMap, err = partsMapPNG(pm); err != nil {
		return nil, err
	}
	cr, cg, cb := pm.parts[0].meanRGB()
	res.Parts = []Part{{ID: "part-1", Name: "Body", Color: hexColor(cr, cg, cb), Share: 1}}
	tm.done(StageFinalize)
	res.Stats = Stats{
		ShapeKind: ShapeRemote, Triangles: tris, Vertices: verts, Parts: 1, Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "remote", Version: Version,
		InputSHA256: fmt.Sprintf("%x", sha256.Sum256(data)),
	}
	if score, err := remoteFidelity(ctx, glb, seg, p); err == nil {
		res.Stats.Fidelity = &score
	} else {
		// No score rather than a made-up one; the merchant sees none.
		res.Warnings = append(res.Warnings, "No mesh fidelity score: "+err.Error()+".")
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// singlePart labels the whole object as one part (the remote model has one mesh).
func singlePart(seg *segmentation) *partMap {
	pm := &partMap{w: seg.sw, h: seg.sh, labels: make([]int8, len(seg.smask))}
	for i, in := range seg.smask {
		pm.labels[i] = -1
		if in {
			pm.labels[i] = 0
		}
	}
	pm.parts = partStats(pm.labels, 1, seg.sw, seg.sh, seg)
	pm.parts[0].name = "Body"
	return pm
}

// generateRequest is the JSON body of POST /generate.
type generateRequest struct {
	Image     string `json:"image"`
	Texture   bool   `json:"texture"`
	Type      string `json:"type"`
	Seed      int    `json:"seed"`
	FaceCount int    `json:"face_count"`
}

// errTransient marks failures worth retrying.
type errTransient struct{ err error }

func (e errTransient) Error() string { return e.err.Error() }
func (e errTransient) Unwrap() error { return e.err }

// generate posts the photo, retrying transient failures with exponential backoff.
func (r *remote) generate(ctx context.Context, png []byte, opts Options) ([]byte, error) {
	body, err := json.Marshal(generateRequest{
		Image: base64.StdEncoding.EncodeToString(png), Texture: true, Type: "glb",
		Seed: remoteSeed, FaceCount: opts.MaxTriangles,
	})
	if err != nil {
		return nil, fmt.Errorf("encode generate request: %w", err)
	}
	delay := r.cfg.Backoff
	var last error
	for attempt := 0; attempt <= r.cfg.Retries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
			delay *= 2
		}
		out, err := r.attempt(ctx, body)
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var tr errTransient
		if !errors.As(err, &tr) {
			return nil, err
		}
		last = err
	}
	return nil, fmt.Errorf("%w after %d attempts: %w", ErrRemoteUnavailable, r.cfg.Retries+1, last)
}

// attempt performs one request with its own timeout.
func (r *remote) attempt(ctx context.Context, body []byte) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, r.cfg.URL+"/generate", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build generate request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "model/gltf-binary, application/octet-stream")
	resp, err := r.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, errTransient{fmt.Errorf("post generate: %w", err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxResponseBytes+1))
	if err != nil {
		return nil, errTransient{fmt.Errorf("read generate response: %w", err)}
	}
	if int64(len(data)) > r.cfg.MaxResponseBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrRemoteTooLarge, r.cfg.MaxResponseBytes)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return data, nil
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusTooManyRequests:
		return nil, errTransient{fmt.Errorf("generate: server status %d", resp.StatusCode)}
	case resp.StatusCode == http.StatusNotFound && isGenerationFailure(data):
		return nil, errTransient{fmt.Errorf("generate: server reported a generation failure")}
	}
	return nil, fmt.Errorf("%w: status %d", ErrRemoteRejected, resp.StatusCode)
}

// isGenerationFailure recognises the reference server's error reply.
func isGenerationFailure(body []byte) bool {
	var v struct {
		ErrorCode *int `json:"error_code"`
	}
	return json.Unmarshal(body, &v) == nil && v.ErrorCode != nil
}

// checkGLBHeader verifies magic, version and declared length before parsing.
func checkGLBHeader(b []byte) error {
	if len(b) < 20 || string(b[:4]) != "glTF" {
		return fmt.Errorf("%w: missing glTF magic", ErrRemoteInvalidModel)
	}
	if v := binary.LittleEndian.Uint32(b[4:8]); v != 2 {
		return fmt.Errorf("%w: version %d", ErrRemoteInvalidModel, v)
	}
	if l := binary.LittleEndian.Uint32(b[8:12]); int(l) > len(b) || l < 20 {
		return fmt.Errorf("%w: declared length %d of %d bytes", ErrRemoteInvalidModel, l, len(b))
	}
	return nil
}

// normaliseGLB validates a foreign GLB and rewrites it in the product frame. It
// returns the new GLB with its triangle and vertex counts.
func normaliseGLB(raw []byte, height float64) ([]byte, int, int, error) {
	if err := checkGLBHeader(raw); err != nil {
		return nil, 0, 0, err
	}
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(doc); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", ErrRemoteInvalidModel, err)
	}
	if err := selfContained(doc); err != nil {
		return nil, 0, 0, err
	}
	return normaliseDocument(doc, height, "Photo3D remote "+Version)
}

// normaliseDocument rewrites a checked, self-contained document in the product
// frame (a root node scales it to height and puts the centre of its base at the
// origin), adds the variants and Explode animation, and encodes it as GLB. The
// remote reconstructor's models and merchants' own uploads both pass here.
func normaliseDocument(doc *gltf.Document, height float64, generator string) ([]byte, int, int, error) {
	scene := 0
	if doc.Scene != nil {
		scene = *doc.Scene
	}
	if scene < 0 || scene >= len(doc.Scenes) {
		return nil, 0, 0, fmt.Errorf("%w: no scene", ErrRemoteInvalidModel)
	}
	w := &boundsWalker{doc: doc, lo: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, hi: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for _, n := range doc.Scenes[scene].Nodes {
		if err := w.walk(n, identity(), 0); err != nil {
			return nil, 0, 0, err
		}
	}
	if w.verts == 0 || !(w.hi[1] > w.lo[1]) {
		return nil, 0, 0, fmt.Errorf("%w: no geometry", ErrRemoteInvalidModel)
	}
	s := height / (w.hi[1] - w.lo[1])
	root := &gltf.Node{
		Name:        "Photo3D",
		Scale:       [3]float64{s, s, s},
		Translation: [3]float64{-(w.lo[0] + w.hi[0]) / 2 * s, -w.lo[1] * s, -(w.lo[2] + w.hi[2]) / 2 * s},
		Rotation:    [4]float64{0, 0, 0, 1},
	}
	body := &gltf.Node{Name: "Body", Children: doc.Scenes[scene].Nodes, Scale: [3]float64{1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}}
	doc.Nodes = append(doc.Nodes, body)
	bodyIdx := len(doc.Nodes) - 1
	root.Children = []int{bodyIdx}
	doc.Nodes = append(doc.Nodes, root)
	doc.Scenes[scene].Nodes = []int{len(doc.Nodes) - 1}
	doc.Scene = gltf.Index(scene)

	if err := addRemoteExtras(doc, bodyIdx, w.largestMesh); err != nil {
		return nil, 0, 0, err
	}
	gen := generator
	if doc.Asset.Generator != "" {
		gen += " (" + doc.Asset.Generator + ")"
	}
	doc.Asset.Generator = gen
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, 0, 0, fmt.Errorf("encode normalised glb: %w", err)
	}
	return out.Bytes(), w.tris, w.verts, nil
}

// selfContained rejects models that reference external files: a GLB we publish must
// carry everything it needs.
func selfContained(doc *gltf.Document) error {
	for i, b := range doc.Buffers {
		if i == 0 && b.URI == "" {
			continue
		}
		if !b.IsEmbeddedResource() {
			return fmt.Errorf("%w: buffer %d references %q", ErrRemoteInvalidModel, i, b.URI)
		}
	}
	for i, im := range doc.Images {
		if im.BufferView == nil && !im.IsEmbeddedResource() {
			return fmt.Errorf("%w: image %d references %q", ErrRemoteInvalidModel, i, im.URI)
		}
	}
	return nil
}

// boundsWalker accumulates world-space bounds and counts over a node tree.
type boundsWalker struct {
	doc         *gltf.Document
	lo, hi      [3]float64
	verts, tris int
	largestMesh int
	largestSize int
	seen        int
	acc         *accessorCache // each mesh's positions are read once, transformed per visit
}

func (w *boundsWalker) walk(ni int, parent [16]float64, depth int) error {
	if ni < 0 || ni >= len(w.doc.Nodes) || depth > 64 {
		return fmt.Errorf("%w: bad node hierarchy", ErrRemoteInvalidModel)
	}
	w.seen++
	if w.seen > maxModelNodeVisits {
		return fmt.Errorf("%w: node graph too large", ErrRemoteInvalidModel)
	}
	n := w.doc.Nodes[ni]
	m := mul4(parent, localMatrix(n))
	if n.Mesh != nil {
		if *n.Mesh < 0 || *n.Mesh >= len(w.doc.Meshes) {
			return fmt.Errorf("%w: bad mesh index", ErrRemoteInvalidModel)
		}
		size := 0
		for _, p := range w.doc.Meshes[*n.Mesh].Primitives {
			ai, ok := p.Attributes[gltf.POSITION]
			if !ok || ai < 0 || ai >= len(w.doc.Accessors) {
				continue
			}
			if w.acc == nil {
				w.acc = newAccessorCache(w.doc)
			}
			pos, err := w.acc.positions(ai)
			if err != nil {
				return fmt.Errorf("%w: read positions: %w", ErrRemoteInvalidModel, err)
			}
			for _, v := range pos {
				q := apply4(m, v)
				for c := range 3 {
					w.lo[c] = min(w.lo[c], q[c])
					w.hi[c] = max(w.hi[c], q[c])
				}
			}
			w.verts += len(pos)
			size += len(pos)
			if p.Mode == gltf.PrimitiveTriangles {
				if p.Indices != nil && *p.Indices >= 0 && *p.Indices < len(w.doc.Accessors) {
					w.tris += w.doc.Accessors[*p.Indices].Count / 3
				} else {
					w.tris += len(pos) / 3
				}
			}
		}
		if size > w.largestSize {
			w.largestSize, w.largestMesh = size, *n.Mesh
		}
	}
	for _, c := range n.Children {
		if err := w.walk(c, m, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func identity() [16]float64 { return [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

// localMatrix returns a node's column-major local transform.
func localMatrix(n *gltf.Node) [16]float64 {
	if n.Matrix != [16]float64{} && n.Matrix != identity() {
		return n.Matrix
	}
	t := n.TranslationOrDefault()
	q := n.RotationOrDefault()
	s := n.ScaleOrDefault()
	x, y, z, w := q[0], q[1], q[2], q[3]
	r := [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w),
		2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w),
		2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y),
	}
	return [16]float64{
		r[0] * s[0], r[1] * s[0], r[2] * s[0], 0,
		r[3] * s[1], r[4] * s[1], r[5] * s[1], 0,
		r[6] * s[2], r[7] * s[2], r[8] * s[2], 0,
		t[0], t[1], t[2], 1,
	}
}

func mul4(a, b [16]float64) [16]float64 {
	var out [16]float64
	for c := range 4 {
		for r := range 4 {
			s := 0.0
			for k := range 4 {
				s += a[k*4+r] * b[c*4+k]
			}
			out[c*4+r] = s
		}
	}
	return out
}

func apply4(m [16]float64, v [3]float32) [3]float64 {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	return [3]float64{
		m[0]*x + m[4]*y + m[8]*z + m[12],
		m[1]*x + m[5]*y + m[9]*z + m[13],
		m[2]*x + m[6]*y + m[10]*z + m[14],
	}
}

// addRemoteExtras gives the remote model the builtin's variants and Explode animation
// so the configurator and viewer behave identically for both reconstructors.
func addRemoteExtras(doc *gltf.Document, bodyNode, mainMesh int) error {
	if len(doc.Buffers) == 0 {
		doc.Buffers = []*gltf.Buffer{{}}
	}
	if doc.Buffers[0].URI != "" {
		return fmt.Errorf("%w: first buffer is not the GLB binary chunk", ErrRemoteInvalidModel)
	}
	appendView := func(data []byte) int { return appendBufferView(doc, data) }
	// Explode: one part, so it stays in place; the animation exists so viewers can
	// rely on it for every model.
	tv := appendView(glbwrite.Float32s([]float32{0, explodeSeconds}))
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(tv), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: 2, Min: []float64{0}, Max: []float64{explodeSeconds}})
	tin := len(doc.Accessors) - 1
	ov := appendView(glbwrite.Float32s(make([]float32, 6)))
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(ov), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 2})
	tout := len(doc.Accessors) - 1
	doc.Animations = append(doc.Animations, &gltf.Animation{
		Name:     ExplodeAnimation,
		Samplers: []*gltf.AnimationSampler{{Input: tin, Output: tout, Interpolation: gltf.InterpolationLinear}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(bodyNode), Path: gltf.TRSTranslation}}},
	})
	for _, e := range doc.ExtensionsUsed {
		if e == extVariants {
			return nil // the server already defines variants: keep them
		}
	}
	if mainMesh < 0 || mainMesh >= len(doc.Meshes) {
		return nil
	}
	var variantMat []int
	for i, look := range variantLooks() {
		c := look.color
		doc.Materials = append(doc.Materials, &gltf.Material{
			Name: variantNames[i+1],
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &c, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(look.roughness),
			},
		})
		variantMat = append(variantMat, len(doc.Materials)-1)
	}
	for _, prim := range doc.Meshes[mainMesh].Primitives {
		if prim.Material == nil {
			doc.Materials = append(doc.Materials, &gltf.Material{Name: "Original"})
			prim.Material = gltf.Index(len(doc.Materials) - 1)
		}
		mappings := []map[string]any{{"material": *prim.Material, "variants": []int{0}}}
		for vi, mat := range variantMat {
			mappings = append(mappings, map[string]any{"material": mat, "variants": []int{vi + 1}})
		}
		if prim.Extensions == nil {
			prim.Extensions = gltf.Extensions{}
		}
		prim.Extensions[extVariants] = map[string]any{"mappings": mappings}
	}
	addVariantsExtension(doc)
	return nil
}
