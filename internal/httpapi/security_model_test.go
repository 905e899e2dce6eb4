package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/upload"
)

// startModelWorker runs the model queue like cmd/worker does (own queue,
// catalog.ModelWorkers slots; model preparations and channel files) until
// the test ends. store must run the
// catalogue projection inline, as the worker's does.
func startModelWorker(t testing.TB, env *jobtest.Env, store *eventstore.Store) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &catalog.PrepareModelWorker{DB: env.DB.Pool, Store: store, Blobs: env.Blobs, Logger: env.Logger})
	river.AddWorker(workers, &publish.ChannelFilesWorker{DB: env.DB.Pool, Packager: channels.NewPackager(env.Blobs.Bucket), Logger: env.Logger})
	rc, err := river.NewClient(riverpgxv5.New(env.DB.Pool), &river.Config{
		Logger: env.Logger, Queues: map[string]river.QueueConfig{catalog.QueueModel: {MaxWorkers: catalog.ModelWorkers}},
		Workers: workers, FetchCooldown: 50 * time.Millisecond, TestOnly: true,
	})
	require.NoError(t, err)
	require.NoError(t, rc.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx)
	})
	return rc
}

// modelStack is the catalogue stack with its catalogue service at hand and
// the daily upload quota of every user set to quota (photos and models).
type modelStack struct {
	creationStack
	svc *catalog.Service
}

func newModelStack(t *testing.T, quota upload.Quota) modelStack {
	t.Helper()
	env := jobtest.New(t, creationBase)
	quotaOf := func(context.Context, string) (upload.Quota, error) { return quota, nil }
	env.Uploads.WithQuota(quotaOf)
	svc := catalog.NewService(env.DB.Pool, env.Store, env.Jobs, catalog.SubscriptionPlans{Subscriptions: env.Subs}).
		WithModels(env.Blobs, 0).WithRiver(env.River).WithQuota(quotaOf)
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: env.DB.Pool,
		Tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL), MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Subscriptions: env.Subs, Catalog: svc})
	return modelStack{creationStack{env: env, h: h, tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), creationBase)}, svc}
}

// user is a merchant on trial (Pro).
func (s modelStack) user(t *testing.T) string {
	t.Helper()
	u := s.env.User(t)
	startTrialFor(t, s.creationStack, u)
	return u
}

// draft makes a product (a draft from a photo) for user.
func (s modelStack) draft(t *testing.T, user string) string {
	t.Helper()
	photo := s.uploadID(t, user, jobtest.PNG(t, 64, 48))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Lamp", "uploadId": photo})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	return decodeAs[photoProductReply](t, r.Data).ID
}

// postModel uploads files as the product's model and follows a 202 until
// the worker has finished: the final status and answer.
func (s modelStack) postModel(t *testing.T, user, productID string, files map[string][]byte) (int, reply) {
	t.Helper()
	body, ct := modelForm(t, files)
	rec, r := s.call(t, user, "POST", "/api/products/"+productID+"/model", ct, body)
	if rec.Code != http.StatusAccepted {
		return rec.Code, r
	}
	sub := decodeAs[modelSubmissionReply](t, r.Data)
	deadline := time.Now().Add(3 * time.Minute) // a hung-worker guard, not a speed assertion
	for sub.Status == "preparing" {
		require.True(t, time.Now().Before(deadline), "model still preparing")
		time.Sleep(50 * time.Millisecond)
		rec, r = s.json(t, user, "GET", "/api/products/"+productID+"/model/"+sub.ID, nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		sub = decodeAs[modelSubmissionReply](t, r.Data)
	}
	if sub.Status == "failed" {
		return http.StatusBadRequest, reply{Error: &struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}{sub.Error.Code, sub.Error.Message}}
	}
	rec, r = s.json(t, user, "GET", "/api/products/"+productID, nil)
	return rec.Code, r
}

