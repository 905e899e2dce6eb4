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
// gets a fidelity score from the returned mesh and the photo (fidelity/remote_fidelity.go),
// held to the builtin's rule that a hidden side the photo does not evidence is a
// guess (below the warning threshold), or a warning saying why it has none.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/qmuntal/gltf"

	"github.com/photo3d/photo3d/internal/glbwrite"
	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
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
	p, err := segment.DecodePhoto(ctx, data, opts.WorkingSize)
	if err != nil {
		return nil, err
	}
	seg, err := segment.Segment(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("segment photo: %w", err)
	}
	// Advisory only (see the file comment): the server separates the product
	// itself, so the built-in segmenter's doubt must not veto it.
	var warnings []string
	if !segment.SubjectSeparated(seg) {
		warnings = append(warnings, segment.ErrSubjectNotSeparated.Error())
	} else if w := remoteCutOffWarning(seg); w != "" {
		warnings = append(warnings, w)
	}
	upright, err := encodePNG(p.Img)
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
	cr, cg, cb := pm.Parts[0].MeanRGB()
	res.Parts = []Part{{ID: "part-1", Name: "Body", Color: segment.HexColor(cr, cg, cb), Share: 1}}
	tm.done(StageFinalize)
	res.Stats = Stats{
		ShapeKind: shape.KindRemote, Triangles: tris, Vertices: verts, Parts: 1, Bytes: len(glb),
		StepMillis: tm.marks, TotalMillis: tm.total(), Reconstructor: "remote", Version: Version,
		InputSHA256: fmt.Sprintf("%x", sha256.Sum256(data)),
	}
	if score, err := fidelity.RemoteFidelity(ctx, glb, seg, p); err == nil {
		res.Stats.Fidelity = &score
	} else {
		// No score rather than a made-up one; the merchant sees none.
		res.Warnings = append(res.Warnings, "No mesh fidelity score: "+err.Error()+".")
	}
	pr.report(StepFinalizing, 100)
	return res, nil
}

// singlePart labels the whole object as one part (the remote model has one mesh).
func singlePart(seg *segment.Segmentation) *segment.PartMap {
	pm := &segment.PartMap{W: seg.Sw, H: seg.Sh, Labels: make([]int8, len(seg.Smask))}
	for i, in := range seg.Smask {
		pm.Labels[i] = -1
		if in {
			pm.Labels[i] = 0
		}
	}
	pm.Parts = segment.PartStats(pm.Labels, 1, seg.Sw, seg.Sh, seg)
	pm.Parts[0].Name = "Body"
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
	tv := appendView(glbwrite.Float32s([]float32{0, glbio.ExplodeSeconds}))
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(tv), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: 2, Min: []float64{0}, Max: []float64{glbio.ExplodeSeconds}})
	tin := len(doc.Accessors) - 1
	ov := appendView(glbwrite.Float32s(make([]float32, 6)))
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(ov), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 2})
	tout := len(doc.Accessors) - 1
	doc.Animations = append(doc.Animations, &gltf.Animation{
		Name:     glbio.ExplodeAnimation,
		Samplers: []*gltf.AnimationSampler{{Input: tin, Output: tout, Interpolation: gltf.InterpolationLinear}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(bodyNode), Path: gltf.TRSTranslation}}},
	})
	for _, e := range doc.ExtensionsUsed {
		if e == glbio.ExtVariants {
			return nil // the server already defines variants: keep them
		}
	}
	if mainMesh < 0 || mainMesh >= len(doc.Meshes) {
		return nil
	}
	var variantMat []int
	for i, look := range glbio.VariantLooks() {
		c := look.Color
		doc.Materials = append(doc.Materials, &gltf.Material{
			Name: glbio.VariantNames[i+1],
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &c, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(look.Roughness),
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
		prim.Extensions[glbio.ExtVariants] = map[string]any{"mappings": mappings}
	}
	glbio.AddVariantsExtension(doc)
	return nil
}
