package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

type viewsProductReply struct {
	photoProductReply
	Views int `json:"views"`
}

// The add-product wizard's "Generate 3D now" with two more angles: one job
// from all three photos, costing three credits (one per photo, security review
// M6), the product says it is built from three views while building and once
// ready (from the real worker), and "Rebuild" keeps the three photos and
// their price.
func TestCreatePhotoProductWithMoreAngles(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	startTrialFor(t, s, user)
	front := s.uploadID(t, user, jobtest.PNG(t, 320, 320))
	left, back := s.put(t, user, jobtest.PNG(t, 320, 320)), s.put(t, user, jobtest.PNG(t, 320, 320))

	q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Vase", "uploadId": front, "generate": true,
		"moreImages": []map[string]any{{"imageURL": left, "azimuth": 90}, {"imageURL": back}}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, 1, s.eventCount(t, "job.queued.v1")-q, "one job")
	require.Equal(t, 1, s.eventCount(t, "subscription.credits_reserved.v1")-res, "one reservation")
	p := decodeAs[viewsProductReply](t, r.Data)
	require.Equal(t, []int64{3}, s.creditAmounts(t, "subscription.credits_reserved.v1", p.JobID), "three credits")
	require.Equal(t, "processing", p.Status)
	require.Equal(t, 3, p.Views)
	j, err := s.env.Jobs.Get(context.Background(), user, p.JobID)
	require.NoError(t, err)
	require.Equal(t, 3, j.Views())
	require.Equal(t, 90.0, *j.MoreViews[0].Azimuth)

	s.env.StartWorker(t, reconstruct.NewBuiltin())
	deadline := time.Now().Add(5 * time.Minute) // a hung-build guard, not a speed assertion
	for p.Status == "processing" {
		require.True(t, time.Now().Before(deadline), "build stuck at %s", p.Stage)
		time.Sleep(50 * time.Millisecond)
		_, r = s.json(t, user, "GET", "/api/products/"+p.ID, nil)
		p = decodeAs[viewsProductReply](t, r.Data)
	}
	require.Equal(t, "ready", p.Status, p.FailureReason)
	require.Equal(t, 3, p.Views, "the finished product says how many photos it was built from")

	rec, r = s.json(t, user, "POST", "/api/products/"+p.ID+"/rebuild", nil)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	again := decodeAs[viewsProductReply](t, r.Data)
	require.NotEqual(t, p.JobID, again.JobID)
	require.Equal(t, 3, again.Views, "a rebuild keeps every photo")
	require.Equal(t, []int64{3}, s.creditAmounts(t, "subscription.credits_reserved.v1", again.JobID), "and costs three credits")
	rebuilt, err := s.env.Jobs.Get(context.Background(), user, again.JobID)
	require.NoError(t, err)
	require.Equal(t, j.MoreViews, rebuilt.MoreViews)
}

// Each further photo of a wizard product is checked exactly like POST
// /api/jobs checks it: a 400 naming the photo, and no product, job or credit.
// A draft refuses more photos rather than silently dropping them.
func TestCreatePhotoProductRefusesBadAngles(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user, other := s.env.User(t), s.env.User(t)
	startTrialFor(t, s, user)
	front := s.uploadID(t, user, jobtest.PNG(t, 64, 64))
	own := s.put(t, user, jobtest.PNG(t, 64, 64))
	theirs := s.put(t, other, jobtest.PNG(t, 64, 64))
	eight := make([]map[string]any, 8)
	for i := range eight {
		eight[i] = map[string]any{"imageURL": own}
	}
	cases := []struct {
		name          string
		generate      bool
		more          any
		code, message string
	}{
		{"someone else's upload", true, []map[string]any{{"imageURL": own}, {"imageURL": theirs}}, "invalid_image_url", "Photo 3: Choose a photo you uploaded to Photo3D."},
		{"an outside URL", true, []map[string]any{{"imageURL": "https://images.example.com/vase.png"}}, "invalid_image_url", "Photo 2: Choose a photo you uploaded to Photo3D."},
		{"eight more", true, eight, "too_many_images", "A build takes at most 8 photos: the first and up to 7 more."},
		{"azimuth out of range", true, []map[string]any{{"imageURL": own, "azimuth": -5}}, "invalid_azimuth", "Photo 2: An azimuth must be a number of degrees from 0 to 360."},
		{"draft", false, []map[string]any{{"imageURL": own}}, "draft_more_images", `More angles are used when the 3D model is generated. Choose "Generate 3D now", or remove the extra photos to save a draft.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
			pc := s.eventCount(t, "product.created.v1")
			rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": "Vase", "uploadId": front,
				"generate": c.generate, "moreImages": c.more})
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			require.Equal(t, c.code, r.Error.Code)
			require.Equal(t, c.message, r.Error.Message)
			require.Equal(t, q, s.eventCount(t, "job.queued.v1"))
			require.Equal(t, res, s.eventCount(t, "subscription.credits_reserved.v1"))
			require.Equal(t, pc, s.eventCount(t, "product.created.v1"), "no product")
		})
	}
}
