package httpapi_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

const (
	browserUA   = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
	unavailable = "This 3D view is temporarily unavailable"
)

// view requests a public page as a shopper at ip with user agent ua.
func (b pubBundle) view(t *testing.T, method, path, ip, ua string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = net.JoinHostPort(ip, "40000")
	req.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	return rec
}

// published makes an owner with a published blueprint named name.
func (b pubBundle) published(t *testing.T, name string) (owner, blueprint string, p publish.Publication) {
	t.Helper()
	owner = b.Owner(t, "pro")
	blueprint = b.Blueprint(t, owner, name)
	return owner, blueprint, b.Publish(t, owner, blueprint)
}

// look is a shopper opening a page: the page GET and the viewer script's
// view beacon (what costs the owner a view) with the given viewer id.
func (b pubBundle) look(t *testing.T, path, ip, ua, viewer string) *httptest.ResponseRecorder {
	t.Helper()
	rec := b.view(t, "GET", path, ip, ua)
	if strings.Contains(rec.Body.String(), "<model-viewer") {
		slug := strings.Split(strings.TrimPrefix(strings.TrimPrefix(path, "/v/"), "/embed/"), "/")[0]
		require.Equal(t, http.StatusNoContent, b.beacon(t, slug, ip, ua, viewer).Code)
	}
	return rec
}

// beacon posts a view beacon for slug as viewer from ip.
func (b pubBundle) beacon(t *testing.T, slug, ip, ua, viewer string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	body := fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q,"events":[{"t":"view","at":%d}]}`, slug, viewer, time.Now().UnixMilli())
	return b.postBeacon(body, ip, ua, hdr...)
}

// postBeacon sends one POST /t body from ip as the viewer script does: as
// text/plain, from our origin, with the view token of the slug's page
// (fetched once per slug, as a shopper's browser would) unless the body
// carries a "token" of its own or hdr sets another Origin.
func (b pubBundle) postBeacon(body, ip, ua string, hdr ...string) *httptest.ResponseRecorder {
	if !strings.Contains(body, `"token"`) {
		if m := slugField.FindStringSubmatch(body); m != nil {
			body = `{"token":` + strconv.Quote(b.pageToken(m[1])) + "," + strings.TrimPrefix(body, "{")
		}
	}
	req := httptest.NewRequest("POST", "/t", strings.NewReader(body))
	req.RemoteAddr = net.JoinHostPort(ip, "40000")
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("Origin", "http://example.com") // httptest's Host: our own origin
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	return rec
}

var (
	slugField  = regexp.MustCompile(`"slug":"([A-Za-z0-9_-]+)"`)
	viewToken  = regexp.MustCompile(`<meta name="p3d-view-token" content="([^"]+)">`)
	pageTokens sync.Map // slug → the view token its page rendered
)

// pageToken is the view token in slug's share page ("" when the page has
// none, e.g. the views ran out before its first load).
func (b pubBundle) pageToken(slug string) string {
	if tok, ok := pageTokens.Load(slug); ok {
		return tok.(string)
	}
	req := httptest.NewRequest("GET", "/v/"+slug, nil)
	req.RemoteAddr = "192.0.2.254:40000"
	req.Header.Set("User-Agent", browserUA)
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	m := viewToken.FindStringSubmatch(rec.Body.String())
	if m == nil {
		return ""
	}
	pageTokens.Store(slug, m[1])
	return m[1]
}

func (b pubBundle) used(t *testing.T, owner string) int64 {
	t.Helper()
	require.NoError(t, b.Meter.Flush(b.Ctx))
	return b.Subscription(t, owner).PublicViewsUsed
}

