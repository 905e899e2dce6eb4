package catalog_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
)

func faultCode(err error) string {
	var f *fault.Error
	if errors.As(err, &f) {
		return f.Code
	}
	return ""
}

// TestLeatherExcludesFabric: spec §2's rule holds wherever the two meet in
// one variant — the whole-model material or any part.
func TestLeatherExcludesFabric(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		material string
		parts    map[string]string
		code     string
	}{
		{"leather-tan", nil, ""},
		{"fabric-grey", nil, ""},
		{"original", map[string]string{"Upper Body": "leather-tan", "Sole": "matte-black"}, ""},
		{"leather-tan", map[string]string{"Sole": "fabric-grey"}, "leather_excludes_fabric"},
		{"fabric-grey", map[string]string{"Upper Body": "leather-tan"}, "leather_excludes_fabric"},
		{"original", map[string]string{"Upper Body": "leather-tan", "Lining": "fabric-grey"}, "leather_excludes_fabric"},
		{"gold", nil, "invalid_material"},
		{"original", map[string]string{"Sole": "gold"}, "invalid_material"},
		{"original", map[string]string{" Sole": "snow-white"}, "invalid_part"},
	} {
		require.Equal(t, c.code, faultCode(catalog.CheckMaterials(c.material, c.parts)), "%s %v", c.material, c.parts)
	}
}

// TestFoldConfiguration: the Default variant from creation, ids never
// reused after a delete, a variant's links leave with it, changes replace
// the whole item, and updatedAt follows the last event.
func TestFoldConfiguration(t *testing.T) {
	t.Parallel()
	price := 10.0
	evs := []events.Event{
		events.ProductCreated{ProductID: "p", UserID: "u", CatalogID: "c", Name: "Bag", Source: "blueprint", At: at(0)},
		events.ProductVariantAdded{ProductID: "p", VariantID: "v2", VariantSpec: events.VariantSpec{Name: "Variant 2", Material: "snow-white"}, At: at(1)},
		events.ProductLinkAdded{ProductID: "p", LinkID: "l1", URL: "https://amazon.in/dp/1", At: at(2)},
		events.ProductLinkAdded{ProductID: "p", LinkID: "l2", URL: "https://etsy.com/l/1", VariantID: "v2", At: at(3)},
		events.ProductVariantRemoved{ProductID: "p", VariantID: "v2", At: at(4)},
		events.ProductVariantAdded{ProductID: "p", VariantID: "v3", VariantSpec: events.VariantSpec{Name: "Variant 3", Material: "original"}, At: at(5)},
		events.ProductVariantChanged{ProductID: "p", VariantID: "v1", VariantSpec: events.VariantSpec{Name: "Default", Material: "matte-black", SKU: "B-1",
			Price: &price, Currency: "USD"}, At: at(6)},
		events.ProductHotspotPlaced{ProductID: "p", HotspotID: "h1", HotspotSpec: events.HotspotSpec{Position: [3]float64{1, 2, 3},
			Normal: [3]float64{0, 1, 0}, X: 0.5, Y: 0.5, Title: "Point 1"}, At: at(7)},
		events.ProductHotspotMoved{ProductID: "p", HotspotID: "h1", HotspotSpec: events.HotspotSpec{Position: [3]float64{4, 5, 6},
			Normal: [3]float64{1, 0, 0}, X: 0.1, Y: 0.9, Title: "Zip", Text: "YKK"}, At: at(8)},
		events.ProductHotspotPlaced{ProductID: "p", HotspotID: "h2", HotspotSpec: events.HotspotSpec{Normal: [3]float64{0, 1, 0}, Title: "Point 2"}, At: at(9)},
		events.ProductHotspotRemoved{ProductID: "p", HotspotID: "h2", At: at(10)},
		events.ProductPresetsChanged{ProductID: "p", Lighting: "Neutral", Background: "Solid Color", BackgroundColor: "#000000",
			CameraOrbit: "auto auto auto", Autospin: false, At: at(11)},
	}
	p, ok := catalog.FoldProduct(evs)
	require.True(t, ok)
	c := p.Config
	require.Equal(t, []string{"v1", "v3"}, []string{c.Variants[0].ID, c.Variants[1].ID})
	require.Equal(t, 4, c.NextVariant, "v2 is never handed out again")
	require.Equal(t, "matte-black", c.Variants[0].Material)
	require.Equal(t, 10.0, *c.Variants[0].Price)
	require.Equal(t, []catalog.Link{{ID: "l1", URL: "https://amazon.in/dp/1"}}, c.Links)
	require.Equal(t, 3, c.NextLink)
	require.Equal(t, []catalog.Hotspot{{ID: "h1", Position: [3]float64{4, 5, 6}, Normal: [3]float64{1, 0, 0}, X: 0.1, Y: 0.9,
		Title: "Zip", Text: "YKK"}}, c.Hotspots)
	require.Equal(t, 3, c.NextHotspot)
	// An event stored before exposure, poster and the opening variant
	// existed reads as their defaults.
	require.Equal(t, catalog.Presets{Lighting: "Neutral", Background: "Solid Color", BackgroundColor: "#000000",
		CameraOrbit: "auto auto auto", Exposure: 1, Poster: catalog.PosterModel}, c.Presets)
	require.Equal(t, at(11), p.UpdatedAt)

	fresh, _ := catalog.FoldProduct(evs[:1])
	require.Equal(t, catalog.NewConfig(), fresh.Config)
}

