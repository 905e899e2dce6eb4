package catalog_test

import (
	"net/url"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

func mustParams(t *testing.T, query string) catalog.ListParams {
	t.Helper()
	v, err := url.ParseQuery(query)
	require.NoError(t, err)
	p, err := catalog.ParseListParams(v)
	require.NoError(t, err)
	return p
}

func (s stack) photo(t *testing.T, user string) string {
	t.Helper()
	id, err := s.env.Uploads.ParseImageURL(s.env.UploadPhoto(t, user, jobtest.PNG(t, 64, 48)))
	require.NoError(t, err)
	return id
}

// photoProducts appends every photo-product event kind for the replay test:
// a draft that stays one, a draft built later ("Generate 3D now") that
// completes, and a product generated at once whose build fails.
func photoProducts(t *testing.T, s stack, user string) {
	t.Helper()
	draft, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Draft lamp", UploadID: s.photo(t, user)})
	require.NoError(t, err)
	require.Equal(t, catalog.StatusDraft, draft.Status)
	later, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Later vase", UploadID: s.photo(t, user)})
	require.NoError(t, err)
	later, err = s.svc.RebuildProduct(ctx, user, later.ID)
	require.NoError(t, err)
	s.finish(t, later.JobID, catalog.StatusReady)
	now, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Now jug", UploadID: s.photo(t, user), Generate: true})
	require.NoError(t, err)
	s.finish(t, now.JobID, catalog.StatusError)
	// The failed one gets the merchant's own model instead.
	res, err := reconstruct.NewBuiltin().Reconstruct(ctx, jobtest.PNG(t, 64, 48), reconstruct.Options{}, nil)
	require.NoError(t, err)
	sub, err := s.svc.WithModels(s.env.Blobs, 0).WithRiver(s.env.River).SubmitModel(ctx, user, now.ID, []reconstruct.ModelFile{{Name: "jug.glb", Data: res.GLB}})
	require.NoError(t, err)
	w := &catalog.PrepareModelWorker{DB: s.env.DB.Pool, Store: s.env.Store, Blobs: s.env.Blobs}
	require.NoError(t, w.Work(ctx, &river.Job[catalog.PrepareModelArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 2}, Args: catalog.PrepareModelArgs{SubmissionID: sub.ID}}))
	own, err := s.svc.Product(ctx, user, now.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusReady, own.Status)
	require.Equal(t, events.ProductSourceUpload, own.Source)
}

// TestProductsFromAPhoto: draft → Generate 3D now → build → ready; generate
// at creation reserves a credit like POST /jobs and a failed build releases
// it; options without their cutout are refused; the status filter knows
// "draft"; someone else's upload is not found.
func TestProductsFromAPhoto(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user, other := s.env.User(t), s.env.User(t)
	s.trial(t, user)
	credits := func() int64 {
		v, err := s.env.Subs.Get(ctx, s.env.DB.Pool, user)
		require.NoError(t, err)
		require.NotNil(t, v.AICreditBalance)
		return *v.AICreditBalance
	}
	start := credits()
	photo := s.photo(t, user)

	draft, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: " Desk  lamp ", UploadID: photo})
	require.NoError(t, err)
	require.Equal(t, catalog.StatusDraft, draft.Status)
	require.Equal(t, "Draft", catalog.StatusLabel(draft.Status))
	require.Equal(t, "Desk lamp", draft.Name)
	require.Equal(t, events.ProductSourcePhoto, draft.Source)
	require.Empty(t, draft.JobID)
	require.NotEmpty(t, draft.PhotoKey)
	require.Equal(t, start, credits(), "a draft costs nothing")

	page, total, err := s.svc.Products(ctx, user, mustParams(t, "status=draft"))
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, draft.ID, page[0].ID)

	built, err := s.svc.RebuildProduct(ctx, user, draft.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.StatusProcessing, built.Status)
	require.NotEmpty(t, built.JobID)
	require.Equal(t, start-1, credits())
	j, err := s.env.Jobs.Get(ctx, user, built.JobID)
	require.NoError(t, err)
	require.Equal(t, draft.PhotoKey, j.ImageKey, "no cutout options: built from the photo itself")
	bp, ok, err := s.svc.Progress(ctx, built)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, catalog.BuildProgress{Progress: 0, Stage: "Queued", Views: 1}, bp)
	_, err = s.svc.RebuildProduct(ctx, user, draft.ID)
	require.ErrorIs(t, err, catalog.ErrStillBuilding)

	// Generate at once (a credit reserved, as for jobs); the build fails and
	// Retry build builds the same photo again. (The release of a failed
	// build's credit is the worker's, unchanged: see internal/job.)
	gen, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Jug", UploadID: photo, Generate: true})
	require.NoError(t, err)
	require.Equal(t, catalog.StatusProcessing, gen.Status)
	require.Equal(t, start-2, credits())
	s.finish(t, gen.JobID, catalog.StatusError)
	retry, err := s.svc.RebuildProduct(ctx, user, gen.ID)
	require.NoError(t, err)
	require.NotEqual(t, gen.JobID, retry.JobID)
	require.Equal(t, catalog.StatusProcessing, retry.Status)

	// Options need their ready cutout: nothing is created without it.
	_, err = s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Edgy", UploadID: photo, Generate: true, CleanEdges: true})
	require.ErrorIs(t, err, catalog.ErrCutoutNotReady)
	// Someone else's photo, a blank name.
	_, err = s.svc.CreateProduct(ctx, other, catalog.NewProduct{Name: "Mine", UploadID: photo})
	require.Error(t, err)
	require.Contains(t, err.Error(), "not found")
	_, err = s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: " ", UploadID: photo})
	require.Error(t, err)
	_, total, err = s.svc.Products(ctx, user, mustParams(t, ""))
	require.NoError(t, err)
	require.Equal(t, 2, total)
}
