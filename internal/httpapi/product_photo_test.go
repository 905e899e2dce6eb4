package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/job/jobtest"
)

// Issue 29 item 17: a product's photo can be replaced on the product
// itself: the product is rebuilt from the new photo with one job and one
// credit, and keeps its variants, hotspots and links.
func TestReplaceProductPhoto(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Vase")
	startTrialFor(t, s.creationStack, user)
	s.ok(t, user, "POST", "/api/products/"+id+"/variants", map[string]any{"name": "Black", "material": "matte-black"})
	s.ok(t, user, "POST", "/api/products/"+id+"/hotspots", map[string]any{"position": []float64{0, 0.1, 0}, "normal": []float64{0, 0, 1}, "title": "Glaze"})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.etsy.com/listing/42"})
	before := decodeAs[photoProductReply](t, s.ok(t, user, "GET", "/api/products/"+id, nil))

	photo := s.uploadID(t, user, jobtest.PNG(t, 160, 200))
	q, res := s.eventCount(t, "job.queued.v1"), s.eventCount(t, "subscription.credits_reserved.v1")
	rec, r := s.json(t, user, "POST", "/api/products/"+id+"/photo", map[string]any{"uploadId": photo})
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Equal(t, 1, s.eventCount(t, "job.queued.v1")-q, "one job")
	require.Equal(t, 1, s.eventCount(t, "subscription.credits_reserved.v1")-res, "one credit")
	after := decodeAs[photoProductReply](t, r.Data)
	require.Equal(t, "processing", after.Status)
	require.NotEqual(t, before.JobID, after.JobID)
	require.NotEmpty(t, after.PhotoURL, "the product shows its new photo")
	var cfg struct {
		Variants []struct{ Name string }  `json:"variants"`
		Hotspots []struct{ Title string } `json:"hotspots"`
		Links    []struct{ URL string }   `json:"links"`
	}
	require.NoError(t, json.Unmarshal(r.Data, &cfg))
	require.Len(t, cfg.Variants, 2, "variants kept")
	require.Equal(t, "Glaze", cfg.Hotspots[0].Title, "hotspots kept")
	require.Len(t, cfg.Links, 1, "links kept")

	// While it builds, another photo is refused (no second credit).
	again := s.uploadID(t, user, jobtest.PNG(t, 160, 200))
	rec, r = s.json(t, user, "POST", "/api/products/"+id+"/photo", map[string]any{"uploadId": again})
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "still_building", r.Error.Code)

	// Owner-scoped both ways: another merchant's product, another merchant's photo.
	other := s.env.User(t)
	startTrialFor(t, s.creationStack, other)
	theirs := s.uploadID(t, other, jobtest.PNG(t, 160, 200))
	n := s.eventCount(t, "job.queued.v1")
	rec, _ = s.json(t, other, "POST", "/api/products/"+id+"/photo", map[string]any{"uploadId": theirs})
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, n, s.eventCount(t, "job.queued.v1"))
	otherProduct := s.productFor(t, other, "Their lamp")
	q = s.eventCount(t, "job.queued.v1")
	rec, _ = s.json(t, other, "POST", "/api/products/"+otherProduct+"/photo", map[string]any{"uploadId": photo})
	require.Contains(t, []int{http.StatusNotFound, http.StatusBadRequest}, rec.Code, rec.Body.String())
	require.Equal(t, 0, s.eventCount(t, "job.queued.v1")-q, "no job for refused requests")
}
