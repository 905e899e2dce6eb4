package httpapi_test

import (
	"bufio"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/onewrite"
	"github.com/photo3d/photo3d/internal/onewrite/onewritetest"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// TestSharePageInOneWrite: the share page, served as cmd/api serves it
// (onewrite's listener), reaches the kernel in one write syscall per view,
// plain or gzip, and a shopper or a crawler gets exactly the page the
// handler renders: the same headers and bytes as without onewrite.
func TestSharePageInOneWrite(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Merchant(t)
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Oak lounge chair"))
	want := b.view(t, "GET", "/v/"+p.Slug, "198.51.100.7", browserUA) // net/http's own path
	require.Equal(t, http.StatusOK, want.Code)
	require.Greater(t, want.Body.Len(), 3000, "a page of a realistic size")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	counter := onewritetest.Wrap(ln)
	srv := &http.Server{Handler: b.h, ConnContext: onewrite.ConnContext, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(onewrite.Listener(counter)) }()
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	br := bufio.NewReader(conn)
	send := func(method, encoding string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+ln.Addr().String()+"/v/"+p.Slug, nil)
		require.NoError(t, err)
		req.Header.Set("User-Agent", browserUA)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		require.NoError(t, req.Write(conn))
		resp, err := http.ReadResponse(br, req)
		require.NoError(t, err)
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			require.NoError(t, err)
			r = zr
		}
		body, err := io.ReadAll(r)
		require.NoError(t, err)
		return resp, string(body)
	}

	for _, enc := range []string{"", "gzip, deflate, br, zstd"} { // curl and crawlers; a browser
		resp, body := send("GET", enc)
		writes := counter.Settle(t, 1)
		require.Len(t, writes, 1, "Accept-Encoding %q: one write, got %v", enc, writes)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, want.Body.String(), body, "the page is the one the handler renders")
		for _, h := range []string{"Content-Type", "Content-Security-Policy", "X-Frame-Options", "Cache-Control",
			"X-Content-Type-Options", "Referrer-Policy", "Vary"} {
			require.Equal(t, want.Header().Get(h), resp.Header.Get(h), h)
		}
		require.Equal(t, publish.CSPShare, resp.Header.Get("Content-Security-Policy"))
		require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
		require.False(t, resp.Close)
		if enc == "" {
			require.Greater(t, len(body)+600, 4096, "headers and page pass net/http's 4 KiB buffer")
		}

		// What a shopper and a crawler see.
		require.Contains(t, body, "<title>Oak lounge chair · ")
		require.Contains(t, body, `<meta name="description" content="Oak lounge chair in interactive 3D: turn it, zoom in and place it in your room.">`)
		require.Contains(t, body, `<meta property="og:title" content="Oak lounge chair">`)
		require.Contains(t, body, `<meta property="og:url" content="`+p.ShareURL+`">`)
		require.Contains(t, body, `<meta property="og:image" content="`+publishtest.BaseURL+`/v/`+p.Slug+`/poster.png?v=`)
		require.Contains(t, body, `<meta name="twitter:card" content="summary_large_image">`)
		require.Contains(t, body, `<model-viewer id="viewer" src="/v/`+p.Slug+`/model.glb?v=`)
		require.Contains(t, body, `<h1 class="p3d-title">Oak lounge chair</h1>`)
		require.Contains(t, body, `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product"`)
		require.True(t, strings.HasSuffix(body, "</html>\n"), "the whole page")
	}

	resp, body := send("HEAD", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, body)
	require.Equal(t, want.Header().Get("Content-Length"), resp.Header.Get("Content-Length"))
	require.Len(t, counter.Settle(t, 1), 1)
}
