package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/imagecheck"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

type jobReply struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Status       string          `json:"status"`
	Progress     int             `json:"progress"`
	Step         string          `json:"step"`
	Steps        []stepView      `json:"steps"`
	ImageURL     string          `json:"imageURL"`
	ModelURL     string          `json:"modelURL"`
	ThumbnailURL string          `json:"thumbnailURL"`
	AssetID      string          `json:"assetId"`
	Parts        []any           `json:"parts"`
	Stats        json.RawMessage `json:"stats"`
	Fidelity     *int            `json:"fidelity"`
	Error        string          `json:"error"`
	Retryable    bool            `json:"retryable"`
	Warnings     []string        `json:"warnings"`
}

func decodeAs[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), string(raw))
	return v
}

// liveStack is the real stack on a real port: HTTP server, Postgres, River
// with LISTEN/NOTIFY and the built-in reconstructor.
type liveStack struct {
	env    *jobtest.Env
	srv    *httptest.Server
	tokens *auth.Tokens
}

func newLiveStack(t testing.TB, devMode bool) liveStack {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	env := jobtest.New(t, base)
	srv.Config.Handler = creationRouter(env, devMode)
	srv.Start()
	t.Cleanup(srv.Close)
	env.StartWorker(t, reconstruct.NewBuiltin())
	return liveStack{env: env, srv: srv, tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), base)}
}

func (l liveStack) do(t testing.TB, user, method, target, contentType string, body io.Reader) (*http.Response, reply, []byte) {
	t.Helper()
	bearer := ""
	if user != "" {
		tok, _, err := l.tokens.Issue(user)
		require.NoError(t, err)
		bearer = tok
	}
	return l.send(t, bearer, method, target, contentType, body)
}

// send is do with any bearer token ("" for none: a session token, an API
// key) and extra headers as name, value pairs.
func (l liveStack) send(t testing.TB, bearer, method, target, contentType string, body io.Reader, header ...string) (*http.Response, reply, []byte) {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = l.srv.URL + target
	}
	req, err := http.NewRequest(method, target, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := l.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var r reply
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &r), string(raw))
	}
	return res, r, raw
}

func (l liveStack) jsonCall(t testing.TB, user, method, path string, body any) (*http.Response, reply) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = strings.NewReader(string(b))
	}
	res, r, _ := l.do(t, user, method, path, "application/json", rd)
	return res, r
}

