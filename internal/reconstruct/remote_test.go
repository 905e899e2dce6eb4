package reconstruct

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/reconstruct/fidelity"
	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/photo3d/photo3d/internal/reconstruct/segment"
	"github.com/photo3d/photo3d/internal/reconstruct/shape"
)

// foreignGLB is what an inference server might return: a unit-less box centred on
// the origin, 2 units tall, under a node that moves and scales it, written by another
// tool (qmuntal's modeler), as trimesh would.
func foreignGLB(t testing.TB) []byte {
	t.Helper()
	doc := gltf.NewDocument()
	doc.Asset.Generator = "trimesh"
	p := [][3]float32{
		{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
		{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1},
	}
	idx := []uint16{
		0, 2, 1, 0, 3, 2, // back (−z)
		4, 5, 6, 4, 6, 7, // front (+z)
		0, 1, 5, 0, 5, 4, // bottom
		3, 7, 6, 3, 6, 2, // top
		0, 4, 7, 0, 7, 3, // left
		1, 2, 6, 1, 6, 5, // right
	}
	pos := modeler.WritePosition(doc, p)
	ind := modeler.WriteIndices(doc, idx)
	doc.Materials = []*gltf.Material{{Name: "baked", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{0.8, 0.3, 0.2, 1}}}}
	doc.Meshes = []*gltf.Mesh{{Name: "geometry_0", Primitives: []*gltf.Primitive{{
		Indices: gltf.Index(ind), Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Material: gltf.Index(0),
	}}}}
	doc.Nodes = []*gltf.Node{{Name: "world", Children: []int{1}, Translation: [3]float64{5, 3, -2}}, {Name: "geometry_0", Mesh: gltf.Index(0), Scale: [3]float64{0.5, 1.5, 0.5}}}
	doc.Scenes[0].Nodes = []int{0}
	return encodeGLBDoc(t, doc)
}

// encodeGLBDoc writes doc as a GLB, as another tool would hand it over.
func encodeGLBDoc(tb testing.TB, doc *gltf.Document) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = true
	require.NoError(tb, enc.Encode(doc))
	return buf.Bytes()
}

// fakeServer speaks the Hunyuan3D-2 api_server.py protocol; behave decides each reply.
func fakeServer(t *testing.T, behave func(n int32, w http.ResponseWriter, req generateRequest)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/generate" {
			http.NotFound(w, r)
			return
		}
		var req generateRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", http.StatusUnprocessableEntity)
			return
		}
		img, err := base64.StdEncoding.DecodeString(req.Image)
		if err != nil {
			http.Error(w, "bad base64", http.StatusUnprocessableEntity)
			return
		}
		if _, _, err := image.DecodeConfig(bytes.NewReader(img)); err != nil {
			http.Error(w, "bad image", http.StatusUnprocessableEntity)
			return
		}
		behave(calls.Add(1), w, req)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func remoteFor(srv *httptest.Server) Reconstructor {
	return NewRemote(RemoteConfig{URL: srv.URL + "/", Timeout: 5 * time.Second, Retries: 2, Backoff: time.Millisecond, MaxResponseBytes: 1 << 20})
}

