package httpapi_test

import (
	"bytes"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/channels/oembed"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

var oembedLink = regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)" title="([^"]*)">`)

// Issue 32, item 4: a consumer given a share link finds the discovery tag on
// the page, asks the endpoint it names and gets a "rich" answer whose html
// is our iframe, sized to the box it asked for, with the poster as
// thumbnail. Other sites' URLs, unpublished pages and pages whose owner ran
// out of views answer 404; XML is 501, as the oEmbed spec says.
func TestOEmbedDiscoveryAndAnswer(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	_, bp, p := b.published(t, `Rocking <chair> & "stool"`)
	// A real poster, so the answer can give its size.
	var poster bytes.Buffer
	require.NoError(t, png.Encode(&poster, image.NewRGBA(image.Rect(0, 0, 64, 48))))
	it := b.Bucket.List(&blob.ListOptions{Prefix: "thumbnails/" + bp + "/"})
	obj, err := it.Next(b.Ctx)
	require.NoError(t, err)
	require.NoError(t, b.Bucket.WriteAll(b.Ctx, obj.Key, poster.Bytes(), nil))

	for _, page := range []string{"/v/" + p.Slug, "/embed/" + p.Slug} {
		rec := b.view(t, "GET", page, "192.0.2.1", browserUA)
		require.Equal(t, http.StatusOK, rec.Code)
		m := oembedLink.FindStringSubmatch(rec.Body.String())
		require.NotNil(t, m, "%s carries the oEmbed discovery tag", page)
		require.Equal(t, `Rocking &lt;chair&gt; &amp; &#34;stool&#34;`, m[2])
		require.Equal(t, publishtest.BaseURL+"/oembed?url="+url.QueryEscape(p.ShareURL)+"&format=json", html.UnescapeString(m[1]))
	}
	ask := func(q string) (*http.Response, oembed.Response) {
		rec := b.view(t, "GET", "/oembed?"+q, "192.0.2.1", browserUA)
		var out oembed.Response
		if rec.Code == http.StatusOK {
			require.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		}
		return rec.Result(), out
	}

	res, got := ask("url=" + url.QueryEscape(p.ShareURL) + "&format=json")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "1.0", got.Version)
	require.Equal(t, "rich", got.Type)
	require.Equal(t, `Rocking <chair> & "stool"`, got.Title)
	require.Equal(t, "Photo3D", got.ProviderName)
	require.Equal(t, publishtest.BaseURL, got.ProviderURL)
	require.Equal(t, 800, got.Width)
	require.Equal(t, 600, got.Height)
	require.Equal(t, `<iframe src="`+p.EmbedURL+`?utm_source=oembed" title="Rocking &lt;chair&gt; &amp; &#34;stool&#34; in 3D" width="800" height="600" style="display:block;width:100%;max-width:800px;height:auto;aspect-ratio:800/600;border:0" loading="lazy" allow="fullscreen; xr-spatial-tracking" allowfullscreen></iframe>`, got.HTML)
	require.Regexp(t, `^`+regexp.QuoteMeta(publishtest.BaseURL+"/v/"+p.Slug+"/poster.png?v=")+`[0-9a-f]{12}$`, got.ThumbnailURL)
	require.Equal(t, 64, got.ThumbnailWidth)
	require.Equal(t, 48, got.ThumbnailHeight)

	// The box: a narrow column keeps 4:3; a short one too; the embed URL works as input.
	_, got = ask("url=" + url.QueryEscape(p.EmbedURL) + "&maxwidth=400")
	require.Equal(t, [2]int{400, 300}, [2]int{got.Width, got.Height})
	require.Contains(t, got.HTML, `width="400" height="300"`)
	// Responsive within that box (issue 50 item 5): the column's width, at most 400 px, at 4:3.
	require.Contains(t, got.HTML, `style="display:block;width:100%;max-width:400px;height:auto;aspect-ratio:400/300;border:0"`)
	_, got = ask("url=" + url.QueryEscape(p.ShareURL+"?variant=v2") + "&maxwidth=700&maxheight=240")
	require.Equal(t, [2]int{320, 240}, [2]int{got.Width, got.Height})

	for q, status := range map[string]int{
		"url=" + url.QueryEscape(p.ShareURL) + "&format=xml":                                http.StatusNotImplemented,
		"url=" + url.QueryEscape(p.ShareURL) + "&maxwidth=wide":                             http.StatusBadRequest,
		"url=" + url.QueryEscape(strings.Replace(p.ShareURL, "://", "://evil.example@", 1)): http.StatusNotFound,
		"url=" + url.QueryEscape("https://evil.example/v/"+p.Slug):                          http.StatusNotFound,
		"url=" + url.QueryEscape(publishtest.BaseURL+"/v/AAAAAAAAAAAAAAAAAAAAAA"):           http.StatusNotFound,
		"url=" + url.QueryEscape(publishtest.BaseURL+"/api/products"):                       http.StatusNotFound,
		"": http.StatusNotFound,
	} {
		res, _ := ask(q)
		require.Equal(t, status, res.StatusCode, q)
	}

	// Views run out: the page shows its notice, and no consumer gets a new embed.
	owner3 := b.Owner(t, "trial")
	p3 := b.Publish(t, owner3, b.Blueprint(t, owner3, "Lamp"))
	b.Downgrade(t, owner3)
	b.SetViewBalance(t, owner3, 1)
	res, _ = ask("url=" + url.QueryEscape(p3.ShareURL))
	require.Equal(t, http.StatusOK, res.StatusCode, "one view left")
	b.look(t, "/v/"+p3.Slug, "192.0.2.1", browserUA, "viewer-oembed-000001")
	require.Contains(t, b.view(t, "GET", "/v/"+p3.Slug, "192.0.2.2", browserUA).Body.String(), unavailable)
	res, _ = ask("url=" + url.QueryEscape(p3.ShareURL))
	require.Equal(t, http.StatusNotFound, res.StatusCode, "exhausted")

	// Unpublished: 404 too.
	owner2, _, p2 := b.published(t, "Stool")
	res, _ = ask("url=" + url.QueryEscape(p2.ShareURL))
	require.Equal(t, http.StatusOK, res.StatusCode)
	rec, _ := b.call(t, owner2, "DELETE", "/api/publications/"+p2.ID, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	res, _ = ask("url=" + url.QueryEscape(p2.ShareURL))
	require.Equal(t, http.StatusNotFound, res.StatusCode, "unpublished")
}
