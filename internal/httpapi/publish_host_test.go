package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// Issue 29 item 10: without PUBLIC_BASE_URL, a merchant who opened the app at
// the laptop's LAN address gets links, embed codes and QR codes a phone can
// open; a Host of any other form falls back to the configured base; nothing
// derived from a Host is stored.
func TestLinksFollowTheRequestHostWithoutPublicBaseURL(t *testing.T) {
	t.Parallel()
	s := buildProductPubStack(t, func(d *Deps) { d.LinksFromRequestHost = true })
	user, id := s.readyProduct(t, "Lamp")
	startTrialFor(t, s.creationStack, user)
	const lan = "192.168.1.20:8080"

	pub := pubOf(t, s.onHost(t, lan, user, "POST", "/api/products/"+id+"/publish", map[string]any{"requireEmail": false}))
	require.Equal(t, "http://"+lan+"/v/"+pub.Slug, pub.ShareURL)
	require.Equal(t, "http://"+lan+"/v/"+pub.Slug+"/qr.png", pub.QRURL)
	require.Contains(t, pub.EmbedCode, `src="http://`+lan+`/embed/`+pub.Slug+`"`)
	// Computed per request: the same publication read through localhost names localhost.
	require.Equal(t, "http://localhost:8080/v/"+pub.Slug,
		pubOf(t, s.onHost(t, "localhost:8080", user, "GET", "/api/products/"+id, nil)).ShareURL)
	require.Equal(t, "http://[fd00::2]:8080/v/"+pub.Slug,
		pubOf(t, s.onHost(t, "[fd00::2]:8080", user, "GET", "/api/products/"+id, nil)).ShareURL)

	// The QR codes (the merchant's download and the share page's own) encode the LAN link.
	want, err := publish.QRCode("http://" + lan + "/v/" + pub.Slug)
	require.NoError(t, err)
	dl := s.onHost(t, lan, user, "GET", "/api/publications/"+pub.PublicationID+"/qr.png", nil)
	require.Equal(t, http.StatusOK, dl.Code)
	require.Equal(t, want, dl.Body.Bytes())
	qr := s.onHost(t, lan, "", "GET", "/v/"+pub.Slug+"/qr.png", nil)
	require.Equal(t, http.StatusOK, qr.Code)
	require.Equal(t, want, qr.Body.Bytes())
	page := s.onHost(t, lan, "", "GET", "/v/"+pub.Slug, nil)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), `"url":"http://`+lan+`/v/`+pub.Slug+`"`)
	// The page cached for the LAN host is not what another host gets.
	other := s.onHost(t, "photo3d.test", "", "GET", "/v/"+pub.Slug, nil).Body.String()
	require.NotContains(t, other, lan)
	require.Contains(t, other, `"url":"`+creationBase+`/v/`+pub.Slug+`"`)
	baseQR, err := publish.QRCode(creationBase + "/v/" + pub.Slug)
	require.NoError(t, err)
	require.Equal(t, baseQR, s.onHost(t, "photo3d.test", "", "GET", "/v/"+pub.Slug+"/qr.png", nil).Body.Bytes())

	// Attack: a Host that is not a plain host[:port] is never reflected.
	for _, host := range []string{`evil.example"><script>alert(1)</script>`, "user@evil.example", "evil.example/x", "a b", "-evil.example", "évil.example"} {
		got := pubOf(t, s.onHost(t, host, user, "GET", "/api/products/"+id, nil))
		require.Equal(t, creationBase+"/v/"+pub.Slug, got.ShareURL, "Host %q", host)
		body := s.onHost(t, host, "", "GET", "/v/"+pub.Slug, nil).Body.String()
		require.NotContains(t, body, "evil.example", "Host %q", host)
	}
	// Nothing derived from a Host is stored: not in events, not in the read model.
	var n int
	require.NoError(t, s.env.DB.Pool.QueryRow(context.Background(),
		`SELECT (SELECT count(*) FROM events WHERE data::text LIKE '%192.168.1.20%' OR metadata::text LIKE '%192.168.1.20%')
		      + (SELECT count(*) FROM publications p WHERE row_to_json(p)::text LIKE '%192.168.1.20%')`).Scan(&n))
	require.Zero(t, n)
}

// With PUBLIC_BASE_URL set, every link names it whatever Host was used.
func TestLinksNamePublicBaseURLWhenSet(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lamp")
	startTrialFor(t, s.creationStack, user)
	pub := pubOf(t, s.onHost(t, "192.168.1.20:8080", user, "POST", "/api/products/"+id+"/publish", map[string]any{}))
	require.Equal(t, creationBase+"/v/"+pub.Slug, pub.ShareURL)
	want, err := publish.QRCode(creationBase + "/v/" + pub.Slug)
	require.NoError(t, err)
	require.Equal(t, want, s.onHost(t, "192.168.1.20:8080", "", "GET", "/v/"+pub.Slug+"/qr.png", nil).Body.Bytes())
}