func TestSharePage(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Merchant(t)
	_, err := b.Accounts.UpdateBranding(b.Ctx, owner, "Acme <Home>", "#AA3300")
	require.NoError(t, err)
	var logo bytes.Buffer
	require.NoError(t, png.Encode(&logo, image.NewRGBA(image.Rect(0, 0, 64, 64))))
	_, err = b.Accounts.SetLogo(b.Ctx, owner, logo.Bytes())
	require.NoError(t, err)
	me, err := b.Accounts.Get(b.Ctx, b.DB.Pool, owner)
	require.NoError(t, err)
	bp := b.Blueprint(t, owner, "<script>alert(1)</script>")
	p := b.Publish(t, owner, bp)

	rec := b.view(t, "GET", "/v/"+p.Slug, "198.51.100.1", browserUA)
	require.Equal(t, 200, rec.Code)
	body := rec.Body.String()
	h := rec.Header()
	require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	require.Equal(t, publish.CSPShare, h.Get("Content-Security-Policy"))
	require.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	// Scripts only from this origin: no inline script, no eval (WebAssembly only).
	require.Contains(t, strings.Split(h.Get("Content-Security-Policy"), "; "), "script-src 'self' 'wasm-unsafe-eval'")
	require.Equal(t, "DENY", h.Get("X-Frame-Options"))
	require.Contains(t, h.Get("Cache-Control"), "no-store")

	// The name is text everywhere: no live script, escaped in HTML and JSON-LD.
	require.NotContains(t, body, "<script>alert(1)")
	require.Contains(t, body, "<h1 class=\"p3d-title\">&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
	require.Contains(t, body, `\u003cscript\u003ealert(1)\u003c/script\u003e`)
	require.Contains(t, body, "Acme &lt;Home&gt;")
	require.Contains(t, body, "--brand:#AA3300")
	require.Contains(t, body, `src="/v/`+p.Slug+`/logo?v=`)
	// Every script is same-origin or a data block; none is inline code.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		require.True(t, strings.Contains(tag, `src="/assets/`) || strings.Contains(tag, `type="application/ld+json"`), tag)
	}

	// The viewer: model, poster, camera controls, auto-rotate, AR modes, noscript, QR.
	require.Contains(t, body, `<model-viewer id="viewer" src="/v/`+p.Slug+`/model.glb?v=`)
	require.Contains(t, body, `poster="/v/`+p.Slug+`/poster.png?v=`)
	require.Contains(t, body, `camera-controls auto-rotate camera-orbit="0deg 75deg 118%" max-camera-orbit="auto auto 200%" ar ar-modes="webxr scene-viewer quick-look"`)
	require.Contains(t, body, "<noscript>")
	require.Contains(t, body, "View in your space")
	require.Contains(t, body, `src="/v/`+p.Slug+`/qr.png"`)
	require.Contains(t, body, `<script type="module" src="/assets/viewer-test.js"></script>`)
	require.Contains(t, body, `<link rel="stylesheet" href="/assets/viewer-test.css">`)
	// Sharing previews and structured data.
	require.Contains(t, body, `<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;">`)
	require.Contains(t, body, `<meta property="og:image" content="`+publishtest.BaseURL+`/v/`+p.Slug+`/poster.png?v=`)
	require.Contains(t, body, `<meta property="og:url" content="`+p.ShareURL+`">`)
	require.Contains(t, body, `<meta name="twitter:card" content="summary_large_image">`)
	require.Contains(t, body, `<script type="application/ld+json">`)
	require.Contains(t, body, `"@type":"Product"`)
	require.Contains(t, body, `"@type":"3DModel"`)
	require.Contains(t, body, `"brand":{"@type":"Brand","name":"Acme \u003cHome\u003e"}`)
	// Nothing about the owner but the brand.
	for _, secret := range []string{owner, bp, p.ID, me.Email, "Shop Owner"} {
		require.NotContains(t, body, secret)
	}

	// Assets.
	rec = b.view(t, "GET", "/v/"+p.Slug+"/model.glb", "198.51.100.1", browserUA)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, publishtest.ModelBytes, rec.Body.Bytes())
	require.Equal(t, "model/gltf-binary", rec.Header().Get("Content-Type"))
	require.Equal(t, "same-origin", rec.Header().Get("Cross-Origin-Resource-Policy"))
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"))
	rec = b.view(t, "GET", "/v/"+p.Slug+"/poster.png", "198.51.100.1", "Twitterbot/1.0")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "image/png", rec.Header().Get("Content-Type"))
	require.Equal(t, publishtest.PosterBytes, rec.Body.Bytes())
	rec = b.view(t, "GET", "/v/"+p.Slug+"/logo", "198.51.100.1", browserUA)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "image/png", rec.Header().Get("Content-Type"))
	rec = b.view(t, "GET", "/v/"+p.Slug+"/qr.png", "198.51.100.1", browserUA)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "image/png", rec.Header().Get("Content-Type"))
	require.EqualValues(t, 0, b.used(t, owner), "the page and its assets cost nothing by themselves")
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.1", browserUA, "viewer-share-page-0001").Code)
	require.EqualValues(t, 1, b.used(t, owner), "the viewer's view beacon is the one counted view")
}

