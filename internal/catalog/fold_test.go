package catalog_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
)

var t0 = time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)

func at(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }

func TestFoldProductDerivesStatusFromTheCurrentBuild(t *testing.T) {
	t.Parallel()
	created := events.ProductCreated{ProductID: "p", UserID: "u", CatalogID: "c", Name: "Vase", Source: "blueprint", At: at(0)}
	for _, c := range []struct {
		name                       string
		evs                        []events.Event
		status, reason, thumb, job string
		builds                     int
	}{
		{"attached to a finished blueprint", []events.Event{
			events.JobQueued{JobID: "j1", At: at(-5)},
			events.JobCompleted{JobID: "j1", ModelKey: "m1", ThumbnailKey: "t1", At: at(-1)},
			created, events.ProductModelAttached{ProductID: "p", JobID: "j1", At: at(0)},
		}, "ready", "", "t1", "j1", 1},
		{"attached while building, then it fails", []events.Event{
			events.JobQueued{JobID: "j1", At: at(-5)}, created,
			events.ProductModelAttached{ProductID: "p", JobID: "j1", At: at(0)},
			events.JobFailed{JobID: "j1", Reason: "Bad photo.", At: at(2)},
		}, "error", "Bad photo.", "", "j1", 1},
		{"a rebuild is processing until its job ends", []events.Event{
			events.JobQueued{JobID: "j1", At: at(-5)},
			events.JobCompleted{JobID: "j1", ModelKey: "m1", ThumbnailKey: "t1", At: at(-1)},
			created, events.ProductModelAttached{ProductID: "p", JobID: "j1", At: at(0)},
			events.JobQueued{JobID: "j2", At: at(3)},
			events.ProductBuildStarted{ProductID: "p", JobID: "j2", At: at(3)},
		}, "processing", "", "", "j2", 2},
		{"the old build's late failure does not touch the product", []events.Event{
			events.JobQueued{JobID: "j1", At: at(-5)}, created,
			events.ProductModelAttached{ProductID: "p", JobID: "j1", At: at(0)},
			events.JobQueued{JobID: "j2", At: at(1)},
			events.ProductBuildStarted{ProductID: "p", JobID: "j2", At: at(1)},
			events.JobCompleted{JobID: "j2", ModelKey: "m2", ThumbnailKey: "t2", At: at(4)},
			events.JobFailed{JobID: "j1", Reason: "late", At: at(5)},
		}, "ready", "", "t2", "j2", 2},
		{"completed is sticky", []events.Event{
			events.JobQueued{JobID: "j1", At: at(-5)}, created,
			events.ProductModelAttached{ProductID: "p", JobID: "j1", At: at(0)},
			events.JobCompleted{JobID: "j1", ModelKey: "m1", ThumbnailKey: "t1", At: at(2)},
			events.JobFailed{JobID: "j1", Reason: "duplicate delivery", At: at(3)},
		}, "ready", "", "t1", "j1", 1},
	} {
		p, ok := catalog.FoldProduct(c.evs)
		require.True(t, ok, c.name)
		require.Equal(t, c.status, p.Status, c.name)
		require.Equal(t, c.reason, p.FailureReason, c.name)
		require.Equal(t, c.thumb, p.ThumbnailKey, c.name)
		require.Equal(t, c.job, p.JobID, c.name)
		require.Len(t, p.Builds, c.builds, c.name)
	}

	p, _ := catalog.FoldProduct([]events.Event{created,
		events.ProductRenamed{ProductID: "p", Name: "Tall vase", At: at(1)},
		events.ProductDetailsEdited{ProductID: "p", Description: "d", ProductURL: "https://x.example", Tags: []string{"a"}, At: at(2)},
		events.ProductMoved{ProductID: "p", CatalogID: "c2", FromCatalogID: "c", At: at(3)},
		events.ProductDeleted{ProductID: "p", At: at(4)},
	})
	require.Equal(t, "Tall vase", p.Name)
	require.Equal(t, []string{"a"}, p.Tags)
	require.Equal(t, "c2", p.CatalogID)
	require.Equal(t, at(4), *p.DeletedAt)
	require.Equal(t, at(0), p.CreatedAt)
	require.Equal(t, at(4), p.UpdatedAt)

	_, ok := catalog.FoldProduct([]events.Event{events.JobQueued{JobID: "j"}})
	require.False(t, ok, "no product before product.created")
}

func TestFoldCatalogAndGallery(t *testing.T) {
	t.Parallel()
	c, ok := catalog.FoldCatalog([]events.Event{
		events.CatalogCreated{CatalogID: "c", UserID: "u", Name: "Default catalog", IsDefault: true, At: at(0)},
		events.CatalogRenamed{CatalogID: "c", Name: "Main", At: at(1)},
		events.CatalogDescriptionChanged{CatalogID: "c", Description: "All", At: at(2)},
	})
	require.True(t, ok)
	require.Equal(t, catalog.Catalog{ID: "c", UserID: "u", Name: "Main", Description: "All", IsDefault: true,
		CreatedAt: at(0), UpdatedAt: at(2)}, c)

	g, ok := catalog.FoldGallery([]events.Event{
		events.GalleryCreated{GalleryID: "g", UserID: "u", Name: "Spring", At: at(0)},
		events.GalleryProductsSet{GalleryID: "g", ProductIDs: []string{"a", "b"}, At: at(1)},
		events.GalleryCoverChosen{GalleryID: "g", ProductID: "b", At: at(2)},
		events.GalleryDescribed{GalleryID: "g", Description: "New season", At: at(3)},
	})
	require.True(t, ok)
	require.Equal(t, []string{"a", "b"}, g.ProductIDs)
	require.Equal(t, "b", g.CoverProductID)
	require.Equal(t, "New season", g.Description)

	g, _ = catalog.FoldGallery([]events.Event{
		events.GalleryCreated{GalleryID: "g", UserID: "u", Name: "Spring", At: at(0)},
		events.GalleryProductsSet{GalleryID: "g", ProductIDs: []string{"a", "b"}, At: at(1)},
		events.GalleryCoverChosen{GalleryID: "g", ProductID: "b", At: at(2)},
		events.GalleryProductsSet{GalleryID: "g", ProductIDs: []string{"a"}, At: at(3)},
		events.GalleryRenamed{GalleryID: "g", Name: "Summer", At: at(4)},
		events.GalleryDeleted{GalleryID: "g", At: at(5)},
	})
	require.Equal(t, "", g.CoverProductID, "a cover removed from the gallery is cleared")
	require.Equal(t, "Summer", g.Name)
	require.NotNil(t, g.DeletedAt)
}