type modelSubmissionReply struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// instancedPoints is the review's attack file (issue 28 item 1): a ~200 KB
// .gltf whose one POINTS mesh of vertices zero-filled vertices (no buffer
// view) is drawn nodes times.
func instancedPoints(t *testing.T, vertices, nodes int) []byte {
	t.Helper()
	children := make([]int, nodes)
	for i := range children {
		children[i] = 1
	}
	out, err := json.Marshal(map[string]any{
		"asset":     map[string]any{"version": "2.0"},
		"accessors": []any{map[string]any{"componentType": 5126, "type": "VEC3", "count": vertices, "min": []int{0, 0, 0}, "max": []int{1, 1, 1}}},
		"meshes":    []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0}, "mode": 0}}}},
		"nodes":     []any{map[string]any{"children": children}, map[string]any{"mesh": 0}},
		"scenes":    []any{map[string]any{"nodes": []int{0}}},
		"scene":     0,
	})
	require.NoError(t, err)
	return out
}

// TestSecurityCraftedModelUploadIsRefused (issue 28 item 1): the review's
// 200 KB .gltf (one 12 M-vertex POINTS mesh drawn by 99,990 nodes) used to
// keep the api busy for hours; now the api only checks the files, stores
// them and queues the preparation (without a worker the answer is 202 and
// the product is untouched), and the worker refuses the model from its
// declared cost with a clear message, keeping nothing.
func TestSecurityCraftedModelUploadIsRefused(t *testing.T) {
	t.Parallel()
	s := newModelStack(t, upload.QuotaForPlan("pro"))
	user := s.user(t)
	id := s.draft(t, user)
	attack := instancedPoints(t, 12_000_000, 99_990)
	require.Less(t, len(attack), 250_000)

	body, ct := modelForm(t, map[string][]byte{"points.gltf": attack})
	rec, r := s.call(t, user, "POST", "/api/products/"+id+"/model", ct, body)
	require.Equal(t, http.StatusAccepted, rec.Code, "the api never prepares a model itself: %s", rec.Body.String())
	sub := decodeAs[modelSubmissionReply](t, r.Data)
	require.Equal(t, "preparing", sub.Status)
	rec, r = s.json(t, user, "GET", "/api/products/"+id, nil)
	require.Equal(t, "draft", decodeAs[photoProductReply](t, r.Data).Status)
	stranger := s.env.User(t)
	rec, _ = s.json(t, stranger, "GET", "/api/products/"+id+"/model/"+sub.ID, nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "someone else's submission")

	startModelWorker(t, s.env, s.env.Store)
	for _, c := range []struct {
		vertices, nodes int
		message         string
	}{
		{12_000_000, 99_990, "more than 100 MB once read"},
		{1_000_000, 99_990, "once every copy (instance) of its meshes is counted"},
	} {
		code, r := s.postModel(t, user, id, map[string][]byte{"points.gltf": instancedPoints(t, c.vertices, c.nodes)})
		require.Equal(t, http.StatusBadRequest, code)
		require.Equal(t, "model_too_complex", r.Error.Code)
		require.Contains(t, r.Error.Message, c.message)
	}
	// The first submission, queued before the worker started, is refused too.
	rec, r = s.json(t, user, "GET", "/api/products/"+id+"/model/"+sub.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	for decodeAs[modelSubmissionReply](t, r.Data).Status == "preparing" {
		time.Sleep(50 * time.Millisecond)
		_, r = s.json(t, user, "GET", "/api/products/"+id+"/model/"+sub.ID, nil)
	}
	require.Equal(t, "model_too_complex", decodeAs[modelSubmissionReply](t, r.Data).Error.Code)
	require.Zero(t, s.storedModels(t, user), "nothing kept")
	// The refusal is recorded first and the uploaded files deleted after it
	// (storage_cleanup retries what fails), so the test waits for them to go.
	require.Eventually(t, func() bool { return s.blobsUnder(t, "model-sources/") == 0 }, time.Minute, 20*time.Millisecond,
		"the uploaded files are deleted")
	rec, r = s.json(t, user, "GET", "/api/products/"+id, nil)
	require.Equal(t, "draft", decodeAs[photoProductReply](t, r.Data).Status)
}

func (s creationStack) blobsUnder(t *testing.T, prefix string) int {
	t.Helper()
	it := s.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: prefix})
	n := 0
	for {
		if _, err := it.Next(context.Background()); err != nil {
			return n
		}
		n++
	}
}