// A merchant who never named a brand, or saved the settings form's placeholder as it
// stands, does not show shoppers "Your Brand": the page is titled by the platform and
// claims no brand for the product in its structured data.
func TestSharePageWithoutABrandName(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	never := b.Merchant(t)
	placeholder := b.Merchant(t)
	_, err := b.Accounts.UpdateBranding(b.Ctx, placeholder, "Your Brand", "#AA3300")
	require.NoError(t, err)
	for _, owner := range []string{never, placeholder} {
		p := b.Publish(t, owner, b.Blueprint(t, owner, "Desk lamp"))
		rec := b.view(t, "GET", "/v/"+p.Slug, "198.51.100.3", browserUA)
		require.Equal(t, 200, rec.Code)
		body := rec.Body.String()
		require.NotContains(t, body, "Your Brand")
		require.Contains(t, body, "<title>Desk lamp · Photo3D</title>")
		require.Contains(t, body, `<meta property="og:site_name" content="Photo3D">`)
		require.Contains(t, body, `"@type":"Product"`)
		require.NotContains(t, body, `"@type":"Brand"`, "no brand is claimed for the product")
	}
	rec := b.view(t, "GET", "/v/"+b.Publish(t, placeholder, b.Blueprint(t, placeholder, "Mug")).Slug, "198.51.100.3", browserUA)
	require.Contains(t, rec.Body.String(), "--brand:#AA3300", "the colour the merchant chose still applies")
}

func TestEmbedPage(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner, _, p := b.published(t, "Lamp")
	rec := b.view(t, "GET", "/embed/"+p.Slug, "198.51.100.2", browserUA)
	require.Equal(t, 200, rec.Code)
	require.Equal(t, publish.CSPEmbed, rec.Header().Get("Content-Security-Policy"))
	require.Contains(t, rec.Header().Get("Content-Security-Policy"), "frame-ancestors *")
	require.Empty(t, rec.Header().Get("X-Frame-Options"))
	body := rec.Body.String()
	require.Contains(t, body, `<model-viewer id="viewer" src="/v/`+p.Slug+`/model.glb?v=`)
	require.Contains(t, body, `class="p3d-embed"`)
	require.NotContains(t, body, "p3d-qr", "chromeless: no QR panel")
	require.NotContains(t, body, "<h1")
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.2", browserUA, "viewer-embed-page-0001").Code)
	require.EqualValues(t, 1, b.used(t, owner))
}

func TestUnknownSlugs(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	for _, path := range []string{"/v/AAAAAAAAAAAAAAAAAAAAAA", "/embed/AAAAAAAAAAAAAAAAAAAAAA", "/v/short", "/v/AAAAAAAAAAAAAAAA/model.glb", "/v/AAAAAAAAAAAAAAAA/qr.png"} {
		rec := b.view(t, "GET", path, "198.51.100.3", browserUA)
		require.Equal(t, 404, rec.Code, path)
	}
	rec := b.view(t, "GET", "/v/AAAAAAAAAAAAAAAAAAAAAA", "198.51.100.3", browserUA)
	require.Contains(t, rec.Body.String(), "This link doesn't work any more")
	require.Equal(t, publish.CSPShare, rec.Header().Get("Content-Security-Policy"))
}

