package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/reconstruct"
	"github.com/photo3d/photo3d/internal/upload"
)

type viewsReply struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Views  int             `json:"views"`
	Stats  json.RawMessage `json:"stats"`
	Error  string          `json:"error"`
}

// POST /api/jobs with moreImages: four photos of one product (a lathe-turned
// vase, the same from every side) are one job costing four credits, one per
// photo (security review M6); the job says it uses four views, the real worker
// builds one model from all four, and the completion event and stats record
// four views. A product rebuild of it keeps the four photos, and their price.
func TestCreateMultiPhotoJob(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	var urls []string
	for range 4 {
		urls = append(urls, s.put(t, user, jobtest.PNG(t, 320, 320)))
	}
	q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": urls[0], "moreImages": []map[string]any{
		{"imageURL": urls[1], "azimuth": 90}, {"imageURL": urls[2], "azimuth": 180}, {"imageURL": urls[3]},
	}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, 1, s.eventCount(t, "job.queued.v1")-q, "one job")
	require.Equal(t, 1, s.eventCount(t, "subscription.credits_reserved.v1")-res, "one reservation")
	j := decodeAs[viewsReply](t, r.Data)
	require.Equal(t, []int64{4}, s.creditAmounts(t, "subscription.credits_reserved.v1", j.ID), "four credits")
	require.Equal(t, 4, j.Views)

	require.NoError(t, s.env.Worker(reconstruct.NewBuiltin()).Work(context.Background(), riverJob(j.ID)))
	rec, r = s.json(t, user, "GET", "/api/jobs/"+j.ID, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	j = decodeAs[viewsReply](t, r.Data)
	require.Equal(t, job.StatusCompleted, j.Status, j.Error)
	require.Equal(t, 4, j.Views)
	var stats reconstruct.Stats
	require.NoError(t, json.Unmarshal(j.Stats, &stats))
	require.Equal(t, 4, stats.Views)
	require.Equal(t, reconstruct.ShapeMultiView, stats.ShapeKind)
	envs, _, err := s.env.Store.Load(context.Background(), s.env.DB.Pool, events.Stream{Type: events.StreamJob, ID: j.ID})
	require.NoError(t, err)
	done, ok := envs[len(envs)-1].Data.(events.JobCompleted)
	require.True(t, ok)
	require.Equal(t, 4, done.Views)
	// My Blueprints tells this build from a one-photo build of the same name
	// (merchant walk 4, H1).
	var lib struct {
		Items []struct {
			JobID string `json:"jobId"`
			Views int    `json:"views"`
		} `json:"items"`
	}
	rec, r = s.json(t, user, "GET", "/api/blueprints", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(r.Data, &lib))
	require.Len(t, lib.Items, 1)
	require.Equal(t, j.ID, lib.Items[0].JobID)
	require.Equal(t, 4, lib.Items[0].Views)

	// A rebuild (what a product's rebuild calls) keeps every photo and azimuth,
	// and costs four credits again (the Free plan's 5 are topped up).
	s.buyCredits(t, user, 4)
	var rebuilt string
	require.NoError(t, pgdb.WithTx(context.Background(), s.env.DB.Pool, func(tx pgx.Tx) error {
		var err error
		rebuilt, err = s.env.Jobs.Requeue(context.Background(), tx, user, j.ID, "Vase again")
		return err
	}))
	orig, err := s.env.Jobs.Get(context.Background(), user, j.ID)
	require.NoError(t, err)
	again, err := s.env.Jobs.Get(context.Background(), user, rebuilt)
	require.NoError(t, err)
	require.Equal(t, 4, again.Views())
	require.Equal(t, []int64{4}, s.creditAmounts(t, "subscription.credits_reserved.v1", rebuilt))
	require.Equal(t, orig.MoreViews, again.MoreViews)
	require.Equal(t, 90.0, *again.MoreViews[0].Azimuth)
	require.Nil(t, again.MoreViews[2].Azimuth)

	// A day later the clean-up of unused photos keeps every photo of the build,
	// not only the first, so a retry or a rebuild can still read them.
	ctx := context.Background()
	_, err = s.env.DB.Pool.Exec(ctx, `UPDATE uploads SET created_at = now() - interval '25 hours'`)
	require.NoError(t, err)
	require.NoError(t, (&upload.CleanupWorker{DB: s.env.DB.Pool, Blobs: s.env.Blobs}).Work(ctx, nil))
	keys := []string{orig.ImageKey}
	for _, v := range orig.MoreViews {
		keys = append(keys, v.ImageKey)
	}
	for i, key := range keys {
		ok, err := s.env.Blobs.Exists(ctx, key)
		require.NoError(t, err)
		require.True(t, ok, "photo %d of the build is kept", i+1)
	}
}

// Every further photo is checked exactly like imageURL: another user's upload,
// an outside URL, an unfinished upload, too many photos or a wrong azimuth is a
// 400 that names the photo, and nothing is queued or charged.
func TestCreateMultiPhotoJobRefusesBadPhotos(t *testing.T) {
	t.Parallel()
	s := newCreationStack(t, false)
	user := s.env.User(t)
	other := s.env.User(t)
	own := s.put(t, user, jobtest.PNG(t, 64, 64))
	theirs := s.put(t, other, jobtest.PNG(t, 64, 64))
	pending := s.slot(t, user, "later.png").PublicURL
	eight := make([]map[string]any, 8)
	for i := range eight {
		eight[i] = map[string]any{"imageURL": own}
	}
	cases := []struct {
		name          string
		more          any
		code, message string
	}{
		{"someone else's upload", []map[string]any{{"imageURL": own}, {"imageURL": theirs}}, "invalid_image_url", "Photo 3: Choose a photo you uploaded to Photo3D."},
		{"an outside URL", []map[string]any{{"imageURL": "https://images.example.com/vase.png"}}, "invalid_image_url", "Photo 2: Choose a photo you uploaded to Photo3D."},
		{"internal address", []map[string]any{{"imageURL": "http://169.254.169.254/latest/meta-data"}}, "invalid_image_url", "Photo 2: Choose a photo you uploaded to Photo3D."},
		{"blank", []map[string]any{{"imageURL": " "}}, "image_url_required", "Photo 2: Upload succeeded but did not return an image URL."},
		{"not received", []map[string]any{{"imageURL": pending}}, "upload_incomplete", "Photo 2: This photo has not finished uploading. Please upload it again."},
		{"eight more", eight, "too_many_images", "A build takes at most 8 photos: the first and up to 7 more."},
		{"azimuth out of range", []map[string]any{{"imageURL": own, "azimuth": 400}}, "invalid_azimuth", "Photo 2: An azimuth must be a number of degrees from 0 to 360."},
		{"azimuth not a number", []map[string]any{{"imageURL": own, "azimuth": "left"}}, "invalid_json", `The field "moreImages.azimuth" has the wrong type.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
			rec, r := s.json(t, user, "POST", "/api/jobs", map[string]any{"imageURL": own, "moreImages": c.more})
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			require.Equal(t, c.code, r.Error.Code)
			require.Equal(t, c.message, r.Error.Message)
			require.Equal(t, q, s.eventCount(t, "job.queued.v1"))
			require.Equal(t, res, s.eventCount(t, "subscription.credits_reserved.v1"))
		})
	}
}