func TestConfigurationInputRules(t *testing.T) {
	t.Parallel()
	h, err := catalog.CheckHotspot(catalog.Hotspot{Normal: [3]float64{0, 0, 3}, X: 0, Y: 1, Title: " Point 1 "})
	require.NoError(t, err)
	require.Equal(t, [3]float64{0, 0, 1}, h.Normal, "normals are stored as unit vectors")
	require.Equal(t, "Point 1", h.Title)
	for _, c := range []struct {
		h    catalog.Hotspot
		code string
	}{
		{catalog.Hotspot{Position: [3]float64{2e6, 0, 0}, Normal: [3]float64{0, 1, 0}, Title: "A"}, "invalid_position"},
		{catalog.Hotspot{Normal: [3]float64{0, 1, 0}, X: -0.1, Title: "A"}, "invalid_xy"},
		{catalog.Hotspot{Normal: [3]float64{0, 1, 0}, Title: " "}, "hotspot_title_required"},
	} {
		_, err := catalog.CheckHotspot(c.h)
		require.Equal(t, c.code, faultCode(err))
	}
	for in, want := range map[string]string{
		"amazon.in/dp/1":      "https://amazon.in/dp/1",
		" http://x.example/ ": "http://x.example/",
	} {
		got, err := catalog.CleanLinkURL(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	for _, orbit := range []string{"0deg 75deg 105%", "auto auto auto", "-1.5rad 0.2rad 2.5m", ""} {
		_, err := catalog.CheckPresets(catalog.Presets{Lighting: "Studio", Background: "Transparent", CameraOrbit: orbit})
		require.NoError(t, err, orbit)
	}
	for _, orbit := range []string{"0deg 75deg", "0 75 105", "0deg 75deg 105% x", "0deg 75deg -1m"} {
		_, err := catalog.CheckPresets(catalog.Presets{Lighting: "Studio", Background: "Transparent", CameraOrbit: orbit})
		require.Equal(t, "invalid_camera_orbit", faultCode(err), orbit)
	}
}

// Issue 29 item 19: public pages open a product on the framed default unless
// its merchant saved a camera; the old stored default is no choice.
func TestPublicCameraOrbit(t *testing.T) {
	t.Parallel()
	for stored, want := range map[string]string{
		"":                    catalog.DefaultCameraOrbit,
		"0deg 75deg 105%":     catalog.DefaultCameraOrbit,
		" 0deg  75deg 105% ":  catalog.DefaultCameraOrbit,
		"0deg 75deg 118%":     "0deg 75deg 118%",
		"0.5rad 1.2rad 3.4m":  "0.5rad 1.2rad 3.4m",
		"0deg 75deg 140%":     "0deg 75deg 140%",
		"-1.5rad 0.2rad 2.5m": "-1.5rad 0.2rad 2.5m",
	} {
		require.Equal(t, want, catalog.PublicCameraOrbit(stored), stored)
	}
}
