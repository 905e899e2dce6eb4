package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
)

// TestGalleryOwnTagsColourAndCounts: tags sent at creation are the
// gallery's own (not its cover's), the tile colour is the merchant's or a
// stable default, and the counts say how many products it holds and how
// many of them a shopper can see in 3D.
func TestGalleryOwnTagsColourAndCounts(t *testing.T) {
	t.Parallel()
	s := setup(t)
	user := s.env.User(t)
	s.trial(t, user)
	ready, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Vase", BlueprintID: s.blueprint(t, user, catalog.StatusReady)})
	require.NoError(t, err)
	tags := []string{"ceramics"}
	_, err = s.svc.UpdateProduct(ctx, user, ready.ID, catalog.ProductPatch{Tags: &tags})
	require.NoError(t, err)
	failed, err := s.svc.CreateProduct(ctx, user, catalog.NewProduct{Name: "Cup", BlueprintID: s.blueprint(t, user, catalog.StatusError)})
	require.NoError(t, err)

	g, _, err := s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Spring", ProductIDs: []string{ready.ID, failed.ID},
		Tags: []string{" New  season ", "new season", "Gifts"}})
	require.NoError(t, err)
	require.Equal(t, []string{"New season", "Gifts"}, g.Tags, "the gallery's own tags, cleaned like a product's")
	require.Equal(t, 2, g.ProductCount)
	require.Equal(t, 1, g.AssetCount, "only the ready product has a 3D model")
	require.Empty(t, g.ThumbnailColor, "no colour chosen")
	def := catalog.GalleryColor(g.ID, g.ThumbnailColor)
	require.Contains(t, catalog.GalleryPalette, def)
	require.Equal(t, def, catalog.GalleryColor(g.ID, ""), "the default is stable")

	color, none := "#1e293b", []string{}
	g, _, err = s.svc.UpdateGallery(ctx, user, g.ID, catalog.GalleryPatch{ThumbnailColor: &color, Tags: &none})
	require.NoError(t, err)
	require.Equal(t, "#1E293B", g.ThumbnailColor)
	require.Equal(t, catalog.OverlayLight, catalog.GalleryOverlay(g.ThumbnailColor), "white reads on a dark tile")
	require.Empty(t, g.Tags)
	list, _, err := s.svc.Galleries(ctx, user, catalog.ListParams{Sort: "newest", Page: 1, PageSize: 10})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, 1, list[0].AssetCount)
	require.Equal(t, "#1E293B", list[0].ThumbnailColor)

	bad := "teal"
	_, _, err = s.svc.UpdateGallery(ctx, user, g.ID, catalog.GalleryPatch{ThumbnailColor: &bad})
	require.True(t, fault.IsKind(err, fault.Invalid), "got %v", err)
	_, _, err = s.svc.CreateGallery(ctx, user, catalog.NewGallery{Name: "Bad", ThumbnailColor: "#12345"})
	require.True(t, fault.IsKind(err, fault.Invalid), "got %v", err)
}

func TestGalleryOverlayContrast(t *testing.T) {
	t.Parallel()
	for _, c := range catalog.GalleryPalette {
		require.Equal(t, catalog.OverlayDark, catalog.GalleryOverlay(c), "palette %s is light", c)
	}
	require.Equal(t, catalog.OverlayLight, catalog.GalleryOverlay("#000000"))
	require.Equal(t, catalog.OverlayDark, catalog.GalleryOverlay("#FFFFFF"))
	require.Equal(t, catalog.OverlayLight, catalog.GalleryOverlay("#4F46E5"))
}