// TestSecurityParallelChecksShareOneAnalysis (issue 28 item 1): parallel
// and repeated checks of one model read and walk it once; a changed hotspot
// (a new configuration) is checked again, once.
func TestSecurityParallelChecksShareOneAnalysis(t *testing.T) {
	t.Parallel()
	s := newModelStack(t, upload.QuotaForPlan("pro"))
	startModelWorker(t, s.env, s.env.Store)
	user := s.user(t)
	id := s.draft(t, user)
	glb, _, _ := realGLB(t)
	code, r := s.postModel(t, user, id, map[string][]byte{"lamp.glb": glb})
	require.Equal(t, http.StatusOK, code, "%+v", r.Error)

	answers := make([]string, 8)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			rec, _ := s.json(t, user, "GET", "/api/products/"+id+"/checks", nil)
			answers[i] = fmt.Sprint(rec.Code, rec.Body.String())
		})
	}
	wg.Wait()
	for _, a := range answers {
		require.Equal(t, answers[0], a)
	}
	require.Contains(t, answers[0], "200")
	require.EqualValues(t, 1, s.svc.ModelAnalyses(), "eight parallel checks, one model analysis")
	for range 3 {
		rec, _ := s.json(t, user, "GET", "/api/products/"+id+"/checks", nil)
		require.Equal(t, http.StatusOK, rec.Code)
	}
	require.EqualValues(t, 1, s.svc.ModelAnalyses(), "repeated checks come from the cache")

	rec, _ := s.json(t, user, "POST", "/api/products/"+id+"/hotspots", map[string]any{"position": []float64{0, 5, 0}, "normal": []float64{0, 1, 0}, "title": "Floating"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	rec, r = s.json(t, user, "GET", "/api/products/"+id+"/checks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, string(r.Data), "Floating is", "the new hotspot is checked")
	require.EqualValues(t, 2, s.svc.ModelAnalyses())
}

// distinctModel is the real model as .gltf + .bin with its generator named
// n, so each n packs to a different GLB (a different content key).
func distinctModel(t *testing.T, gltfJSON, bin []byte, n int) map[string][]byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(gltfJSON, &doc))
	doc["asset"].(map[string]any)["generator"] = fmt.Sprintf("exporter %d", n)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return map[string][]byte{"lamp.gltf": out, "model.bin": bin}
}

// TestSecurityOwnModelsCountInUploadQuota (issue 28 item 7): own-model
// uploads count in the daily upload quota with photos (count and bytes):
// past it the upload is refused with the numbers before anything is
// stored, photos are refused too, and another merchant is unaffected.
func TestSecurityOwnModelsCountInUploadQuota(t *testing.T) {
	t.Parallel()
	glb, gltfJSON, bin := realGLB(t)
	size := int64(len(gltfJSON) + len(bin))
	// One photo (the draft's) and four models fit; a fifth model does not.
	s := newModelStack(t, upload.Quota{Count: 5, Bytes: 5 * size})
	startModelWorker(t, s.env, s.env.Store)
	eve, bob := s.user(t), s.user(t)
	id := s.draft(t, eve)
	for n := range 4 {
		code, r := s.postModel(t, eve, id, distinctModel(t, gltfJSON, bin, n))
		require.Equal(t, http.StatusOK, code, "model %d: %+v", n, r.Error)
	}
	stored := s.storedModels(t, eve)
	body, ct := modelForm(t, distinctModel(t, gltfJSON, bin, 4))
	rec, r := s.call(t, eve, "POST", "/api/products/"+id+"/model", ct, body)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	require.Equal(t, "upload_quota", r.Error.Code)
	require.Contains(t, r.Error.Message, "You have uploaded 5 files")
	require.Equal(t, stored, s.storedModels(t, eve), "a refused upload stores nothing")
	// Each accepted model's uploaded files go once its model is recorded.
	require.Eventually(t, func() bool { return s.blobsUnder(t, "model-sources/") == 0 }, time.Minute, 20*time.Millisecond)

	rec, r = s.json(t, eve, "POST", "/api/uploads", map[string]any{"filename": "a.png", "contentType": "image/png", "size": 100})
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "models and photos share the allowance")
	require.Equal(t, "upload_quota", r.Error.Code)

	other := s.draft(t, bob)
	code, r := s.postModel(t, bob, other, map[string][]byte{"lamp.glb": glb})
	require.Equal(t, http.StatusOK, code, "%+v", r.Error)
}