func TestRemoteNormalisesServerModel(t *testing.T) {
	t.Parallel()
	model := foreignGLB(t)
	srv, calls := fakeServer(t, func(n int32, w http.ResponseWriter, req generateRequest) {
		if n == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if n == 2 {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"text":"**NETWORK ERROR DUE TO HIGH TRAFFIC.**","error_code":1}`)
			return
		}
		require.True(t, req.Texture)
		require.Equal(t, "glb", req.Type)
		w.Header().Set("Content-Type", "model/gltf-binary")
		_, _ = w.Write(model)
	})
	var pl progressLog
	res, err := remoteFor(srv).Reconstruct(context.Background(), encodePNGBytes(t, bottleScene(300, 300, solid(250, 250, 250), false).render()), Options{HeightMetres: 0.5}, pl.fn)
	require.NoError(t, err)
	require.EqualValues(t, 3, calls.Load(), "503 and the error_code reply are retried")
	pl.check(t)
	require.Equal(t, shape.KindRemote, res.Stats.ShapeKind)
	require.Equal(t, 12, res.Stats.Triangles)
	require.Equal(t, "remote", res.Stats.Reconstructor)
	require.Len(t, res.Parts, 1)
	require.NotEmpty(t, res.Thumbnail)
	require.NotEmpty(t, res.Mask)

	g := requireProductGLB(t, res.GLB, 0.5, "Photo3D remote "+Version+" (trimesh)")
	requireClosedMeshes(t, g)
	// World bounds through the node hierarchy: height 0.5 m, base at y=0, centred.
	w := &boundsWalker{doc: g.doc, lo: [3]float64{1e9, 1e9, 1e9}, hi: [3]float64{-1e9, -1e9, -1e9}}
	for _, n := range g.doc.Scenes[*g.doc.Scene].Nodes {
		require.NoError(t, w.walk(n, glbio.Identity(), 0))
	}
	require.InDelta(t, 0.5, w.hi[1]-w.lo[1], 1e-6)
	require.InDelta(t, 0, w.lo[1], 1e-6)
	require.InDelta(t, 0, (w.lo[0]+w.hi[0])/2, 1e-6)
	require.InDelta(t, 0, (w.lo[2]+w.hi[2])/2, 1e-6)
	// The box was 2 tall × 1 wide after its node's scale: proportions are kept.
	require.InDelta(t, 0.5/3, w.hi[0]-w.lo[0], 1e-6)
}

func TestRemoteFailures(t *testing.T) {
	t.Parallel()
	photo := encodePNGBytes(t, blobScene(200, 160, solid(40, 70, 200)).render())
	tests := []struct {
		name   string
		behave func(n int32, w http.ResponseWriter, req generateRequest)
		err    error
		calls  int32
	}{
		{"always 5xx", func(int32, http.ResponseWriter, generateRequest) {}, ErrRemoteUnavailable, 3},
		{"oversize response", func(_ int32, w http.ResponseWriter, _ generateRequest) {
			_, _ = w.Write(append([]byte("glTF"), make([]byte, 2<<20)...))
		}, ErrRemoteTooLarge, 1},
		{"garbage response", func(_ int32, w http.ResponseWriter, _ generateRequest) {
			_, _ = io.WriteString(w, "<html>oops</html>")
		}, ErrRemoteInvalidModel, 1},
		{"glb version 1", func(_ int32, w http.ResponseWriter, _ generateRequest) {
			b := foreignGLB(t)
			b[4] = 1
			_, _ = w.Write(b)
		}, ErrRemoteInvalidModel, 1},
		{"truncated glb", func(_ int32, w http.ResponseWriter, _ generateRequest) {
			b := foreignGLB(t)
			_, _ = w.Write(b[:len(b)-20])
		}, ErrRemoteInvalidModel, 1},
		{"bad request is final", func(_ int32, w http.ResponseWriter, _ generateRequest) {
			http.Error(w, "no", http.StatusBadRequest)
		}, ErrRemoteRejected, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			behave := tc.behave
			if tc.name == "always 5xx" {
				behave = func(_ int32, w http.ResponseWriter, _ generateRequest) {
					http.Error(w, "boom", http.StatusInternalServerError)
				}
			}
			srv, calls := fakeServer(t, behave)
			_, err := remoteFor(srv).Reconstruct(context.Background(), photo, Options{}, nil)
			require.ErrorIs(t, err, tc.err)
			require.Equal(t, tc.calls, calls.Load())
		})
	}
}

func TestRemoteNetworkErrorAndCancellation(t *testing.T) {
	t.Parallel()
	photo := encodePNGBytes(t, blobScene(200, 160, solid(40, 70, 200)).render())
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more: every attempt is a network error
	r := NewRemote(RemoteConfig{URL: url, Retries: 1, Backoff: time.Millisecond})
	_, err := r.Reconstruct(context.Background(), photo, Options{}, nil)
	require.ErrorIs(t, err, ErrRemoteUnavailable)

	block := make(chan struct{})
	slow, _ := fakeServer(t, func(int32, http.ResponseWriter, generateRequest) { <-block })
	defer close(block)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = remoteFor(slow).Reconstruct(ctx, photo, Options{}, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 3*time.Second)

	_, err = remoteFor(slow).Reconstruct(context.Background(), []byte("not an image"), Options{}, nil)
	require.ErrorIs(t, err, imagecheck.ErrInvalidType)
}

func TestNormaliseRejectsModelsWithoutGeometry(t *testing.T) {
	t.Parallel()
	doc := gltf.NewDocument()
	doc.Nodes = []*gltf.Node{{Name: "empty"}}
	doc.Scenes[0].Nodes = []int{0}
	_, _, _, err := normaliseGLB(encodeGLBDoc(t, doc), 0.3)
	require.ErrorIs(t, err, ErrRemoteInvalidModel)
}

// A photo the built-in segmenter cannot cut out (the subject runs off three sides
// on a busy backdrop) is refused by the builtin under StrictSubject, but not by the
// remote: the inference server removes the background itself, so the built-in
// check is advisory there. The server is asked, the model comes back normalised,
// and the doubt is reported as a warning.
func TestRemoteIsNotVetoedByTheBuiltinSubjectCheck(t *testing.T) {
	t.Parallel()
	data := inseparablePhoto(t)
	model := foreignGLB(t)
	srv, calls := fakeServer(t, func(_ int32, w http.ResponseWriter, _ generateRequest) { _, _ = w.Write(model) })

	_, err := NewBuiltin().Reconstruct(context.Background(), data, Options{StrictSubject: true}, nil)
	require.ErrorIs(t, err, segment.ErrSubjectNotSeparated, "the builtin path keeps its strict check")

	for i, opts := range []Options{{StrictSubject: true}, {}} {
		res, err := remoteFor(srv).Reconstruct(context.Background(), data, opts, nil)
		require.NoError(t, err, "strict=%v", opts.StrictSubject)
		require.Contains(t, res.Warnings, segment.ErrSubjectNotSeparated.Error())
		require.EqualValues(t, i+1, calls.Load(), "the GPU server is asked")
		requireProductGLB(t, res.GLB, DefaultHeightMetres, "")
	}
}

// A photo that cuts the product off at its top is sent to the server like any
// other, and the model comes back with a warning that the part outside the
// photo is the server's guess; a whole product comes back without one.
func TestRemoteWarnsOfAProductThePhotoCutsOff(t *testing.T) {
	t.Parallel()
	whole := twoToneBottle(320, 320).render()
	model := foreignGLB(t)
	srv, calls := fakeServer(t, func(_ int32, w http.ResponseWriter, _ generateRequest) { _, _ = w.Write(model) })
	res, err := remoteFor(srv).Reconstruct(context.Background(), encodePNGBytes(t, crop(whole, image.Rect(0, 60, 320, 320))), Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"The product runs off the top edge of the photo, so the part outside the photo is guessed. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."}, res.Warnings)
	require.EqualValues(t, 1, calls.Load())
	res, err = remoteFor(srv).Reconstruct(context.Background(), encodePNGBytes(t, whole), Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.NotContains(t, strings.Join(res.Warnings, " "), "runs off")
}

// The remote model gets the builtin's fidelity score, computed from the GLB
// it returned and the photo: a server that returns the right model (here the
// builtin's own model of the photo) scores like the builtin, above the
// warning threshold; one that returns a wrong shape scores under it.
func TestRemoteScoresFidelityFromTheReturnedModel(t *testing.T) {
	t.Parallel()
	photo := encodePNGBytes(t, twoToneBottle(320, 320).render())
	own, err := NewBuiltin().Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.NotNil(t, own.Stats.Fidelity)

	right, _ := fakeServer(t, func(_ int32, w http.ResponseWriter, _ generateRequest) { _, _ = w.Write(own.GLB) })
	res, err := remoteFor(right).Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Stats.Fidelity, "warnings: %v", res.Warnings)
	t.Logf("builtin %d, remote serving the builtin's model %d", *own.Stats.Fidelity, *res.Stats.Fidelity)
	require.GreaterOrEqual(t, *res.Stats.Fidelity, fidelity.WarnBelow)
	require.InDelta(t, *own.Stats.Fidelity, *res.Stats.Fidelity, 10)

	box := foreignGLB(t) // a red box, twice as tall as wide, for a two-tone bottle
	wrong, _ := fakeServer(t, func(_ int32, w http.ResponseWriter, _ generateRequest) { _, _ = w.Write(box) })
	res, err = remoteFor(wrong).Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Stats.Fidelity)
	t.Logf("remote serving a box: %d", *res.Stats.Fidelity)
	require.Less(t, *res.Stats.Fidelity, fidelity.WarnBelow)
}

// A footprint is round when seen from above it fills the ellipse of its box: a
// turned vase's does, the square prism that a model extruding the outline would
// make does not (π/4).
func TestFootprintRoundness(t *testing.T) {
	t.Parallel()
	const segs = 48
	var disc, square []glbio.ModelTri
	for k := range segs {
		a0, a1 := 2*math.Pi*float64(k)/segs, 2*math.Pi*float64(k+1)/segs
		disc = append(disc, glbio.ModelTri{V: [3][3]float64{{0, 1, 0}, {2 * math.Cos(a0), 1, math.Sin(a0)}, {2 * math.Cos(a1), 1, math.Sin(a1)}}})
	}
	square = append(square,
		glbio.ModelTri{V: [3][3]float64{{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}}},
		glbio.ModelTri{V: [3][3]float64{{-1, 0, -1}, {1, 0, 1}, {-1, 0, 1}}},
		glbio.ModelTri{V: [3][3]float64{{-1, 2, -1}, {1, 2, 1}, {1, 2, -1}}},
	)
	require.Greater(t, fidelity.FootprintRoundness(disc), 0.95, "an elliptic footprint")
	require.InDelta(t, math.Pi/4, fidelity.FootprintRoundness(square), 0.03)
	require.Less(t, fidelity.FootprintRoundness(square), fidelity.RemoteRoundFootprint)
	require.Zero(t, fidelity.FootprintRoundness(nil))
}

// Where the photo shows a box's side and top, its depth is evidenced, so a remote
// model may claim it if it is that box. Served the drawn box itself (coloured from
// the photo, as a server textures its mesh), it scores within 10 of the builtin's
// own box, and above the warning threshold wherever the builtin does. Served the
// prism a model that only extruded the outline would make (as deep as the outline
// is wide, square from above), it scores under the box, and under the threshold
// where the prism's F@5 is under 0.5.
func TestRemoteBoxFidelityNeedsTheBoxThePhotoShows(t *testing.T) {
	t.Parallel()
	var reply []byte
	srv, _ := fakeServer(t, func(_ int32, w http.ResponseWriter, _ generateRequest) { _, _ = w.Write(reply) })
	rec := NewRemote(RemoteConfig{URL: srv.URL, Timeout: 10 * time.Second, Retries: -1})
	for i := range 4 {
		s := makeScene("box", i, 480, 360)
		photo := s.photo(rand.New(rand.NewPCG(uint64(i), 5)))
		own, err := NewBuiltin().Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
		require.NoError(t, err)
		require.NotNil(t, own.Stats.Fidelity)
		reply = trisGLB(t, photoColoured(t, subdivided(s.tris, 4), photo, s.cam))
		res, err := rec.Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
		require.NoError(t, err)
		require.NotNil(t, res.Stats.Fidelity, "%s: %v", s.name, res.Warnings)
		box := *res.Stats.Fidelity

		mask := silhouette(s.tris, s.cam)
		prism := silhouetteSlab(mask, s.cam, func(w float64) float64 { return w })
		prismF5 := scoreShape(s.tris, prism).F5
		reply = trisGLB(t, photoColoured(t, prism, photo, s.cam))
		res, err = rec.Reconstruct(context.Background(), photo, Options{StrictSubject: true}, nil)
		require.NoError(t, err)
		require.NotNil(t, res.Stats.Fidelity, "%s: %v", s.name, res.Warnings)
		t.Logf("%s: builtin (%s) %d; remote serving the box %d, the prism (F@5 %.2f) %d", s.name, own.Stats.ShapeKind, *own.Stats.Fidelity, box, prismF5, *res.Stats.Fidelity)
		require.InDelta(t, *own.Stats.Fidelity, box, 10, s.name)
		if *own.Stats.Fidelity >= fidelity.WarnBelow {
			require.GreaterOrEqual(t, box, fidelity.WarnBelow, s.name)
		}
		require.Less(t, *res.Stats.Fidelity, box, "%s: the prism scores under the box itself", s.name)
		if prismF5 < 0.5 {
			require.Less(t, *res.Stats.Fidelity, fidelity.WarnBelow, "%s: a prism at F@5 %.2f is flagged", s.name, prismF5)
		}
	}
}

// subdivided splits every triangle into four, levels times, so a mesh coloured per
// triangle from a photo follows its shading.
func subdivided(tris []qtri, levels int) []qtri {
	for range levels {
		out := make([]qtri, 0, 4*len(tris))
		for _, t := range tris {
			a, b, c := t.p[0], t.p[1], t.p[2]
			ab, bc, ca := vmul(vadd(a, b), 0.5), vmul(vadd(b, c), 0.5), vmul(vadd(c, a), 0.5)
			out = append(out, qtri{p: [3]v3{a, ab, ca}, col: t.col}, qtri{p: [3]v3{ab, b, bc}, col: t.col},
				qtri{p: [3]v3{ca, bc, c}, col: t.col}, qtri{p: [3]v3{ab, bc, ca}, col: t.col})
		}
		tris = out
	}
	return tris
}
