package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/gif"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// galleryStack is a trial merchant with published products in a published
// gallery: the public side of security review 3's M5 and L1.
type galleryStack struct {
	productPubStack
	user, slug string
}

// publishedGallery publishes each product (gated ones behind the email
// gate) and a gallery of them, in that order.
func publishedGallery(t *testing.T, s productPubStack, user string, products []string, gated map[string]bool) galleryStack {
	t.Helper()
	startTrialFor(t, s.creationStack, user)
	for _, id := range products {
		s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": gated[id]})
	}
	g := decodeAs[struct {
		ID string `json:"id"`
	}](t, s.ok(t, user, "POST", "/api/galleries", map[string]any{"name": "Summer edit", "productIds": products}))
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/galleries/"+g.ID+"/publish", nil))
	return galleryStack{productPubStack: s, user: user, slug: pub.Slug}
}

// from requests a public URL from ip with the given User-Agent and headers
// (pairs), as a browser on some page (or a script) would.
func (s galleryStack) from(t *testing.T, path, ip, ua string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = net.JoinHostPort(ip, "40000")
	req.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

const shopperUA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0"

// Security review 3, M5: every GET of a gallery page spent one of the
// owner's paid views, from any site (an <img> or a hidden iframe on another
// site's pages), and one address spent 20 per window by changing its
// User-Agent. The page GET now spends nothing, whoever asks.
func TestSecurityGalleryGETSpendsNoViews(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, live := s.readyProduct(t, "Vase")
	g := publishedGallery(t, s, user, []string{live}, nil)
	before := s.viewsConsumed(t, user)

	// Another site's <img src="/g/{slug}">, seen by ten visitors.
	for i := range 10 {
		rec := g.from(t, "/g/"+g.slug, fmt.Sprintf("203.0.113.%d", 100+i), shopperUA,
			"Referer", "https://attacker.example/", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image")
		require.Equal(t, http.StatusOK, rec.Code)
	}
	// One address rotating its User-Agent, on the page and its embed.
	for i := range 30 {
		path := "/g/" + g.slug
		if i%2 == 1 {
			path += "/embed"
		}
		require.Equal(t, http.StatusOK, g.from(t, path, "198.51.100.200", fmt.Sprintf("ua-%d", i)).Code)
	}
	require.Equal(t, before, s.viewsConsumed(t, user), "a gallery page GET spends none of the owner's views")
}

var galleryBeacon = regexp.MustCompile(`<img class="p3d-beacon" src="([^"]+)"`)

// beaconOf is the view beacon URL a gallery page (or its embed) carries.
func (s galleryStack) beaconOf(t *testing.T, path string) string {
	t.Helper()
	rec := s.from(t, path, "192.0.2.1", shopperUA)
	require.Equal(t, http.StatusOK, rec.Code)
	m := galleryBeacon.FindStringSubmatch(rec.Body.String())
	require.NotNil(t, m, "the page carries its view beacon: %s", rec.Body.String())
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// Security review 3, M5 (the fix): a gallery view is counted only by the
// page's view beacon, an image our page loads, carrying the page's signed
// view token; a request for it from another site, without the token, with a
// forged or another page's token, or not as an image is refused and spends
// nothing.
func TestSecurityGalleryViewBeaconNeedsOurPageAndToken(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, live := s.readyProduct(t, "Vase")
	g := publishedGallery(t, s, user, []string{live}, nil)
	other := publishedGallery(t, s, s.env.User(t), nil, nil)
	beacon := g.beaconOf(t, "/g/"+g.slug)
	require.True(t, strings.HasPrefix(beacon, "/g/"+g.slug+"/view.gif?t="), beacon)
	ourPage := "http://example.com/g/" + g.slug // httptest's Host: our own origin
	asImage := []string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Dest", "image", "Referer", ourPage}
	before := s.viewsConsumed(t, user)

	refused := map[string]*httptest.ResponseRecorder{
		"another site's <img>": g.from(t, beacon, "203.0.113.1", shopperUA,
			"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image", "Referer", "https://attacker.example/"),
		"another site, no referrer":  g.from(t, beacon, "203.0.113.2", shopperUA, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image"),
		"typed into the address bar": g.from(t, beacon, "203.0.113.3", shopperUA, "Sec-Fetch-Site", "none", "Sec-Fetch-Dest", "document"),
		"opened as a document":       g.from(t, beacon, "203.0.113.4", shopperUA, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Dest", "document", "Referer", ourPage),
		"old browser, no referrer":   g.from(t, beacon, "203.0.113.5", shopperUA),
		"old browser, other site":    g.from(t, beacon, "203.0.113.6", shopperUA, "Referer", "https://attacker.example/"),
		"no token":                   g.from(t, "/g/"+g.slug+"/view.gif", "203.0.113.7", shopperUA, asImage...),
		"forged token":               g.from(t, "/g/"+g.slug+"/view.gif?t=9999999999.AAAAAAAAAAAAAAAAAAAAAA", "203.0.113.8", shopperUA, asImage...),
		"another gallery's token":    g.from(t, "/g/"+g.slug+"/view.gif?t="+strings.SplitN(other.beaconOf(t, "/g/"+other.slug), "?t=", 2)[1], "203.0.113.9", shopperUA, asImage...),
	}
	for why, rec := range refused {
		require.Equal(t, http.StatusForbidden, rec.Code, why)
	}
	require.Equal(t, before, s.viewsConsumed(t, user), "refused beacons spend nothing")

	// Our page's image: one counted view, and a reload is the same viewer.
	rec := g.from(t, beacon, "198.51.100.10", shopperUA, asImage...)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "image/gif", rec.Header().Get("Content-Type"))
	pixel, err := gif.Decode(bytes.NewReader(rec.Body.Bytes()))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 1, 1), pixel.Bounds())
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	require.Equal(t, "same-origin", rec.Header().Get("Cross-Origin-Resource-Policy"))
	require.Equal(t, before+1, s.viewsConsumed(t, user))
	require.Equal(t, http.StatusOK, g.from(t, beacon, "198.51.100.10", shopperUA, asImage...).Code)
	require.Equal(t, before+1, s.viewsConsumed(t, user), "a reload counts once")
	// The embed's image (our page inside another site's frame), and a
	// browser that sends no Sec-Fetch-* but our page as its referrer.
	embedBeacon := g.beaconOf(t, "/g/"+g.slug+"/embed")
	require.Equal(t, http.StatusOK, g.from(t, embedBeacon, "198.51.100.11", shopperUA,
		"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Dest", "image", "Referer", ourPage+"/embed").Code)
	require.Equal(t, http.StatusOK, g.from(t, beacon, "198.51.100.12", shopperUA, "Referer", ourPage).Code)
	require.Equal(t, before+3, s.viewsConsumed(t, user))
}

// Security review 3, L1: the gallery's tile route served a gated product's
// full poster (the picture the email gate trades for an address) at
// /g/{slug}/t/{n}.png, though the page left the tile out. Every spelling of
// that tile's index is now 404, and only the open product's tile is served.
func TestSecurityGalleryTileHidesGatedPoster(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, gated := s.readyProduct(t, "Puffin")
	open := s.productFor(t, user, "Vase")
	posters := map[string][]byte{}
	for _, id := range []string{gated, open} {
		var pd struct {
			BlueprintID string `json:"blueprintId"`
		}
		require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+id, nil), &pd))
		posters[id] = []byte("\x89PNG\r\n\x1a\nposter of " + id)
		require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+pd.BlueprintID+"/thumbnail.png", posters[id], nil))
	}
	g := publishedGallery(t, s, user, []string{gated, open}, map[string]bool{gated: true})

	page := g.from(t, "/g/"+g.slug, "192.0.2.1", shopperUA).Body.String()
	require.NotContains(t, page, "/t/0.png", "the page shows no tile picture of the gated product")
	require.Contains(t, page, "/t/1.png")
	for _, file := range []string{"0.png", "00.png", "+0.png", "0", "0.jpg"} {
		for _, method := range []string{"GET", "HEAD"} {
			req := httptest.NewRequest(method, "/g/"+g.slug+"/t/"+file, nil)
			rec := httptest.NewRecorder()
			s.h.ServeHTTP(rec, req)
			require.Equal(t, http.StatusNotFound, rec.Code, "%s /t/%s of the gated product", method, file)
			require.NotContains(t, rec.Body.String(), string(posters[gated]))
		}
	}
	rec := g.from(t, "/g/"+g.slug+"/t/1.png", "192.0.2.1", shopperUA)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, posters[open], rec.Body.Bytes())
}
