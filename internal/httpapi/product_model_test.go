package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

type photoProductReply struct {
	productReply
	Source     string `json:"source"`
	PhotoURL   string `json:"photoUrl"`
	JobID      string `json:"jobId"`
	CleanEdges bool   `json:"cleanEdges"`
	KeepShadow bool   `json:"keepShadow"`
	Progress   int    `json:"progress"`
	Stage      string `json:"stage"`
}

type checksReply struct {
	Items []struct {
		Key    string `json:"key"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"items"`
}

// realGLB is a model the built-in reconstructor made from a photo: what a
// merchant exporting from another tool would upload. Its .gltf form splits
// the binary chunk out as a sibling .bin file named bin.
func realGLB(t *testing.T) (glb, gltfJSON, bin []byte) {
	t.Helper()
	res, err := reconstruct.NewBuiltin().Reconstruct(context.Background(), jobtest.PNG(t, 160, 120), reconstruct.Options{}, nil)
	require.NoError(t, err)
	glb = res.GLB
	n := binary.LittleEndian.Uint32(glb[12:16])
	var doc map[string]any
	require.NoError(t, json.Unmarshal(glb[20:20+n], &doc))
	rest := glb[20+n:]
	bin = rest[8 : 8+binary.LittleEndian.Uint32(rest[0:4])]
	bufs := doc["buffers"].([]any)
	bufs[0].(map[string]any)["uri"] = "model.bin"
	gltfJSON, err = json.Marshal(doc)
	require.NoError(t, err)
	return glb, gltfJSON, bin
}

func modelForm(t *testing.T, files map[string][]byte) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for name, data := range files {
		fw, err := mw.CreateFormFile("file", name)
		require.NoError(t, err)
		_, err = fw.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return body.Bytes(), mw.FormDataContentType()
}

func (s creationStack) storedModels(t *testing.T, user string) int {
	t.Helper()
	it := s.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: "models/" + user + "/products/"})
	n := 0
	for {
		if _, err := it.Next(context.Background()); err != nil {
			return n
		}
		n++
	}
}

