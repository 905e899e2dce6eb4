package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/blobstore"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// TestS3EndToEnd runs the merchant's journey with BLOB_URL=s3://…, exactly
// as production parses it, against an in-process server speaking the S3 wire
// protocol (gofakes3): the browser PUTs the photo straight to the bucket with
// a presigned URL (the api never sees the bytes), the api checks the photo
// on first use, the worker reads it from and writes the model to the bucket,
// and the model downloads from a presigned GET without any header. Then the
// model is published and its public page /v/{slug} serves it from the bucket.
func TestS3EndToEnd(t *testing.T) {
	l, backend, s3URL := newS3Stack(t)
	env := l.env
	user := l.env.User(t)
	giveTrial(t, env, user)
	photo := jobtest.PNG(t, 400, 400)

	res, r := l.jsonCall(t, user, "POST", "/api/uploads", map[string]any{"filename": "red-vase.png", "contentType": "image/png", "size": len(photo)})
	require.Equal(t, http.StatusCreated, res.StatusCode)
	slot := decodeAs[uploadSlot](t, r.Data)
	require.True(t, strings.HasPrefix(slot.UploadURL, s3URL+"/photo3d-media/"), "the browser uploads to the bucket: %s", slot.UploadURL)
	require.Contains(t, slot.UploadURL, "X-Amz-Signature=", "a presigned URL")
	require.Contains(t, slot.UploadURL, "X-Amz-Expires=")

	// A job cannot start before the bytes are there.
	res, r = l.jsonCall(t, user, "POST", "/api/jobs", map[string]any{"imageURL": slot.PublicURL})
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "upload_incomplete", r.Error.Code, r.Error.Message)

	res, _, raw := l.do(t, "", "PUT", slot.UploadURL, "image/png", strings.NewReader(string(photo)))
	require.Equal(t, http.StatusOK, res.StatusCode, string(raw))
	obj, err := backend.HeadObject("photo3d-media", strings.TrimPrefix(mustURL(t, slot.UploadURL).Path, "/photo3d-media/"))
	require.NoError(t, err)
	require.EqualValues(t, len(photo), obj.Size)

	res, r = l.jsonCall(t, user, "POST", "/api/jobs", map[string]any{"imageURL": slot.PublicURL})
	require.Equal(t, http.StatusCreated, res.StatusCode, string(r.Data))
	j := decodeAs[jobReply](t, r.Data)
	j = l.waitJob(t, user, j)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)

	// The model, thumbnail and photo come straight from the bucket.
	for _, u := range []string{j.ModelURL, j.ThumbnailURL, j.ImageURL} {
		require.True(t, strings.HasPrefix(u, s3URL+"/photo3d-media/"), u)
		require.Contains(t, u, "X-Amz-Signature=")
	}
	res, _, glb := l.do(t, "", "GET", j.ModelURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, job.ModelContentType, res.Header.Get("Content-Type"))
	gltfvalidate.Validate(t, glb)
	res, _, got := l.do(t, "", "GET", j.ImageURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, photo, got)
	res, _, poster := l.do(t, "", "GET", j.ThumbnailURL, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	res, _, file := l.do(t, user, "GET", "/api/assets/"+j.AssetID+"/file", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, glb, file, "the api streams the same model from the bucket")
	require.Equal(t, 1, l.env.CountEvents(t, "subscription.credits_consumed.v1", j.ID))

	l.checkSharePageFromS3(t, backend, user, j, glb, poster)
}

// waitJob polls GET /api/jobs/{id} until the job finishes.
func (l liveStack) waitJob(t *testing.T, user string, j jobReply) jobReply {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if j.Status == job.StatusCompleted || j.Status == job.StatusFailed {
			return j
		}
		res, r := l.jsonCall(t, user, "GET", "/api/jobs/"+j.ID, nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		j = decodeAs[jobReply](t, r.Data)
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("job %s stuck at %s", j.ID, j.Status)
	return j
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// newS3Stack is the api and worker with BLOB_URL=s3://…, as production
// parses it, against an in-process server speaking the S3 wire protocol
// (gofakes3). It answers the stack, the bucket's backend and the server's URL.
// Not parallel: the AWS SDK reads its credentials from the environment.
func newS3Stack(t *testing.T) (liveStack, *s3mem.Backend, string) {
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("photo3d-media"))
	s3srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(s3srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")

	blobURL := "s3://photo3d-media?region=eu-west-1&use_path_style=true&disable_https=true&endpoint=" + url.QueryEscape(s3srv.URL)
	store, err := blobstore.Open(context.Background(), blobURL)
	require.NoError(t, err)
	require.False(t, store.ServedLocally(), "S3 serves its own URLs")

	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	env := jobtest.NewWithBlobs(t, base, store)
	srv.Config.Handler = s3Router(env)
	srv.Start()
	t.Cleanup(srv.Close)
	env.StartWorker(t, reconstruct.NewBuiltin())
	l := liveStack{env: env, srv: srv, tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), base)}
	return l, backend, s3srv.URL
}

// A photo PUT straight to the bucket is completed the first time a build
// names it, in a transaction of its own. That completion is not the build:
// when the build then fails, the Idempotency-Key is released and the retry
// with the same key builds it (it was told idempotency_answer_lost, with
// nothing built, while the completion marked the key as carried out).
func TestIdempotentBuildOfABucketPhotoRunsAgainAfterItFailed(t *testing.T) {
	l, _, _ := newS3Stack(t)
	user := l.env.User(t)
	giveTrial(t, l.env, user)
	tok, _, err := l.tokens.Issue(user)
	require.NoError(t, err)
	photo := jobtest.PNG(t, 400, 400)
	res, r := l.jsonCall(t, user, "POST", "/api/uploads", map[string]any{"filename": "red-vase.png", "contentType": "image/png", "size": len(photo)})
	require.Equal(t, http.StatusCreated, res.StatusCode)
	slot := decodeAs[uploadSlot](t, r.Data)
	res, _, raw := l.do(t, "", "PUT", slot.UploadURL, "image/png", strings.NewReader(string(photo)))
	require.Equal(t, http.StatusOK, res.StatusCode, string(raw))

	ctx := context.Background()
	db := l.env.DB.Pool
	_, err = db.Exec(ctx, `
		CREATE FUNCTION test_fail_build() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the build could not be recorded (test)'; END $$;
		CREATE TRIGGER test_fail_build BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION test_fail_build()`)
	require.NoError(t, err)
	body := `{"imageURL":"` + slot.PublicURL + `"}`
	res, r, _ = l.send(t, tok, "POST", "/api/jobs", "application/json", strings.NewReader(body), "Idempotency-Key", "bucket-1")
	require.Equal(t, http.StatusInternalServerError, res.StatusCode, "%+v", r.Error)
	var completed int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM uploads WHERE id = $1 AND status = 'completed'`,
		slot.UploadID).Scan(&completed))
	require.Equal(t, 1, completed, "the photo was completed on its first use")
	var keys int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM idempotency_keys WHERE key = 'bucket-1'`).Scan(&keys))
	require.Zero(t, keys, "the failed build released its key")

	_, err = db.Exec(ctx, `DROP TRIGGER test_fail_build ON jobs`)
	require.NoError(t, err)
	res, r, _ = l.send(t, tok, "POST", "/api/jobs", "application/json", strings.NewReader(body), "Idempotency-Key", "bucket-1")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%+v", r.Error)
	require.Empty(t, res.Header.Get("Idempotent-Replayed"), "built, not replayed")
	var jobs int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = $1`, user).Scan(&jobs))
	require.Equal(t, 1, jobs)
}
