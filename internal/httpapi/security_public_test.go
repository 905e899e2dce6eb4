package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/publish"
)

// Item 10 of the security review (see security_test.go for the rest): the
// model file and poster of a publication whose views ran out are not served,
// so fetching them directly is no way around the metered page.
func TestSecurityExhaustedPublicationAssetsAreNotServed(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Rocking chair"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1)

	require.Equal(t, http.StatusOK, b.view(t, "GET", "/v/"+p.Slug+"/model.glb", "192.0.2.1", browserUA).Code, "views left: served")
	rec := b.look(t, "/v/"+p.Slug, "192.0.2.1", browserUA, "viewer-exhausts-000001")
	require.Contains(t, rec.Body.String(), "<model-viewer")
	rec = b.view(t, "GET", "/v/"+p.Slug, "192.0.2.2", browserUA)
	require.Contains(t, rec.Body.String(), unavailable)
	for _, asset := range []string{"/model.glb", "/poster.png"} {
		rec := b.view(t, "GET", "/v/"+p.Slug+asset, "198.51.100.7", browserUA)
		require.Equal(t, http.StatusNotFound, rec.Code, asset)
	}
}

// Item 10 (first half): a publication may name the sites allowed to embed
// it; the embed page's frame-ancestors then lists exactly those (before: any
// site could frame it and spend the owner's views). The list is hostile
// input reaching a response header: paths, wildcards other than a leading
// "*.", header/CSP separators and more than 20 entries are refused; another
// merchant's publication is a 404; [] allows any site again.
func TestSecurityEmbedOriginsLimitFraming(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Rocking chair"))
	frameAncestors := func() string {
		rec := b.view(t, "GET", "/embed/"+p.Slug, "192.0.2.1", browserUA)
		require.Equal(t, http.StatusOK, rec.Code)
		_, fa, _ := strings.Cut(rec.Header().Get("Content-Security-Policy"), "frame-ancestors ")
		return fa
	}
	require.Equal(t, "*", frameAncestors(), "no list: any site, as before")

	path := "/api/publications/" + p.ID + "/embed-origins"
	rec, r := b.call(t, owner, "PUT", path, `{"origins":["https://Shop.Example.com/","http://localhost:3000","https://*.example.org","https://shop.example.com"]}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	got := decode[publish.Publication](t, r.Data)
	require.Equal(t, []string{"https://shop.example.com", "http://localhost:3000", "https://*.example.org"}, got.EmbedOrigins)
	require.Equal(t, "https://shop.example.com http://localhost:3000 https://*.example.org", frameAncestors())
	require.Contains(t, b.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}), "publication.embed_origins_set.v1")

	many := `"https://a.example.com"` + strings.Repeat(`,"https://a.example.com"`, 20)
	for _, body := range []string{
		`{"origins":["https://shop.example.com/embed"]}`,   // a path
		`{"origins":["https://shop.example.com?x=1"]}`,     // a query
		`{"origins":["*"]}`,                                // a bare wildcard
		`{"origins":["https://shop.*.com"]}`,               // a wildcard inside
		`{"origins":["https://*.com"]}`,                    // every .com site
		`{"origins":["https://a.com; script-src *"]}`,      // CSP injection
		`{"origins":["https://a.com\r\nSet-Cookie: x=1"]}`, // header injection
		`{"origins":["javascript:alert(1)"]}`,              // not http(s)
		`{"origins":["https://user@shop.example.com"]}`,    // credentials
		`{"origins":["https://shop.example.com:99999"]}`,   // port out of range
		`{"origins":[` + many + `]}`,                       // 21 entries
		`{}`,                                               // no list
	} {
		rec, _ := b.call(t, owner, "PUT", path, body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", body, rec.Body.String())
	}
	require.Equal(t, "https://shop.example.com http://localhost:3000 https://*.example.org", frameAncestors(), "refused lists change nothing")

	other := b.Owner(t, "trial")
	rec, _ = b.call(t, other, "PUT", path, `{"origins":[]}`)
	require.Equal(t, http.StatusNotFound, rec.Code, "another merchant's publication")

	rec, _ = b.call(t, owner, "PUT", path, `{"origins":[]}`)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "*", frameAncestors(), "[] allows any site again")
}