// uploadToCompleted is the merchant's whole journey as the web client makes
// it: ask for a slot, PUT the photo to the signed URL, start the job, poll
// until it completes. It returns the finished job and the wall time.
func (l liveStack) uploadToCompleted(t testing.TB, user string, photo []byte) (jobReply, time.Duration) {
	t.Helper()
	start := time.Now()
	res, r := l.jsonCall(t, user, "POST", "/api/uploads", map[string]any{"filename": "red-vase.png", "contentType": "image/png", "size": len(photo)})
	require.Equal(t, http.StatusCreated, res.StatusCode)
	slot := decodeAs[uploadSlot](t, r.Data)
	res, _, raw := l.do(t, "", "PUT", slot.UploadURL, "image/png", strings.NewReader(string(photo)))
	require.Equal(t, http.StatusOK, res.StatusCode, string(raw))
	imageURL := res.Header.Get("Location")
	res, r = l.jsonCall(t, user, "POST", "/api/jobs", map[string]any{"imageURL": imageURL})
	require.Equal(t, http.StatusCreated, res.StatusCode)
	j := decodeAs[jobReply](t, r.Data)
	deadline := time.Now().Add(60 * time.Second)
	for j.Status != job.StatusCompleted && j.Status != job.StatusFailed {
		require.True(t, time.Now().Before(deadline), "job %s stuck at %s %d%%", j.ID, j.Status, j.Progress)
		time.Sleep(10 * time.Millisecond)
		res, r = l.jsonCall(t, user, "GET", "/api/jobs/"+j.ID, nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		j = decodeAs[jobReply](t, r.Data)
	}
	return j, time.Since(start)
}

// TestUploadToDownloadEndToEnd runs the real stack: signed PUT, POST /jobs,
// River picking the job up, the built-in reconstructor, and downloads of
// the model (validated by Khronos glTF-Validator), thumbnail and asset.
func TestUploadToDownloadEndToEnd(t *testing.T) {
	t.Parallel()
	l := newLiveStack(t, true)
	user := l.env.User(t)
	j, elapsed := l.uploadToCompleted(t, user, jobtest.PNG(t, 480, 480))
	t.Logf("upload → completed in %s", elapsed)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.Equal(t, 100, j.Progress)
	require.Equal(t, "red-vase", j.Name)
	require.NotEmpty(t, j.Parts)
	require.NotNil(t, j.Fidelity, "the model's fidelity score is returned")
	require.True(t, *j.Fidelity >= 0 && *j.Fidelity <= 100, "fidelity %d", *j.Fidelity)
	require.NotNil(t, j.Warnings, "warnings is a list, empty when all is well")
	require.Empty(t, j.Warnings, "the vase stands clear of every edge")
	_, r0 := l.jsonCall(t, user, "GET", "/api/blueprints", nil)
	cards := decodeAs[blueprintPage](t, r0.Data)
	require.Len(t, cards.Items, 1)
	require.Equal(t, j.Fidelity, cards.Items[0].Fidelity, "the blueprint card carries the same score")
	for _, st := range j.Steps {
		require.Equal(t, "done", st.State)
	}

	res, r := l.jsonCall(t, user, "GET", "/api/assets/"+j.AssetID, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	asset := decodeAs[map[string]any](t, r.Data)
	require.Equal(t, job.ModelContentType, asset["contentType"])
	require.Equal(t, "red-vase.glb", asset["filename"])

	// The signed URLs work without an Authorization header, as model-viewer needs.
	res, _, glb := l.do(t, "", "GET", asset["url"].(string), "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, job.ModelContentType, res.Header.Get("Content-Type"))
	require.EqualValues(t, asset["bytes"], len(glb))
	gltfvalidate.Validate(t, glb)
	res, _, model := l.do(t, "", "GET", j.ModelURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, glb, model)
	res, _, thumb := l.do(t, "", "GET", j.ThumbnailURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "image/png", res.Header.Get("Content-Type"))
	require.NotEmpty(t, thumb)
	res, _, photo := l.do(t, "", "GET", j.ImageURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "image/png", res.Header.Get("Content-Type"))
	require.NotEmpty(t, photo)

	// Same-origin relative URLs, readable from any origin (embeds, another host name).
	for _, u := range []string{j.ModelURL, j.ThumbnailURL, j.ImageURL} {
		require.True(t, strings.HasPrefix(u, "/blobs?"), u)
		req, err := http.NewRequest("GET", l.srv.URL+u, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", "http://192.168.1.20:8080")
		res, err := l.srv.Client().Do(req)
		require.NoError(t, err)
		_ = res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
	}

	// Two polls sign the same URLs, so the browser's cache serves the second
	// (unless the poll straddles the hour the URLs are signed for).
	before := time.Now()
	_, r1 := l.jsonCall(t, user, "GET", "/api/jobs/"+j.ID, nil)
	_, r2 := l.jsonCall(t, user, "GET", "/api/jobs/"+j.ID, nil)
	if before.Truncate(job.URLExpiry).Equal(time.Now().Truncate(job.URLExpiry)) {
		p1, p2 := decodeAs[jobReply](t, r1.Data), decodeAs[jobReply](t, r2.Data)
		require.Equal(t, []string{p1.ImageURL, p1.ModelURL, p1.ThumbnailURL}, []string{p2.ImageURL, p2.ModelURL, p2.ThumbnailURL})
		require.Equal(t, j.ModelURL, p1.ModelURL)
		exp, ok := blobstore.SignedURLExpiry(p1.ModelURL)
		require.True(t, ok)
		require.GreaterOrEqual(t, time.Until(exp), job.URLExpiry-time.Minute, "valid for at least an hour")
	}

	res, _, file := l.do(t, user, "GET", "/api/assets/"+j.AssetID+"/file", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, `attachment; filename="red-vase.glb"`, res.Header.Get("Content-Disposition"))
	require.Equal(t, glb, file)
	res, _, _ = l.do(t, user, "GET", "/api/jobs/"+j.ID+"/thumbnail", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)

	res, r = l.jsonCall(t, user, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	page := decodeAs[blueprintPage](t, r.Data)
	require.Equal(t, 1, page.Total)
	require.Equal(t, j.ID, page.Items[0].JobID)
	require.Equal(t, job.BlueprintReady, page.Items[0].Status)
	require.NotEmpty(t, page.Items[0].ThumbnailURL)

	// Debug views (DEV_MODE): health and the intermediate images.
	res, r = l.jsonCall(t, user, "GET", "/api/jobs/debug/test", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	health := decodeAs[job.Health](t, r.Data)
	require.True(t, health.OK)
	require.Equal(t, 1, health.Recent.Completed)
	require.Contains(t, health.Recent.AvgStepMillis, reconstruct.StageAnalyze)
	res, r = l.jsonCall(t, user, "GET", "/api/jobs/debug/inference/"+j.ID, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	inf := decodeAs[map[string]any](t, r.Data)
	require.NotEmpty(t, inf["timeline"])
	require.NotNil(t, inf["pickupMillis"])
	for _, k := range []string{"maskURL", "partsMapURL"} {
		res, _, img := l.do(t, "", "GET", inf[k].(string), "", nil)
		require.Equal(t, http.StatusOK, res.StatusCode, k)
		require.Equal(t, "image/png", res.Header.Get("Content-Type"), k)
		require.NotEmpty(t, img, k)
	}
	require.Equal(t, 1, l.env.CountEvents(t, "subscription.credits_consumed.v1", j.ID))

	// A photo that cuts the vase off at its right edge is built, and the job
	// says so beside the model.
	cut, _ := l.uploadToCompleted(t, user, jobtest.OffFrame(t, 480, 480))
	require.Equal(t, job.StatusCompleted, cut.Status, cut.Error)
	require.Equal(t, []string{"The product runs off the right edge of the photo, so the model stops there: the part outside the photo is missing. " +
		"For a faithful model, use a photo with the whole product in view and some space around it."}, cut.Warnings)
}

// BenchmarkUploadToCompleted reports the merchant's wait, upload to
// completed job, through the real stack (target ≤ 2 s).
func BenchmarkUploadToCompleted(b *testing.B) {
	l := newLiveStack(b, false)
	user := l.env.User(b)
	_, err := l.env.DB.Pool.Exec(context.Background(), `UPDATE subscriptions SET ai_credits_purchased = 1000000 WHERE user_id = $1`, user)
	require.NoError(b, err)
	photo := jobtest.JPEG(b, 1024, 1024)
	var all []time.Duration
	b.ResetTimer()
	for range b.N {
		j, d := l.uploadToCompleted(b, user, photo)
		require.Equal(b, job.StatusCompleted, j.Status, j.Error)
		all = append(all, d)
	}
	sort.Slice(all, func(i, k int) bool { return all[i] < all[k] })
	b.ReportMetric(float64(all[len(all)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(all[len(all)-1].Milliseconds()), "max-ms")
}

func TestCreateJobScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	other := s.env.User(t)
	own := s.put(t, user, jobtest.PNG(t, 64, 64))
	theirs := s.put(t, other, jobtest.PNG(t, 64, 64))
	pending := s.slot(t, user, "later.png").PublicURL
	ownPath := strings.TrimPrefix(own, creationBase)
	noImage := "Upload succeeded but did not return an image URL."
	notYours := "Choose a photo you uploaded to Photo3D."
	cases := []struct {
		name          string
		body          any
		status        int
		code, message string
		queued        int // job.queued.v1 and subscription.credits_reserved.v1 appended
	}{
		{"own upload, absolute", map[string]any{"imageURL": own}, 201, "", "", 1},
		{"own upload, relative", map[string]any{"imageURL": ownPath}, 201, "", "", 1},
		{"no imageURL", map[string]any{}, 400, "image_url_required", noImage, 0},
		{"blank imageURL", map[string]any{"imageURL": "  "}, 400, "image_url_required", noImage, 0},
		{"someone else's upload", map[string]any{"imageURL": theirs}, 400, "invalid_image_url", notYours, 0},
		{"an outside URL", map[string]any{"imageURL": "https://images.example.com/vase.png"}, 400, "invalid_image_url", notYours, 0},
		{"our path on another host", map[string]any{"imageURL": "http://evil.test" + ownPath}, 400, "invalid_image_url", notYours, 0},
		{"internal address", map[string]any{"imageURL": "http://169.254.169.254/latest/meta-data"}, 400, "invalid_image_url", notYours, 0},
		{"file URL", map[string]any{"imageURL": "file:///etc/passwd"}, 400, "invalid_image_url", notYours, 0},
		{"query string appended", map[string]any{"imageURL": own + "?x=1"}, 400, "invalid_image_url", notYours, 0},
		{"path traversal", map[string]any{"imageURL": creationBase + "/api/uploads/../uploads/x/image"}, 400, "invalid_image_url", notYours, 0},
		{"upload never received", map[string]any{"imageURL": pending}, 400, "upload_incomplete", "This photo has not finished uploading. Please upload it again.", 0},
		{"wrong type", map[string]any{"imageURL": 42}, 400, "invalid_json", `The field "imageURL" has the wrong type.`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
			rec, r := s.json(t, user, "POST", "/api/jobs", c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			require.Equal(t, c.queued, s.eventCount(t, "job.queued.v1")-q)
			require.Equal(t, c.queued, s.eventCount(t, "subscription.credits_reserved.v1")-res)
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
				require.Equal(t, c.message, r.Error.Message)
				return
			}
			j := decodeAs[jobReply](t, r.Data)
			require.Equal(t, job.StatusQueued, j.Status)
			require.Equal(t, 0, j.Progress)
			require.Equal(t, "/api/jobs/"+j.ID, rec.Header().Get("Location"))
			require.True(t, strings.HasPrefix(j.ImageURL, "/blobs?"), "a same-origin signed photo URL")
			require.Empty(t, j.ModelURL)
		})
	}

	t.Run("out of AI credits", func(t *testing.T) {
		for range 3 { // 5 Free credits, 2 used above
			rec, _ := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": own})
			require.Equal(t, http.StatusCreated, rec.Code)
		}
		q := s.eventCount(t, "job.queued.v1")
		rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": own})
		require.Equal(t, http.StatusPaymentRequired, rec.Code)
		require.Equal(t, "insufficient_credits", r.Error.Code)
		require.Contains(t, r.Error.Message, "AI credits")
		require.Equal(t, q, s.eventCount(t, "job.queued.v1"))
	})
}

// TestOtherUsersIDsAreNotFound checks every id-taking route answers another
// user's ids exactly like ids that do not exist.
func TestOtherUsersIDsAreNotFound(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, true)
	owner := s.env.User(t)
	intruder := s.env.User(t)
	imageURL := s.put(t, owner, jobtest.PNG(t, 96, 96))
	rec, r := s.json(t, owner, "POST", "/api/jobs", map[string]any{"imageURL": imageURL})
	require.Equal(t, http.StatusCreated, rec.Code)
	jobID := decodeAs[jobReply](t, r.Data).ID
	require.NoError(t, s.env.Worker(reconstruct.NewBuiltin()).Work(context.Background(), riverJob(jobID)))
	j, err := s.env.Jobs.Get(context.Background(), owner, jobID)
	require.NoError(t, err)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	uploadPath := strings.TrimPrefix(imageURL, creationBase)

	routes := []struct{ method, path string }{
		{"GET", "/api/jobs/" + jobID},
		{"GET", "/api/jobs/" + jobID + "/thumbnail"},
		{"GET", "/api/jobs/debug/inference/" + jobID},
		{"GET", "/api/assets/" + j.AssetID},
		{"GET", "/api/assets/" + j.AssetID + "/file"},
		{"GET", "/api/blueprints/" + jobID},
		{"POST", "/api/jobs/" + jobID + "/retry"},
		{"PATCH", "/api/blueprints/" + jobID},
		{"DELETE", "/api/blueprints/" + jobID},
		{"GET", uploadPath},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			before := s.eventCount(t, "blueprint.renamed.v1") + s.eventCount(t, "blueprint.deleted.v1")
			rec, r := s.json(t, intruder, rt.method, rt.path, map[string]any{"name": "mine now"})
			require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
			require.Equal(t, "not_found", r.Error.Code)
			require.Equal(t, before, s.eventCount(t, "blueprint.renamed.v1")+s.eventCount(t, "blueprint.deleted.v1"))
			missing := strings.ReplaceAll(strings.ReplaceAll(rt.path, jobID, "0190aaaa-0000-7000-8000-000000000000"),
				j.AssetID, "0190aaaa-0000-7000-8000-000000000001")
			if strings.HasPrefix(rt.path, "/api/uploads/") {
				missing = "/api/uploads/0190aaaa-0000-7000-8000-000000000002/image"
			}
			rec2, r2 := s.json(t, intruder, rt.method, missing, map[string]any{"name": "mine now"})
			require.Equal(t, http.StatusNotFound, rec2.Code)
			require.Equal(t, r.Error.Message, r2.Error.Message, "indistinguishable from a missing id")
			rec3, _ := s.json(t, owner, rt.method, rt.path, map[string]any{"name": "still mine"})
			if rt.method == "GET" {
				require.Equal(t, http.StatusOK, rec3.Code, "the owner still sees it")
			}
		})
	}
}

// riverJob is the job River would hand the worker on a first attempt.
// lastAttempt is rj on its last attempt: a failure the worker would let River
// retry is recorded for good.
func lastAttempt(rj *river.Job[job.ReconstructArgs]) *river.Job[job.ReconstructArgs] {
	rj.Attempt = job.MaxAttempts
	return rj
}

func riverJob(jobID string) *river.Job[job.ReconstructArgs] {
	return &river.Job[job.ReconstructArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: job.MaxAttempts,
		State: rivertype.JobStateRunning}, Args: job.ReconstructArgs{JobID: jobID}}
}

func TestBlueprintScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	imageURL := s.put(t, user, jobtest.PNG(t, 64, 64))
	var ids []string
	for range 3 {
		rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": imageURL})
		require.Equal(t, http.StatusCreated, rec.Code)
		ids = append(ids, decodeAs[jobReply](t, r.Data).ID)
	}

	t.Run("pages newest first", func(t *testing.T) {
		rec, r := s.json(t, user, "GET", "/api/blueprints?limit=2", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		p1 := decodeAs[blueprintPage](t, r.Data)
		require.Equal(t, 3, p1.Total)
		require.Len(t, p1.Items, 2)
		require.Equal(t, []string{ids[2], ids[1]}, []string{p1.Items[0].ID, p1.Items[1].ID})
		require.Equal(t, p1.Items[0].ID, p1.Items[0].JobID)
		require.Equal(t, job.BlueprintProcessing, p1.Items[0].Status)
		require.NotEmpty(t, p1.NextCursor)
		rec, r = s.json(t, user, "GET", "/api/blueprints?limit=2&cursor="+p1.NextCursor, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		p2 := decodeAs[blueprintPage](t, r.Data)
		require.Len(t, p2.Items, 1)
		require.Equal(t, ids[0], p2.Items[0].ID)
		require.Empty(t, p2.NextCursor)
	})

	t.Run("25 blueprints: a default page of 20, then the last 5 through the cursor", func(t *testing.T) {
		many := s.env.User(t)
		require.NoError(t, pgdb.WithTx(context.Background(), s.env.DB.Pool, func(tx pgx.Tx) error {
			_, err := s.env.Subs.PurchaseAddon(context.Background(), tx, many, "credits", 20) // 5 Free + 20
			return err
		}))
		photo := s.put(t, many, jobtest.PNG(t, 64, 64))
		var made []string
		for range 25 {
			rec, r := s.json(t, many, "POST", "/api/jobs", map[string]any{"imageURL": photo})
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			made = append([]string{decodeAs[jobReply](t, r.Data).ID}, made...) // newest first
			// Finished at once: an account may have only job.DefaultMaxWaitingBuilds
			// builds waiting for a worker (security review M6).
			s.env.Finish(t, made[0], "")
		}
		rec, r := s.json(t, many, "GET", "/api/blueprints", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		p1 := decodeAs[blueprintPage](t, r.Data)
		require.Equal(t, 25, p1.Total)
		require.Len(t, p1.Items, job.DefaultLimit)
		require.NotEmpty(t, p1.NextCursor)
		rec, r = s.json(t, many, "GET", "/api/blueprints?cursor="+p1.NextCursor, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		p2 := decodeAs[blueprintPage](t, r.Data)
		require.Len(t, p2.Items, 5)
		require.Empty(t, p2.NextCursor)
		var got []string
		for _, b := range append(p1.Items, p2.Items...) {
			got = append(got, b.ID)
		}
		require.Equal(t, made, got, "every blueprint once, newest first")
	})

	cases := []struct {
		name, method, path string
		body               any
		status             int
		code               string
		event              string // appended on success
	}{
		{"limit 0", "GET", "/api/blueprints?limit=0", nil, 400, "invalid_limit", ""},
		{"limit 101", "GET", "/api/blueprints?limit=101", nil, 400, "invalid_limit", ""},
		{"limit not a number", "GET", "/api/blueprints?limit=ten", nil, 400, "invalid_limit", ""},
		{"bad cursor", "GET", "/api/blueprints?cursor=nope", nil, 400, "invalid_cursor", ""},
		{"get one", "GET", "/api/blueprints/" + ids[0], nil, 200, "", ""},
		{"rename", "PATCH", "/api/blueprints/" + ids[0], map[string]any{"name": "  Blue   vase "}, 200, "", "blueprint.renamed.v1"},
		{"rename to the same name", "PATCH", "/api/blueprints/" + ids[0], map[string]any{"name": "Blue vase"}, 200, "", ""},
		{"rename without a name", "PATCH", "/api/blueprints/" + ids[0], map[string]any{}, 400, "name_required", ""},
		{"rename to blanks", "PATCH", "/api/blueprints/" + ids[0], map[string]any{"name": "   "}, 400, "name_required", ""},
		{"rename too long", "PATCH", "/api/blueprints/" + ids[0], map[string]any{"name": strings.Repeat("é", 101)}, 400, "name_too_long", ""},
		{"malformed id", "GET", "/api/blueprints/not-an-id", nil, 404, "not_found", ""},
		{"delete", "DELETE", "/api/blueprints/" + ids[1], nil, 200, "", "blueprint.deleted.v1"},
		{"delete again", "DELETE", "/api/blueprints/" + ids[1], nil, 404, "not_found", ""},
		{"deleted is gone", "GET", "/api/blueprints/" + ids[1], nil, 404, "not_found", ""},
		{"its job is gone too", "GET", "/api/jobs/" + ids[1], nil, 404, "not_found", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := 0
			if c.event != "" {
				before = s.eventCount(t, c.event)
			}
			rec, r := s.json(t, user, c.method, c.path, c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.code != "" {
				require.Equal(t, c.code, r.Error.Code)
			}
			if c.event != "" {
				require.Equal(t, before+1, s.eventCount(t, c.event))
			}
		})
	}
	rec, r := s.json(t, user, "GET", "/api/blueprints/"+ids[0], nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "Blue vase", decodeAs[blueprintView](t, r.Data).Name)
	rec, r = s.json(t, user, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, 2, decodeAs[blueprintPage](t, r.Data).Total)
}

func TestDebugRoutesNeedDevModeOrAdmin(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	for _, p := range []string{"/api/jobs/debug/test", "/api/jobs/debug/inference/0190aaaa-0000-7000-8000-000000000000"} {
		rec, _ := s.json(t, user, "GET", p, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, p)
	}
	admin := s.env.User(t)
	h := NewRouter(Deps{Logger: s.env.Logger, DB: s.env.DB.Pool, Tokens: s.tokens, Uploads: s.env.Uploads, Jobs: s.env.Jobs, Blobs: s.env.Blobs,
		IsAdmin: func(_ context.Context, id string) (bool, error) { return id == admin, nil }})
	s.h = h
	rec, _ := s.json(t, admin, "GET", "/api/jobs/debug/test", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec, _ = s.json(t, user, "GET", "/api/jobs/debug/test", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	rec, _ = s.json(t, "", "GET", "/api/jobs/debug/test", nil)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
}

// TestRetryScenarios: POST /api/jobs/{id}/retry on the real stack, each
// failure made by the real worker. A photo the builder cannot decode is
// refused: the job says it cannot be retried, and a retry answers 409 with
// nothing queued or held, since the same photo would fail the same way. A
// build that failed for the builder's own reason (the GPU server down on its
// last attempt) is retried as a new build from the same photo that holds a
// credit again and takes the failed one's place. Only the owner's failed
// builds can be retried.
func TestRetryScenarios(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	ctx := context.Background()
	owner, other := s.env.User(t), s.env.User(t)
	build := func(photo []byte, rec reconstruct.Reconstructor, attempt func(*river.Job[job.ReconstructArgs]) *river.Job[job.ReconstructArgs]) jobReply {
		rr, r := s.json(t, owner, "POST", "/api/jobs", map[string]any{"imageURL": s.put(t, owner, photo)})
		require.Equal(t, http.StatusCreated, rr.Code, rr.Body.String())
		id := decodeAs[jobReply](t, r.Data).ID
		_ = s.env.Worker(rec).Work(ctx, attempt(riverJob(id)))
		rr, r = s.json(t, owner, "GET", "/api/jobs/"+id, nil)
		require.Equal(t, http.StatusOK, rr.Code, rr.Body.String())
		return decodeAs[jobReply](t, r.Data)
	}
	same := func(rj *river.Job[job.ReconstructArgs]) *river.Job[job.ReconstructArgs] { return rj }
	refused := build(jobtest.BrokenPNG(t, 320, 320), reconstruct.NewBuiltin(), same)
	require.Equal(t, job.StatusFailed, refused.Status)
	require.Equal(t, imagecheck.ErrUnreadable.Error()+" "+job.BuildRefusedMessage, refused.Error)
	require.False(t, refused.Retryable, "the same photo would be refused again")
	done := build(jobtest.PNG(t, 320, 320), reconstruct.NewBuiltin(), same)
	require.Equal(t, job.StatusCompleted, done.Status)
	require.False(t, done.Retryable)
	gpu := reconstruct.NewRemote(reconstruct.RemoteConfig{URL: "http://gpu.invalid", Retries: -1, Backoff: time.Millisecond})
	failed := build(jobtest.PNG(t, 320, 320), gpu, lastAttempt)
	require.Equal(t, job.StatusFailed, failed.Status)
	require.Equal(t, job.BuildFailedMessage, failed.Error)
	require.True(t, failed.Retryable, "the builder failed, not the photo")

	retry := func(user, id string) (*httptest.ResponseRecorder, reply) {
		return s.json(t, user, "POST", "/api/jobs/"+id+"/retry", nil)
	}
	t.Run("another user's failed job is not found", func(t *testing.T) {
		rr, r := retry(other, failed.ID)
		require.Equal(t, http.StatusNotFound, rr.Code)
		require.Equal(t, "not_found", r.Error.Code)
		rr, _ = retry(owner, "00000000-0000-7000-8000-000000000000")
		require.Equal(t, http.StatusNotFound, rr.Code)
		rr, _ = retry(owner, "not-a-uuid")
		require.Equal(t, http.StatusNotFound, rr.Code)
	})
	t.Run("a completed job cannot be retried", func(t *testing.T) {
		rr, r := retry(owner, done.ID)
		require.Equal(t, http.StatusConflict, rr.Code)
		require.Equal(t, "not_failed", r.Error.Code)
		require.Equal(t, job.ErrNotFailed.Message, r.Error.Message)
	})
	t.Run("a build whose photo was refused is not retried: 409, nothing queued or held", func(t *testing.T) {
		queued, reserved := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
		rr, r := retry(owner, refused.ID)
		require.Equal(t, http.StatusConflict, rr.Code, rr.Body.String())
		require.Equal(t, "photos_refused", r.Error.Code)
		require.Equal(t, job.ErrRefusedPhotos.Message, r.Error.Message)
		require.Equal(t, queued, s.eventCount(t, "job.queued.v1"))
		require.Equal(t, reserved, s.eventCount(t, "subscription.credits_reserved.v1"))
		rr, r = s.json(t, owner, "GET", "/api/blueprints", nil)
		require.Equal(t, http.StatusOK, rr.Code)
		retryable := map[string]bool{}
		for _, b := range decodeAs[blueprintPage](t, r.Data).Items {
			retryable[b.ID] = b.Retryable
		}
		require.Equal(t, map[string]bool{refused.ID: false, done.ID: false, failed.ID: true}, retryable,
			"the refused build stays in the library, and the list says which failure a retry can help")
	})

	var again jobReply
	t.Run("a build the builder failed starts again from the same photo and holds a credit", func(t *testing.T) {
		rr, r := retry(owner, failed.ID)
		require.Equal(t, http.StatusCreated, rr.Code, rr.Body.String())
		again = decodeAs[jobReply](t, r.Data)
		require.NotEqual(t, failed.ID, again.ID)
		require.Equal(t, "/api/jobs/"+again.ID, rr.Header().Get("Location"))
		require.Equal(t, job.StatusQueued, again.Status)
		require.False(t, again.Retryable)
		require.Equal(t, failed.Name, again.Name)
		require.Equal(t, 1, s.env.CountEvents(t, "subscription.credits_reserved.v1", again.ID))
		// The failed attempt leaves the workspace; the new one takes its place.
		rr, _ = s.json(t, owner, "GET", "/api/jobs/"+failed.ID, nil)
		require.Equal(t, http.StatusNotFound, rr.Code)
		rr, _ = retry(owner, failed.ID)
		require.Equal(t, http.StatusNotFound, rr.Code, "a retried job is gone")
		var photos [2]string
		for i, id := range []string{failed.ID, again.ID} {
			require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT image_key FROM jobs WHERE id = $1`, id).Scan(&photos[i]))
		}
		require.Equal(t, photos[0], photos[1], "the same photo")
		rr, r = s.json(t, owner, "GET", "/api/blueprints", nil)
		require.Equal(t, http.StatusOK, rr.Code)
		ids := []string{}
		for _, b := range decodeAs[blueprintPage](t, r.Data).Items {
			ids = append(ids, b.ID)
		}
		require.ElementsMatch(t, []string{refused.ID, done.ID, again.ID}, ids)
	})
	t.Run("no credits left: 402 and nothing queued", func(t *testing.T) {
		// The retried build fails too; then every remaining credit is held
		// for a build in flight elsewhere.
		require.Error(t, s.env.Worker(gpu).Work(ctx, lastAttempt(riverJob(again.ID))))
		// Free's five, less the one the finished build used: every failed
		// build gave its credit back.
		require.NoError(t, pgdb.WithTx(ctx, s.env.DB.Pool, func(tx pgx.Tx) error {
			return s.env.Subs.ReserveCredits(ctx, tx, owner, uuid.NewString(), 4)
		}))
		queued := s.eventCount(t, "job.queued.v1")
		rr, r := retry(owner, again.ID)
		require.Equal(t, http.StatusPaymentRequired, rr.Code, rr.Body.String())
		require.Equal(t, "insufficient_credits", r.Error.Code)
		require.Contains(t, r.Error.Message, "Not enough AI credits")
		require.Equal(t, queued, s.eventCount(t, "job.queued.v1"))
		rr, _ = s.json(t, owner, "GET", "/api/jobs/"+again.ID, nil)
		require.Equal(t, http.StatusOK, rr.Code, "the failed job stays")
	})
}
