package catalog_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/eventstore/committest"
)

// The catalogue's writes answer what they wrote even when the connection is
// lost right after their COMMIT (committest.CutAfterCommit): a product made and
// built, a rebuild and a new photo (each a build and its credits), an edit, a
// variant, a catalog and a gallery. Read back after the COMMIT instead, each
// answered an error for a change that was made, and a retry made it twice.
func TestCatalogueWritesAnswerWhatTheyCommittedWhenTheConnectionIsLostRightAfter(t *testing.T) {
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	builds := func() (n int64) {
		t.Helper()
		require.NoError(t, s.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = $1`, user).Scan(&n))
		return n
	}
	// cut runs one write under a context cut after its COMMIT.
	cut := func(name string, write func(ctx context.Context) error) {
		t.Helper()
		c := committest.CutAfterCommit(ctx)
		require.NoError(t, write(c), "%s: made, so answered", name)
		require.Error(t, c.Err(), "%s: the connection was cut after the COMMIT", name)
	}

	var p catalog.Product
	cut("a product built from its photo", func(c context.Context) (err error) {
		p, err = s.svc.CreateProduct(c, user, catalog.NewProduct{Name: "Lamp", UploadID: s.photo(t, user), Generate: true})
		return err
	})
	require.Equal(t, catalog.StatusProcessing, p.Status)
	require.NotEmpty(t, p.JobID)
	require.Equal(t, int64(1), builds())

	s.finish(t, p.JobID, catalog.StatusError)
	first := p.JobID
	cut("its rebuild", func(c context.Context) (err error) {
		p, err = s.svc.RebuildProduct(c, user, p.ID)
		return err
	})
	require.NotEqual(t, first, p.JobID, "the answer names the new build")
	require.Equal(t, int64(2), builds())

	s.finish(t, p.JobID, catalog.StatusReady)
	cut("a new photo", func(c context.Context) (err error) {
		p, err = s.svc.ReplacePhoto(c, user, p.ID, s.photo(t, user))
		return err
	})
	require.Equal(t, catalog.StatusProcessing, p.Status)
	require.Equal(t, int64(3), builds())

	name := "Desk lamp"
	cut("an edit", func(c context.Context) (err error) {
		p, err = s.svc.UpdateProduct(c, user, p.ID, catalog.ProductPatch{Name: &name})
		return err
	})
	require.Equal(t, name, p.Name)

	variant := "Brass"
	cut("a variant", func(c context.Context) (err error) {
		p, _, err = s.svc.AddVariant(c, user, p.ID, catalog.VariantInput{Name: &variant})
		return err
	})
	require.Equal(t, variant, p.Config.Variants[len(p.Config.Variants)-1].Name)

	var cat catalog.Catalog
	cut("a catalog", func(c context.Context) (err error) {
		cat, err = s.svc.CreateCatalog(c, user, "Lighting", "")
		return err
	})
	require.Equal(t, "Lighting", cat.Name)

	var g catalog.Gallery
	var in []catalog.Product
	cut("a gallery", func(c context.Context) (err error) {
		g, in, err = s.svc.CreateGallery(c, user, catalog.NewGallery{Name: "Lamps", ProductIDs: []string{p.ID}})
		return err
	})
	require.Equal(t, "Lamps", g.Name)
	require.Len(t, in, 1)
	require.Equal(t, p.ID, in[0].ID)
}
