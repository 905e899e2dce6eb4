package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/metrics"
)

// Issue 29 item 9: `make run` without SMTP keeps account mail in the dev
// outbox, and /dev/mail shows it with clickable links — to a browser on this
// machine only, and only in DEV_MODE (it holds everyone's links).
func TestDevMailPageOnlyOnLoopbackInDevMode(t *testing.T) {
	t.Parallel()
	box := mail.NewOutbox(5)
	box.Add(mail.Message{To: "new@example.com", Subject: "Verify your Photo3D email address",
		Body: "Open this link:\n\nhttp://localhost:8080/verify-email?token=abc_DEF-123\n\nThanks <b>"})
	router := func(dev bool) http.Handler {
		return NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(), DevMode: dev, Outbox: box})
	}
	get := func(h http.Handler, remote, host string, hdr map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/dev/mail", nil)
		req.RemoteAddr, req.Host = remote, host
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := get(router(true), "127.0.0.1:5555", "localhost:8080", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	body := rec.Body.String()
	require.Contains(t, body, "<h1>Outbox</h1>")
	require.Contains(t, body, `<a href="http://localhost:8080/verify-email?token=abc_DEF-123">`)
	require.Contains(t, body, "To new@example.com")
	require.Contains(t, body, "Thanks &lt;b&gt;", "mail text is escaped")
	require.Equal(t, http.StatusOK, get(router(true), "[::1]:5555", "[::1]:8080", nil).Code)
	require.Equal(t, http.StatusOK, get(router(true), "127.0.0.1:5555", "127.0.0.1:8080", nil).Code)

	for name, c := range map[string]struct {
		dev          bool
		remote, host string
		hdr          map[string]string
	}{
		"not DEV_MODE":          {false, "127.0.0.1:5555", "localhost:8080", nil},
		"from the LAN":          {true, "192.168.1.20:5555", "192.168.1.10:8080", nil},
		"rebound host name":     {true, "127.0.0.1:5555", "evil.example:8080", nil},
		"through a proxy":       {true, "127.0.0.1:5555", "localhost:8080", map[string]string{"X-Forwarded-For": "203.0.113.9"}},
		"through a proxy (RFC)": {true, "127.0.0.1:5555", "localhost:8080", map[string]string{"Forwarded": "for=203.0.113.9"}},
	} {
		rec := get(router(c.dev), c.remote, c.host, c.hdr)
		require.NotEqual(t, http.StatusOK, rec.Code, name)
		require.NotContains(t, rec.Body.String(), "token=abc", name)
	}
}