func TestWhatCountsAsAView(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner, _, p := b.published(t, "Mug")
	page := "/v/" + p.Slug

	require.Equal(t, 200, b.view(t, "HEAD", page, "203.0.113.1", browserUA).Code)
	for _, bot := range []string{"Googlebot/2.1 (+http://www.google.com/bot.html)", "facebookexternalhit/1.1",
		"Slackbot-LinkExpanding 1.0", "WhatsApp/2.23", "Twitterbot/1.0", "Discordbot/2.0", "LinkedInBot/1.0"} {
		rec := b.view(t, "GET", page, "203.0.113.2", bot)
		require.Equal(t, 200, rec.Code)
		require.Contains(t, rec.Body.String(), "<model-viewer", bot)
		require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "203.0.113.2", bot, "viewer-bot-000000001").Code)
	}
	b.view(t, "GET", page, "203.0.113.3", browserUA, "Sec-Purpose", "prefetch;prerender")
	b.view(t, "GET", page, "203.0.113.3", browserUA, "Purpose", "prefetch")
	for range 3 {
		b.view(t, "GET", page, "203.0.113.3", browserUA)
	}
	require.EqualValues(t, 0, b.used(t, owner), "HEAD, crawlers, prefetches and page loads without the viewer's beacon are free")

	for range 5 {
		require.Equal(t, 200, b.look(t, page, "203.0.113.4", browserUA, "viewer-reloads-000001").Code)
		require.Equal(t, 200, b.look(t, "/embed/"+p.Slug, "203.0.113.4", browserUA, "viewer-reloads-000001").Code)
		b.look(t, page, "203.0.113.4", browserUA+" rotated", "viewer-reloads-000001")
	}
	require.EqualValues(t, 1, b.used(t, owner), "a viewer's reloads within 30 minutes (share page or embed, any User-Agent) count once")
	b.look(t, page, "203.0.113.4", browserUA, "viewer-another-browser")
	b.look(t, page, "203.0.113.5", browserUA, "viewer-reloads-000001")
	require.EqualValues(t, 3, b.used(t, owner), "another browser (viewer id) or address is another viewer")
}

// 200 shoppers at once on a balance of 100: exactly 100 views are counted,
// and once they are, the next shopper sees the notice instead of the model.
func TestMeteringUnderConcurrency(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Rocking chair"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 100)
	// The page's view token, read once while views are left: fetched
	// lazily by 200 shoppers at once, a late fetch could find the balance
	// spent, get the notice (no token) and send a beacon that must be 403.
	require.NotEmpty(t, b.pageToken(p.Slug))

	var models, notices atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/v/" + p.Slug
			if i%3 == 0 {
				path = "/embed/" + p.Slug
			}
			ip := fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)
			// A page served while views are left; its beacon may still find
			// the balance spent by the others (the view then costs nothing).
			b.look(t, path, ip, browserUA, fmt.Sprintf("viewer-concurrent-%04d", i))
		}()
	}
	wg.Wait()
	require.EqualValues(t, 100, b.used(t, owner))
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := b.view(t, "GET", "/v/"+p.Slug, fmt.Sprintf("10.2.%d.%d", i/250, i%250+1), browserUA)
			body := rec.Body.String()
			switch {
			case rec.Code == 200 && strings.Contains(body, "<model-viewer"):
				models.Add(1)
			case rec.Code == 200 && strings.Contains(body, unavailable):
				notices.Add(1)
				require.NotContains(t, body, "model.glb")
			default:
				t.Errorf("unexpected answer %d: %.200s", rec.Code, body)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 0, models.Load())
	require.EqualValues(t, 200, notices.Load())
	require.EqualValues(t, 100, b.used(t, owner))

	// Crawlers still get the page (previews keep working); the owner was told once.
	rec := b.view(t, "GET", "/v/"+p.Slug, "10.9.9.9", "facebookexternalhit/1.1")
	require.Contains(t, rec.Body.String(), "<model-viewer")
	n := 0
	for _, typ := range b.EventTypes(t, events.Stream{Type: events.StreamPublication, ID: p.ID}) {
		if typ == "publication.views_exhausted.v1" {
			n++
		}
	}
	require.Equal(t, 1, n)
}

