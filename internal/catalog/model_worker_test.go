package catalog_test

import (
	"context"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/job/jobtest"
	"github.com/photo3d/photo3d/internal/reconstruct"
)

// TestModelSubmissionOfADeletedProduct: a product deleted while its model
// waits for the worker gets no model; the submission says why and every
// file (the uploaded ones and the prepared ones) is gone.
func TestModelSubmissionOfADeletedProduct(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	svc := s.svc.WithModels(s.env.Blobs, 0).WithRiver(s.env.River)
	p, err := svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Jug", UploadID: s.photo(t, user)})
	require.NoError(t, err)
	res, err := reconstruct.NewBuiltin().Reconstruct(ctx, jobtest.PNG(t, 64, 48), reconstruct.Options{}, nil)
	require.NoError(t, err)
	sub, err := svc.SubmitModel(ctx, user, p.ID, []reconstruct.ModelFile{{Name: "jug.glb", Data: res.GLB}})
	require.NoError(t, err)
	require.Equal(t, catalog.ModelPending, sub.Status)
	require.NoError(t, svc.DeleteProduct(ctx, user, p.ID))

	w := &catalog.PrepareModelWorker{DB: s.env.DB.Pool, Store: s.env.Store, Blobs: s.env.Blobs}
	require.NoError(t, w.Work(ctx, &river.Job[catalog.PrepareModelArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 2},
		Args: catalog.PrepareModelArgs{SubmissionID: sub.ID}}))
	got, err := svc.ModelSubmission(ctx, user, p.ID, sub.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.ModelFailed, got.Status)
	require.Equal(t, "Product not found.", got.Message)
	for _, prefix := range []string{"models/" + user + "/", "model-sources/"} {
		it := s.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: prefix})
		_, err := it.Next(context.Background())
		require.Error(t, err, "nothing left under %s", prefix)
	}
	_, err = svc.ModelSubmission(ctx, s.env.User(t), p.ID, sub.ID)
	require.ErrorIs(t, err, catalog.ErrModelSubmissionNotFound, "someone else's submission")
}

// Security review 3, L7: a model whose preparation ends after its
// merchant asked for the account to be erased is not recorded (the
// erasure blanks file names in the log, and a product.model_uploaded.v1
// appended after it would carry one again); its files are deleted.
func TestModelSubmissionOfAnAccountBeingErased(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	svc := s.svc.WithModels(s.env.Blobs, 0).WithRiver(s.env.River)
	p, err := svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Jug", UploadID: s.photo(t, user)})
	require.NoError(t, err)
	res, err := reconstruct.NewBuiltin().Reconstruct(ctx, jobtest.PNG(t, 64, 48), reconstruct.Options{}, nil)
	require.NoError(t, err)
	sub, err := svc.SubmitModel(ctx, user, p.ID, []reconstruct.ModelFile{{Name: "erika-jug.glb", Data: res.GLB}})
	require.NoError(t, err)
	_, err = s.env.DB.Pool.Exec(ctx, `UPDATE users SET erasure_requested_at = now() WHERE id = $1`, user)
	require.NoError(t, err)

	w := &catalog.PrepareModelWorker{DB: s.env.DB.Pool, Store: s.env.Store, Blobs: s.env.Blobs}
	require.NoError(t, w.Work(ctx, &river.Job[catalog.PrepareModelArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 2},
		Args: catalog.PrepareModelArgs{SubmissionID: sub.ID}}))
	var uploaded int
	require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'product.model_uploaded.v1' AND data->>'productId' = $1`,
		p.ID).Scan(&uploaded))
	require.Zero(t, uploaded)
	got, err := svc.ModelSubmission(ctx, user, p.ID, sub.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.ModelFailed, got.Status)
	for _, prefix := range []string{"models/" + user + "/", "model-sources/"} {
		it := s.env.Blobs.Bucket.List(&blob.ListOptions{Prefix: prefix})
		_, err := it.Next(context.Background())
		require.Error(t, err, "nothing left under %s", prefix)
	}
}
