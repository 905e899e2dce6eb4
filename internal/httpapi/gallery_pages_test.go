package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/publish"
)

// viewsConsumed sums the owner's counted public views written so far.
func (s productPubStack) viewsConsumed(t *testing.T, user string) int64 {
	t.Helper()
	require.NoError(t, s.meter.Flush(context.Background()))
	var n int64
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(), `SELECT coalesce(sum((data->>'amount')::bigint), 0)
		FROM events WHERE type = 'subscription.views_consumed.v1' AND data->>'userId' = $1`, user).Scan(&n))
	return n
}

// productFor makes another ready product (a real GLB) for user.
func (s productPubStack) productFor(t *testing.T, user, name string) string {
	t.Helper()
	bp := s.env.Blueprint(t, user, "ready")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+bp+"/model.glb", glbtest.Model(t), nil))
	rec, r := s.json(t, user, "POST", "/api/products", map[string]any{"name": name, "blueprintId": bp})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	return decodeAs[productReply](t, r.Data).ID
}

// Issue 29 item 14: a gallery can be shared. Its page /g/{slug} is a
// server-rendered grid of the gallery's live products (published ones only),
// each opening its own product page, with an embed and a QR code; a view is
// metered like a product page's; the gallery's text is escaped; unknown and
// unpublished links are 404.
func TestGalleryPublicPage(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, live := s.readyProduct(t, `Vase <script>alert(1)</script>`)
	other := s.productFor(t, user, "Unpublished bowl")
	startTrialFor(t, s.creationStack, user)
	livePub := pubOf(t, s.onHost(t, "photo3d.test", user, "POST", "/api/products/"+live+"/publish", map[string]any{}))

	g := decodeAs[struct {
		ID string `json:"id"`
	}](t, s.ok(t, user, "POST", "/api/galleries", map[string]any{"name": `Summer "edit" <b>`, "description": "Hand-made <i>pieces</i>",
		"productIds": []string{other, live}}))

	// Another merchant cannot publish it; the owner can, once (same link again).
	stranger := s.env.User(t)
	startTrialFor(t, s.creationStack, stranger)
	rec, r := s.json(t, stranger, "POST", "/api/galleries/"+g.ID+"/publish", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	require.Equal(t, "not_found", r.Error.Code)
	rec, r = s.json(t, user, "POST", "/api/galleries/"+g.ID+"/publish", nil)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	pub := decodeAs[publishReply](t, r.Data)
	require.Equal(t, creationBase+"/g/"+pub.Slug, pub.ShareURL)
	require.Equal(t, creationBase+"/g/"+pub.Slug+"/qr.png", pub.QRURL)
	require.Contains(t, pub.EmbedCode, `src="`+creationBase+`/g/`+pub.Slug+`/embed"`)
	rec, r = s.json(t, user, "POST", "/api/galleries/"+g.ID+"/publish", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, pub.Slug, decodeAs[publishReply](t, r.Data).Slug)
	// The gallery screen reads its page with the gallery.
	detail := decodeAs[struct {
		Publication *publishReply `json:"publication"`
	}](t, s.ok(t, user, "GET", "/api/galleries/"+g.ID, nil))
	require.NotNil(t, detail.Publication)
	require.Equal(t, pub.ShareURL, detail.Publication.ShareURL)
	require.Equal(t, pub.EmbedCode, detail.Publication.EmbedCode, "the embed is titled with the gallery's name")
	require.Contains(t, pub.EmbedCode, `title="Summer &#34;edit&#34; &lt;b&gt; in 3D"`)

	before := s.viewsConsumed(t, user)
	page := s.shopper(t, "GET", "/g/"+pub.Slug, "")
	require.Equal(t, http.StatusOK, page.Code)
	require.Equal(t, publish.CSPShare, page.Header().Get("Content-Security-Policy"))
	body := page.Body.String()
	// Only the published product, linking to its own page; the other is never shown.
	tiles := regexp.MustCompile(`<li class="p3d-tile">`).FindAllString(body, -1)
	require.Len(t, tiles, 1)
	require.Contains(t, body, `href="/v/`+livePub.Slug+`"`)
	require.NotContains(t, body, "Unpublished bowl")
	// The server is the authority on what the page shows: an unpublished product stays in
	// the gallery (it joins the page once published) and the gallery's answer says which
	// products are live, which the editor labels "Not shown until published".
	members := decodeAs[struct {
		Products []struct {
			ID   string `json:"id"`
			Live bool   `json:"live"`
		} `json:"products"`
	}](t, s.ok(t, user, "GET", "/api/galleries/"+g.ID, nil)).Products
	require.Len(t, members, 2)
	require.Equal(t, other, members[0].ID)
	require.False(t, members[0].Live, "not on the page, so not live")
	require.Equal(t, live, members[1].ID)
	require.True(t, members[1].Live)
	require.Contains(t, body, `/g/`+pub.Slug+`/t/0.png`)
	// Escaped text, no script at all (the page works without JavaScript).
	require.Contains(t, body, `Summer &#34;edit&#34; &lt;b&gt;`)
	require.Contains(t, body, `Hand-made &lt;i&gt;pieces&lt;/i&gt;`)
	require.Contains(t, body, `Vase &lt;script&gt;alert(1)&lt;/script&gt;`)
	require.NotRegexp(t, `<script(?: type="module")? src=|<script>`, body)
	require.NotContains(t, body, "<b>")
	// Metered by the page's view beacon, not its GET (security review 3, M5):
	// the view counts once; the same viewer's reload does not.
	require.Equal(t, before, s.viewsConsumed(t, user))
	m := galleryBeacon.FindStringSubmatch(body)
	require.NotNil(t, m)
	gs := galleryStack{productPubStack: s}
	for range 2 {
		require.Equal(t, http.StatusOK, gs.from(t, m[1], "203.0.113.7", shopperUA, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Dest", "image").Code)
		require.Equal(t, before+1, s.viewsConsumed(t, user))
	}

	// Thumbnail (the product's poster), QR and embed.
	var pd struct {
		BlueprintID string `json:"blueprintId"`
	}
	require.NoError(t, json.Unmarshal(s.ok(t, user, "GET", "/api/products/"+live, nil), &pd))
	png := []byte("\x89PNG\r\n\x1a\nposter")
	require.NoError(t, s.env.Blobs.Bucket.WriteAll(context.Background(), "models/"+pd.BlueprintID+"/thumbnail.png", png, nil))
	thumb := s.shopper(t, "GET", "/g/"+pub.Slug+"/t/0.png", "")
	require.Equal(t, http.StatusOK, thumb.Code)
	require.Equal(t, png, thumb.Body.Bytes())
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/g/"+pub.Slug+"/t/1.png", "").Code)
	want, err := publish.QRCode(pub.ShareURL)
	require.NoError(t, err)
	require.Equal(t, want, s.shopper(t, "GET", "/g/"+pub.Slug+"/qr.png", "").Body.Bytes())
	embed := s.shopper(t, "GET", "/g/"+pub.Slug+"/embed", "")
	require.Equal(t, http.StatusOK, embed.Code)
	require.Equal(t, publish.CSPEmbed, embed.Header().Get("Content-Security-Policy"))
	require.Contains(t, embed.Body.String(), `href="`+livePub.ShareURL+`" target="_blank" rel="noopener"`)

	// A gallery link is not a 3D page, and unknown links are 404.
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+pub.Slug, "").Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/g/"+livePub.Slug, "").Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/g/AAAAAAAAAAAAAAAAAAAAAA", "").Code)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/g/x", "").Code)

	// Unpublishing the product takes it off the grid; unpublishing the gallery takes the page down.
	s.ok(t, user, "DELETE", "/api/publications/"+livePub.PublicationID, nil)
	body = s.shopper(t, "GET", "/g/"+pub.Slug, "").Body.String()
	require.NotContains(t, body, `<li class="p3d-tile">`)
	require.Contains(t, body, "There is nothing to see in this gallery yet.")
	s.ok(t, user, "DELETE", "/api/publications/"+pub.PublicationID, nil)
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/g/"+pub.Slug, "").Code)
	require.False(t, strings.Contains(s.shopper(t, "GET", "/g/"+pub.Slug, "").Body.String(), "Summer"))
}