func TestLockedVersionIsServedAfterAnEdit(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0, publishtest.WithCacheTTL(time.Nanosecond))
	_, bp, p := b.published(t, "Teapot")
	modelURL := func(body string) string {
		return regexp.MustCompile(`src="(/v/[^"]+/model\.glb\?v=[0-9a-f]+)"`).FindStringSubmatch(body)[1]
	}
	first := b.view(t, "GET", "/v/"+p.Slug, "192.0.2.1", browserUA).Body.String()

	_, err := b.Service.Lock(b.Ctx, mustOwner(t, b, p), p.ID, 1)
	require.NoError(t, err)
	b.Rename(t, bp, "Teapot v2")
	b.Complete(t, bp) // a rebuild: new model

	locked := b.view(t, "GET", "/v/"+p.Slug, "192.0.2.2", browserUA).Body.String()
	require.Contains(t, locked, ">Teapot</h1>")
	require.Equal(t, modelURL(first), modelURL(locked))

	_, err = b.Service.Lock(b.Ctx, mustOwner(t, b, p), p.ID, 0)
	require.NoError(t, err)
	live := b.view(t, "GET", "/v/"+p.Slug, "192.0.2.3", browserUA).Body.String()
	require.Contains(t, live, ">Teapot v2</h1>", "unlocked links follow edits live")
	require.NotEqual(t, modelURL(first), modelURL(live))

	b.Delete(t, bp)
	require.Equal(t, 404, b.view(t, "GET", "/v/"+p.Slug, "192.0.2.4", browserUA).Code, "deleting the blueprint takes the link down")
}

func mustOwner(t *testing.T, b pubBundle, p publish.Publication) string {
	t.Helper()
	var owner string
	require.NoError(t, b.DB.Pool.QueryRow(b.Ctx, `SELECT user_id FROM publications WHERE id = $1`, p.ID).Scan(&owner))
	return owner
}

func TestPublicRateLimit(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 5)
	_, _, p := b.published(t, "Clock")
	for range 5 {
		require.Equal(t, 200, b.view(t, "GET", "/v/"+p.Slug, "198.51.100.9", browserUA).Code)
	}
	rec := b.view(t, "GET", "/v/"+p.Slug, "198.51.100.9", browserUA)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, 200, b.view(t, "GET", "/v/"+p.Slug, "198.51.100.10", browserUA).Code, "limits are per address")
}

// TestShareModelCaching: the first response names the model and poster for
// preloading; a locked version's model is cached for a year under its URL and
// revalidates with its ETag; a live (unlocked) model is kept only briefly.
func TestShareModelCaching(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0, publishtest.WithCacheTTL(time.Nanosecond))
	_, _, p := b.published(t, "Lamp")
	body := b.view(t, "GET", "/v/"+p.Slug, "192.0.2.21", browserUA).Body.String()
	model := regexp.MustCompile(`src="(/v/[^"]+/model\.glb\?v=[0-9a-f]+)"`).FindStringSubmatch(body)[1]
	poster := regexp.MustCompile(`poster="(/v/[^"]+/poster\.png\?v=[0-9a-f]+)"`).FindStringSubmatch(body)[1]
	require.Contains(t, body, `<link rel="preload" href="`+model+`" as="fetch" type="model/gltf-binary" crossorigin="anonymous"`)
	require.Contains(t, body, `<link rel="preload" href="`+poster+`" as="image"`)
	// The poster paints from the HTML itself, before the viewer's script runs.
	require.Contains(t, body, `<img class="mv-poster" slot="poster" src="`+poster+`"`)

	live := b.view(t, "GET", model, "192.0.2.21", browserUA)
	require.Equal(t, 200, live.Code)
	require.Equal(t, "private, max-age=300", live.Header().Get("Cache-Control"))
	etag := live.Header().Get("ETag")
	require.NotEmpty(t, etag)

	_, err := b.Service.Lock(b.Ctx, mustOwner(t, b, p), p.ID, 1)
	require.NoError(t, err)
	locked := b.view(t, "GET", model, "192.0.2.21", browserUA)
	require.Equal(t, publishtest.ModelBytes, locked.Body.Bytes())
	require.Equal(t, "private, max-age=31536000, immutable", locked.Header().Get("Cache-Control"))
	require.Equal(t, "private, max-age=31536000, immutable",
		b.view(t, "GET", poster, "192.0.2.21", browserUA).Header().Get("Cache-Control"))
	require.Equal(t, etag, locked.Header().Get("ETag"), "the same bytes keep their validator")
	// Another ?v= is not the URL the locked page names: no long-lived caching.
	other := strings.Replace(model, "?v=", "?v=0", 1)
	require.Equal(t, "private, max-age=300", b.view(t, "GET", other, "192.0.2.21", browserUA).Header().Get("Cache-Control"))

	revisit := b.view(t, "GET", model, "192.0.2.21", browserUA, "If-None-Match", etag)
	require.Equal(t, http.StatusNotModified, revisit.Code)
	require.Empty(t, revisit.Body.Bytes())
}
