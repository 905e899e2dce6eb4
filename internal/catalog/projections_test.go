package catalog_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/notify"
	"github.com/photo3d/photo3d/internal/projection"
	"github.com/photo3d/photo3d/internal/workspace"
)

// TestWorkspaceAndNotificationsLearnProducts runs the worker's async
// projections over a real product history: search and the dashboard's
// recent items find products and galleries with their real status, a
// rebuild's end is announced on the product, and a replay gives the same.
func TestWorkspaceAndNotificationsLearnProducts(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	p, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Walnut stool", BlueprintID: s.blueprint(t, user, catalog.StatusError)})
	require.NoError(t, err)
	p, err = s.svc.RebuildProduct(ctx, user, p.ID)
	require.NoError(t, err)
	s.finish(t, p.JobID, catalog.StatusReady)
	g, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Stools", ProductIDs: []string{p.ID}})
	require.NoError(t, err)

	ws, nt := workspace.NewProjection(), notify.NewProjection()
	runner := projection.NewRunner(s.env.DB.Pool, s.env.Store, projection.Config{BatchSize: 4,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, ws, nt)
	check := func() {
		_, err := runner.Drain(ctx, ws)
		require.NoError(t, err)
		_, err = runner.Drain(ctx, nt)
		require.NoError(t, err)
		reader := workspace.NewReader(s.env.DB.Pool)
		hits, err := reader.Search(ctx, user, "stool")
		require.NoError(t, err)
		byType := map[string]workspace.SearchItem{}
		for _, h := range hits {
			byType[h.Type] = h
		}
		require.Equal(t, "/workspace/product/"+p.ID, byType["Product"].Path)
		require.Equal(t, "/workspace/gallery/"+g.ID, byType["Gallery"].Path)
		recent, err := reader.Recent(ctx, user, 5)
		require.NoError(t, err)
		statuses := map[string]string{}
		for _, it := range recent {
			statuses[it.ID] = it.Status
		}
		require.Equal(t, workspace.StatusReady, statuses[p.ID], "the product follows its rebuild")

		list, err := notify.NewService(s.env.DB.Pool).List(ctx, notify.Alone(user), 50)
		require.NoError(t, err)
		var product *notify.Notification
		for i, n := range list.Items {
			if n.Link != nil && *n.Link == "/workspace/product/"+p.ID {
				product = &list.Items[i]
			}
		}
		require.NotNil(t, product, "a note links to the product")
		require.Equal(t, "Your product is ready in 3D", product.Title)
		require.Contains(t, product.Message, "“Walnut stool” finished building")
	}
	check()
	_, err = runner.Replay(ctx, workspace.ProjectionName)
	require.NoError(t, err)
	_, err = runner.Replay(ctx, notify.ProjectionName)
	require.NoError(t, err)
	check()
}