// TestPhotoProductOwnModelAndChecksOverHTTP: a draft from a photo, its own
// model uploaded (GLB, then .gltf + .bin), hostile and broken files refused
// with nothing stored, and the preview checks against the real mesh.
func TestPhotoProductOwnModelAndChecksOverHTTP(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	s.env.Uploads.WithRiver(s.env.River)
	user, stranger := s.env.User(t), s.env.User(t)
	startTrialFor(t, s, user)
	photo := s.uploadID(t, user, jobtest.PNG(t, 320, 240))

	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Desk lamp", "uploadId": photo})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	draft := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "draft", draft.Status)
	require.Equal(t, "Draft", draft.StatusLabel)
	require.Equal(t, "photo", draft.Source)
	require.NotEmpty(t, draft.PhotoURL)
	require.Empty(t, draft.ModelURL)
	require.Empty(t, draft.JobID)
	require.Empty(t, draft.Stage)
	rec, _ = s.call(t, "", "GET", draft.PhotoURL, "", nil)
	require.Equal(t, http.StatusOK, rec.Code, "the original photo is served")
	rec, r = s.json(t, user, "GET", "/api/products?status=draft", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	drafts := decodeAs[listPage[productView]](t, r.Data)
	require.Equal(t, 1, drafts.Total)
	// The draft's card shows its photo (issue 29 item 4).
	rec, _ = s.call(t, "", "GET", drafts.Items[0].ThumbnailURL, "", nil)
	require.Equal(t, http.StatusOK, rec.Code, "the draft's card shows its photo")

	// Generate with Clean edges builds from that cutout, so the cutout must exist.
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Vase", "uploadId": photo, "generate": true, "cleanEdges": true})
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "cutout_not_ready", r.Error.Code)
	startCutoutWorker(t, s.env)
	cut := s.postCutout(t, user, photo, true, false)
	rec, r = s.json(t, user, "POST", "/api/products", map[string]any{"name": "Vase", "uploadId": photo, "generate": true, "cleanEdges": true})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	gen := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "processing", gen.Status)
	require.Equal(t, "Queued", gen.Stage)
	require.True(t, gen.CleanEdges)
	j, err := s.env.Jobs.Get(context.Background(), user, gen.JobID)
	require.NoError(t, err)
	require.Contains(t, j.ImageKey, "/e1s0.png", "the build's photo is the chosen cutout")
	require.NotEmpty(t, cut.URL)
	// The real reconstructor builds it from the cutout; the product follows.
	s.env.StartWorker(t, reconstruct.NewBuiltin())
	deadline := time.Now().Add(5 * time.Minute) // a hung-build guard, not a speed assertion
	for gen.Status == "processing" {
		require.True(t, time.Now().Before(deadline), "build stuck at %s %d%%", gen.Stage, gen.Progress)
		time.Sleep(50 * time.Millisecond)
		rec, r = s.json(t, user, "GET", "/api/products/"+gen.ID, nil)
		gen = decodeAs[photoProductReply](t, r.Data)
	}
	require.Equal(t, "ready", gen.Status, gen.FailureReason)
	require.Equal(t, 100, gen.Progress)
	require.Equal(t, "Ready", gen.Stage)
	require.NotEmpty(t, gen.ModelURL)

	// Own model: a GLB makes the draft ready (prepared by the worker).
	startModelWorker(t, s.env, s.env.Store)
	glb, gltfJSON, bin := realGLB(t)
	path := "/api/products/" + draft.ID + "/model"
	body, ct := modelForm(t, map[string][]byte{"lamp.glb": glb})
	rec, _ = s.call(t, stranger, "POST", path, ct, body)
	require.Equal(t, http.StatusNotFound, rec.Code, "someone else's product")
	require.Zero(t, s.storedModels(t, user))
	rec, r = s.call(t, user, "POST", path, ct, body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	own := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "ready", own.Status)
	require.Equal(t, "upload", own.Source)
	require.NotEmpty(t, own.ModelURL)
	require.NotEmpty(t, own.ThumbnailURL)
	require.Equal(t, "model_uploaded", own.Timeline[len(own.Timeline)-1].Kind)
	rec, _ = s.call(t, "", "GET", own.ModelURL, "", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	stored := rec.Body.Bytes()
	require.Equal(t, "glTF", string(stored[:4]))
	require.Equal(t, 2, s.storedModels(t, user), "model and thumbnail")

	// Refusals: 400 with a clear message, nothing stored, the product unchanged.
	for _, c := range []struct {
		files map[string][]byte
		code  string
	}{
		{map[string][]byte{"lamp.glb": []byte("glTF but not really a model")}, "model_corrupt"},
		{map[string][]byte{"lamp.gltf": gltfJSON}, "model_missing_file"},
		{map[string][]byte{"lamp.gltf": bytes.Replace(gltfJSON, []byte(`"model.bin"`), []byte(`"../../etc/model.bin"`), 1), "model.bin": bin}, "model_bad_uri"},
		{map[string][]byte{"lamp.gltf": bytes.Replace(gltfJSON, []byte(`"model.bin"`), []byte(`"https://evil.example/model.bin"`), 1)}, "model_external_uri"},
		{map[string][]byte{"notes.txt": []byte("hello")}, "model_files"},
		{map[string][]byte{"big.glb": make([]byte, reconstruct.MaxModelUploadBytes+10)}, "model_too_large"},
	} {
		body, ct := modelForm(t, c.files)
		rec, r = s.call(t, user, "POST", path, ct, body)
		require.Equal(t, http.StatusBadRequest, rec.Code, c.code)
		require.Equal(t, c.code, r.Error.Code)
		require.NotEmpty(t, r.Error.Message)
		require.Equal(t, 2, s.storedModels(t, user), c.code)
	}
	rec, _ = s.call(t, user, "POST", path, "application/json", []byte(`{}`))
	require.Equal(t, http.StatusBadRequest, rec.Code)
	rec, r = s.json(t, user, "GET", "/api/products/"+draft.ID, nil)
	require.Equal(t, own.ModelURL, decodeAs[photoProductReply](t, r.Data).ModelURL)

	// .gltf + .bin: packed into one GLB.
	body, ct = modelForm(t, map[string][]byte{"lamp.gltf": gltfJSON, "model.bin": bin})
	rec, r = s.call(t, user, "POST", path, ct, body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "ready", decodeAs[photoProductReply](t, r.Data).Status)

	// Checks against the real mesh: a hotspot on a vertex passes, one in the air fails.
	checks := func() map[string]bool {
		rec, r := s.json(t, user, "GET", "/api/products/"+draft.ID+"/checks", nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		out := map[string]bool{}
		for _, it := range decodeAs[checksReply](t, r.Data).Items {
			require.NotEmpty(t, it.Detail)
			out[it.Key] = it.OK
		}
		return out
	}
	require.Equal(t, map[string]bool{"variants": true, "hotspots": true, "links": false, "camera": true}, checks())
	rec, r = s.json(t, user, "GET", "/api/products/"+draft.ID, nil)
	rec, _ = s.call(t, "", "GET", decodeAs[photoProductReply](t, r.Data).ModelURL, "", nil)
	tris, err := reconstruct.ModelTriangles(rec.Body.Bytes())
	require.NoError(t, err)
	v := tris[len(tris)/2][0]
	rec, _ = s.json(t, user, "POST", "/api/products/"+draft.ID+"/hotspots", map[string]any{"position": v, "normal": []float64{0, 0, 1}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	rec, _ = s.json(t, user, "POST", "/api/products/"+draft.ID+"/links", map[string]any{"url": "amazon.in/dp/B0TEST"})
	require.Equal(t, http.StatusCreated, rec.Code)
	require.Equal(t, map[string]bool{"variants": true, "hotspots": true, "links": true, "camera": true}, checks())
	rec, _ = s.json(t, user, "POST", "/api/products/"+draft.ID+"/hotspots", map[string]any{"position": []float64{v[0], v[1] + 1, v[2]}, "normal": []float64{0, 1, 0}, "title": "Floating"})
	require.Equal(t, http.StatusCreated, rec.Code)
	rec, r = s.json(t, user, "GET", "/api/products/"+draft.ID+"/checks", nil)
	require.Contains(t, string(r.Data), "Floating is")
	require.False(t, checks()["hotspots"])

	rec, _ = s.json(t, stranger, "GET", "/api/products/"+draft.ID+"/checks", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.False(t, strings.Contains(rec.Body.String(), "Floating"))
}
