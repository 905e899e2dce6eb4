package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
)

// galleryFields is what spec §3 lists for a gallery beyond name and status.
type galleryFields struct {
	ID               string   `json:"id"`
	Tags             []string `json:"tags"`
	ThumbnailColor   string   `json:"thumbnailColor"`
	ThumbnailOverlay string   `json:"thumbnailOverlay"`
	ProductCount     int      `json:"productCount"`
	AssetCount       int      `json:"assetCount"`
}

// Issue 50 item 16 (spec audit creation #149): POST /api/galleries keeps
// the tags sent with it, every gallery has a tile colour and the colour
// drawn over it, and assetCount counts the products shoppers can see in 3D.
func TestGalleryTagsColourAndAssetCount(t *testing.T) {
	t.Parallel()
	s := newCatalogueStack(t)
	user := s.env.User(t)
	startTrialFor(t, s, user)
	product := func(name, end string) string {
		rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": name, "blueprintId": s.env.Blueprint(t, user, end)})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		return decodeAs[galleryFields](t, r.Data).ID
	}
	ready, failed := product("Vase", "ready"), product("Cup", "error")

	rec, r := s.json(t, user, "POST", "/api/galleries", map[string]any{"name": "Spring",
		"productIds": []string{ready, failed}, "tags": []string{"ceramics", "gifts"}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	g := decodeAs[galleryFields](t, r.Data)
	require.Equal(t, []string{"ceramics", "gifts"}, g.Tags)
	require.Equal(t, 2, g.ProductCount)
	require.Equal(t, 1, g.AssetCount)
	require.Contains(t, catalog.GalleryPalette, g.ThumbnailColor)
	require.Equal(t, catalog.OverlayDark, g.ThumbnailOverlay)

	rec, r = s.json(t, user, "PATCH", "/api/galleries/"+g.ID, map[string]any{"thumbnailColor": "#0f172a", "tags": []string{"sale"}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	g = decodeAs[galleryFields](t, r.Data)
	require.Equal(t, "#0F172A", g.ThumbnailColor)
	require.Equal(t, catalog.OverlayLight, g.ThumbnailOverlay)
	require.Equal(t, []string{"sale"}, g.Tags)

	rec, r = s.json(t, user, "GET", "/api/galleries", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	list := decodeAs[struct{ Items []galleryFields }](t, r.Data).Items
	require.Len(t, list, 1)
	require.Equal(t, g, list[0])

	rec, r = s.json(t, user, "PATCH", "/api/galleries/"+g.ID, map[string]any{"thumbnailColor": "blue"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Equal(t, "invalid_thumbnail_color", r.Error.Code)
}
