package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/auth"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/subscription"
)

// s3Router is the api as cmd/api wires it for BLOB_URL=s3://…: the creation
// routes plus publishing, whose public pages read models and posters from the
// same bucket the worker wrote them to.
func s3Router(env *jobtest.Env) http.Handler {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := eventstore.New(events.Domain(), eventstore.WithInline(publish.Projection{}))
	meter := publish.NewMeter(env.DB.Pool, env.Subs, store, log, publish.MeterConfig{FlushEvery: 50 * time.Millisecond})
	return NewRouter(Deps{Logger: log, DB: env.DB.Pool,
		Tokens: auth.NewTokens([]byte("creation-test-secret-0123456789abcdef"), env.BaseURL), MaxBodyBytes: 1 << 20,
		Uploads: env.Uploads, Jobs: env.Jobs, Blobs: env.Blobs, Reconstructor: "builtin",
		Publications: publish.NewService(env.DB.Pool, store, publish.SubscriptionPlans{Subscriptions: env.Subs, DB: env.DB.Pool}, env.BaseURL),
		PublicPages: publish.NewPages(publish.PagesConfig{DB: env.DB.Pool, Store: store, Bucket: env.Blobs.Bucket, Meter: meter,
			BaseURL: env.BaseURL, Log: log, Assets: publish.Assets{Script: "/assets/viewer-test.js"}})})
}

// giveTrial gives user the Pro trial, which includes public share links.
func giveTrial(t *testing.T, env *jobtest.Env, user string) {
	t.Helper()
	require.NoError(t, pgdb.WithTx(context.Background(), env.DB.Pool, func(tx pgx.Tx) error {
		_, err := env.Subs.StartTrial(context.Background(), tx, user, subscription.DefaultTrialDays)
		return err
	}))
}

// checkSharePageFromS3 publishes the finished job and opens its public page
// as a shopper would: the page, then the model and poster it links, which the
// api streams from the bucket (same bytes as the presigned downloads, range
// requests answered from S3). With the model gone from the bucket, the page's
// model link answers 404, so the bytes really come from S3.
func (l liveStack) checkSharePageFromS3(t *testing.T, backend *s3mem.Backend, user string, j jobReply, glb, poster []byte) {
	t.Helper()
	res, r := l.jsonCall(t, user, "POST", "/api/publications", map[string]any{"blueprintId": j.ID})
	require.Equal(t, http.StatusCreated, res.StatusCode, string(r.Data))
	p := decodeAs[publish.Publication](t, r.Data)
	require.NotEmpty(t, p.Slug)

	res, _, page := l.do(t, "", "GET", "/v/"+p.Slug, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, string(page))
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, string(page), `<model-viewer id="viewer" src="/v/`+p.Slug+`/model.glb?v=`)
	require.Contains(t, string(page), `poster="/v/`+p.Slug+`/poster.png?v=`)

	res, _, model := l.do(t, "", "GET", "/v/"+p.Slug+"/model.glb", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "model/gltf-binary", res.Header.Get("Content-Type"))
	require.Equal(t, glb, model, "the shopper gets the model the worker wrote to the bucket")
	res, _, png := l.do(t, "", "GET", "/v/"+p.Slug+"/poster.png", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "image/png", res.Header.Get("Content-Type"))
	require.Equal(t, poster, png)

	// model-viewer and AR viewers fetch ranges; the S3 reader seeks.
	req, err := http.NewRequest("GET", l.srv.URL+"/v/"+p.Slug+"/model.glb", nil)
	require.NoError(t, err)
	req.Header.Set("Range", "bytes=0-3")
	rr, err := l.srv.Client().Do(req)
	require.NoError(t, err)
	part, err := io.ReadAll(rr.Body)
	require.NoError(t, rr.Body.Close())
	require.NoError(t, err)
	require.Equal(t, http.StatusPartialContent, rr.StatusCode)
	require.Equal(t, []byte("glTF"), part)

	modelKey := strings.TrimPrefix(mustURL(t, j.ModelURL).Path, "/photo3d-media/")
	_, err = backend.DeleteObject("photo3d-media", modelKey)
	require.NoError(t, err)
	res, _, _ = l.do(t, "", "GET", "/v/"+p.Slug+"/model.glb", "", nil)
	require.Equal(t, http.StatusNotFound, res.StatusCode, "served from the bucket, not from a copy")
}