// TestSecurityReplacedModelsAreCleanedUp (issue 28 item 7): the hourly
// storage_cleanup deletes the files of own models that were replaced once
// no live publication shows them, keeps the current model and a published
// one (until it is unpublished), and deletes nothing of other products.
func TestSecurityReplacedModelsAreCleanedUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newModelStack(t, upload.QuotaForPlan("pro"))
	startModelWorker(t, s.env, s.env.Store)
	eve := s.user(t)
	id, other := s.draft(t, eve), s.draft(t, eve)
	_, gltfJSON, bin := realGLB(t)
	type model struct{ glb, thumb string }
	send := func(product string, n int) model {
		code, r := s.postModel(t, eve, product, distinctModel(t, gltfJSON, bin, n))
		require.Equal(t, http.StatusOK, code, "%+v", r.Error)
		p, err := s.svc.Product(ctx, eve, product)
		require.NoError(t, err)
		return model{p.ModelKey, p.ThumbnailKey}
	}
	published := send(id, 1)
	// A live publication shows the first model (its version snapshot names it).
	_, err := s.env.DB.Pool.Exec(ctx, `INSERT INTO publications (id, user_id, blueprint_id, product_id, slug, current_version, created_at, updated_at)
		VALUES ('pub-'||$1, $2, '', $1, 'slug-'||$1, 1, now(), now())`, id, eve)
	require.NoError(t, err)
	_, err = s.env.DB.Pool.Exec(ctx, `INSERT INTO publication_versions (publication_id, version, snapshot, created_at)
		VALUES ('pub-'||$1, 1, jsonb_build_object('productId', $1::text, 'modelKey', $2::text), now())`, id, published.glb)
	require.NoError(t, err)
	replaced := []model{send(id, 2), send(id, 3)}
	current := send(id, 4)
	otherModel := send(other, 5)
	require.Equal(t, 10, s.storedModels(t, eve), "five models and their thumbnails")

	clean := func() {
		require.NoError(t, (&upload.CleanupWorker{DB: s.env.DB.Pool, Blobs: s.env.Blobs}).Work(ctx, nil))
	}
	exists := func(key string) bool {
		ok, err := s.env.Blobs.Exists(ctx, key)
		require.NoError(t, err)
		return ok
	}
	clean()
	for _, m := range replaced {
		require.False(t, exists(m.glb), "a replaced model nobody publishes is deleted")
		require.False(t, exists(m.thumb))
	}
	for _, m := range []model{published, current, otherModel} {
		require.True(t, exists(m.glb), "current and published models are kept")
		require.True(t, exists(m.thumb))
	}
	rec, r := s.json(t, eve, "GET", "/api/products/"+id, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	rec, _ = s.call(t, "", "GET", decodeAs[photoProductReply](t, r.Data).ModelURL, "", nil)
	require.Equal(t, http.StatusOK, rec.Code, "the current model is still served")

	_, err = s.env.DB.Pool.Exec(ctx, `UPDATE publications SET unpublished_at = now() WHERE id = 'pub-'||$1`, id)
	require.NoError(t, err)
	clean()
	require.False(t, exists(published.glb), "once unpublished, the old model goes too")
	require.True(t, exists(current.glb))
	require.Equal(t, 4, s.storedModels(t, eve))
}
