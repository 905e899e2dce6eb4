package googlefeed_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/channels/googlefeed"
)

func good() googlefeed.Item {
	return googlefeed.Item{ID: "LC-1", Title: "Lounge chair", Description: "Oak.", Link: "https://shop.example/p/1?utm_source=google_shopping",
		ImageLink: "https://p3d.example/v/AAAAAAAAAAAAAAAA/poster.png", Price: "899.00 INR", Availability: "in_stock", Brand: "Acme",
		GroupID: "p1", ModelLink: "https://p3d.example/v/AAAAAAAAAAAAAAAA/ar/v1.commerce.glb"}
}

// Validate is the feed's judge: a good item passes, and each broken rule of
// Google's product data specification is reported.
func TestValidateCatchesEachBrokenRule(t *testing.T) {
	t.Parallel()
	require.Empty(t, googlefeed.Validate(googlefeed.Render("Acme", "https://p3d.example", []googlefeed.Item{good()})))
	for want, edit := range map[string]func(*googlefeed.Item){
		"id has 51 characters":     func(it *googlefeed.Item) { it.ID = strings.Repeat("a", 51) },
		"title has 151 characters": func(it *googlefeed.Item) { it.Title = strings.Repeat("t", 151) },
		"description has 5001":     func(it *googlefeed.Item) { it.Description = strings.Repeat("d", 5001) },
		"brand has 71":             func(it *googlefeed.Item) { it.Brand = strings.Repeat("b", 71) },
		`price "899 rupees"`:       func(it *googlefeed.Item) { it.Price = "899 rupees" },
		`price "899.000 INR"`:      func(it *googlefeed.Item) { it.Price = "899.000 INR" },
		`availability "available"`: func(it *googlefeed.Item) { it.Availability = "available" },
		"link \"ftp://":            func(it *googlefeed.Item) { it.Link = "ftp://shop.example/p/1" },
		"link \"/v/":               func(it *googlefeed.Item) { it.Link = "/v/AAAAAAAAAAAAAAAA" },
		"image_link has 2001":      func(it *googlefeed.Item) { it.ImageLink = "https://p3d.example/" + strings.Repeat("i", 1981) },
		"not a GLB or glTF":        func(it *googlefeed.Item) { it.ModelLink = "https://p3d.example/v/A/ar/v1.usdz" },
		"image_link is required":   func(it *googlefeed.Item) { it.ImageLink = "" },
	} {
		it := good()
		edit(&it)
		errs := googlefeed.Validate(googlefeed.Render("Acme", "https://p3d.example", []googlefeed.Item{it}))
		require.NotEmpty(t, errs, want)
		require.Contains(t, errs[0].Error(), want)
	}
	dup := googlefeed.Validate(googlefeed.Render("Acme", "https://p3d.example", []googlefeed.Item{good(), good()}))
	require.ErrorContains(t, dup[0], `id "LC-1" is not unique`)
	noNS := googlefeed.Validate([]byte(`<rss version="2.0"><channel><title>t</title><link>l</link><description>d</description></channel></rss>`))
	require.ErrorContains(t, noNS[0], "g: prefix")
}
