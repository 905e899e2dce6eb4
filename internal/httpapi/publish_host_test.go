package httpapi

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/publish"
)

// onHost sends a request as user ("" for none) to the given Host header.
func (s productPubStack) onHost(t *testing.T, host, user, method, path string, body any) *httptest.ResponseRecorder {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, path, rd)
	req.Host = host
	req.RemoteAddr = "192.168.1.30:50000"
	req.Header.Set("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		tok, _, err := s.tokens.Issue(user)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

func pubOf(t *testing.T, rec *httptest.ResponseRecorder) publishReply {
	t.Helper()
	require.Less(t, rec.Code, 300, rec.Body.String())
	var r struct {
		Data struct {
			publishReply
			Publication *publishReply `json:"publication"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	if r.Data.Publication != nil {
		return *r.Data.Publication
	}
	return r.Data.publishReply
}

var discoveryLink = regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)"`)

// Issue 50 item 15: every public URL the server hands out names
// PUBLIC_BASE_URL, whatever host the app or the page was opened at (here a
// LAN address, localhost, an IPv6 address): share link, embed code, QR code,
// the page's canonical URL and its oEmbed discovery link; and the oEmbed
// endpoint answers for exactly those URLs. This replaces issue 29 item 10's
// rule (links followed the request's host when PUBLIC_BASE_URL was unset),
// under which a page opened at 127.0.0.1 advertised an oEmbed URL its own
// endpoint refused, and mail named one address while share links named
// another. Host headers are never reflected.
func TestPublicURLsNamePublicBaseURLOnEveryHost(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lamp")
	startTrialFor(t, s.creationStack, user)
	const lan = "192.168.1.20:8080"

	pub := pubOf(t, s.onHost(t, lan, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": false}))
	share := creationBase + "/v/" + pub.Slug
	require.Equal(t, share, pub.ShareURL)
	require.Equal(t, share+"/qr.png", pub.QRURL)
	require.Contains(t, pub.EmbedCode, `src="`+creationBase+`/embed/`+pub.Slug+`"`)
	for _, host := range []string{"localhost:8080", "127.0.0.1:8080", "[fd00::2]:8080", `evil.example"><script>alert(1)</script>`, "user@evil.example"} {
		require.Equal(t, share, pubOf(t, s.onHost(t, host, user, "GET", "/api/products/"+id, nil)).ShareURL, "Host %q", host)
	}

	// The QR codes (the merchant's download and the share page's own) encode that link.
	want, err := publish.QRCode(share)
	require.NoError(t, err)
	dl := s.onHost(t, lan, user, "GET", "/api/publications/"+pub.PublicationID+"/qr.png", nil)
	require.Equal(t, http.StatusOK, dl.Code)
	require.Equal(t, want, dl.Body.Bytes())
	qr := s.onHost(t, lan, "", "GET", "/v/"+pub.Slug+"/qr.png", nil)
	require.Equal(t, http.StatusOK, qr.Code)
	require.Equal(t, want, qr.Body.Bytes())

	// The page opened at the LAN address names the public link, and its
	// discovery link is one the endpoint answers (asked on the LAN host too).
	page := s.onHost(t, lan, "", "GET", "/v/"+pub.Slug, nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), `"url":"`+share+`"`)
	require.NotContains(t, page.Body.String(), lan)
	m := discoveryLink.FindStringSubmatch(page.Body.String())
	require.NotNil(t, m, "the page carries its oEmbed discovery link")
	discovery, err := url.Parse(html.UnescapeString(m[1]))
	require.NoError(t, err)
	require.Equal(t, creationBase+"/oembed", discovery.Scheme+"://"+discovery.Host+discovery.Path)
	require.Equal(t, share, discovery.Query().Get("url"))
	for _, host := range []string{lan, "photo3d.test"} {
		rec := s.onHost(t, host, "", "GET", discovery.RequestURI(), nil)
		require.Equal(t, http.StatusOK, rec.Code, "oEmbed asked on %s: %s", host, rec.Body.String())
		require.Contains(t, rec.Body.String(), `\"`+creationBase+`/embed/`+pub.Slug+`?utm_source=oembed\"`)
	}
	// A URL on another address than PUBLIC_BASE_URL is not one the server hands out: refused.
	rec := s.onHost(t, lan, "", "GET", "/oembed?url="+url.QueryEscape("http://"+lan+"/v/"+pub.Slug), nil)
	require.Equal(t, http.StatusNotFound, rec.Code)

	// Attack: a Host that is not a plain host[:port] is never reflected.
	for _, host := range []string{`evil.example"><script>alert(1)</script>`, "user@evil.example", "evil.example/x", "a b", "-evil.example", "évil.example"} {
		body := s.onHost(t, host, "", "GET", "/v/"+pub.Slug, nil).Body.String()
		require.NotContains(t, body, "evil.example", "Host %q", host)
	}
}
