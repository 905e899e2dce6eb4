package onewrite_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/onewrite"
	"github.com/photo3d/photo3d/internal/onewrite/onewritetest"
)

// page is a share page's shape: about 4.2 KB of HTML under the share page's
// headers, more than net/http's 4 KiB connection buffer holds.
var page = []byte("<!doctype html>\n<title>Chair</title>\n" + strings.Repeat("<meta property=\"og:x\" content=\"a chair in 3D\">\n", 86))

func pageHandler(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "+
		"connect-src 'self' data: blob:; worker-src 'self' blob:; font-src 'self'; manifest-src 'self'; media-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	body := page
	if n := r.URL.Query().Get("n"); n != "" {
		size, _ := strconv.Atoi(n)
		body = bytes.Repeat([]byte("x"), size)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	onewrite.Write(w, r, http.StatusOK, body)
}

// serve runs handler on a loopback server whose connections count their
// writes; with wrap, through onewrite as cmd/api serves.
func serve(t *testing.T, wrap bool, handler http.HandlerFunc) (*onewritetest.Counter, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cl := onewritetest.Wrap(ln)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	var served net.Listener = cl
	if wrap {
		served = onewrite.Listener(cl)
		srv.ConnContext = onewrite.ConnContext
	}
	go func() { _ = srv.Serve(served) }()
	t.Cleanup(func() { _ = srv.Close() })
	return cl, ln.Addr().String()
}

// exchange sends raw requests on one connection and reads their responses.
func exchange(t *testing.T, addr string, reqs ...*http.Request) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	br := bufio.NewReader(c)
	var out []*http.Response
	for _, req := range reqs {
		require.NoError(t, req.Write(c))
		resp, err := http.ReadResponse(br, req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		out = append(out, resp)
	}
	return out
}

func get(t *testing.T, method, path string) *http.Request {
	req, err := http.NewRequest(method, "http://test"+path, nil)
	require.NoError(t, err)
	return req
}

func bodyOf(t *testing.T, resp *http.Response) []byte {
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

func TestPageLeavesInOneWrite(t *testing.T) {
	t.Parallel()
	// Without onewrite net/http needs two writes for it: headers and the
	// start of the page fill its 4 KiB buffer, the rest follows.
	plain, addr := serve(t, false, pageHandler)
	resp := exchange(t, addr, get(t, "GET", "/"))[0]
	require.Equal(t, page, bodyOf(t, resp))
	before := plain.Settle(t, 2)
	require.Len(t, before, 2, "net/http alone: %v", before)
	require.Equal(t, 4096, before[0])

	l, addr := serve(t, true, pageHandler)
	resps := exchange(t, addr, get(t, "GET", "/"), get(t, "GET", "/"), get(t, "GET", "/"))
	writes := l.Settle(t, 3)
	require.Len(t, writes, 3, "one write per response on a kept-alive connection: %v", writes)
	require.Equal(t, before[0]+before[1], writes[0], "the same bytes")
	for _, resp := range resps {
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, page, bodyOf(t, resp))
		require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
		require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		require.Equal(t, strconv.Itoa(len(page)), resp.Header.Get("Content-Length"))
		require.False(t, resp.Close, "the connection stays open")
	}
}

func TestHeadSmallAndLargeResponses(t *testing.T) {
	t.Parallel()
	l, addr := serve(t, true, pageHandler)

	// HEAD: the headers (with the page's length), no body.
	resp := exchange(t, addr, get(t, "HEAD", "/"))[0]
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, strconv.Itoa(len(page)), resp.Header.Get("Content-Length"))
	require.Empty(t, bodyOf(t, resp))
	require.Len(t, l.Settle(t, 1), 1)

	// A response that fits the buffer leaves in one write as before.
	resp = exchange(t, addr, get(t, "GET", "/?n=1000"))[0]
	require.Len(t, bodyOf(t, resp), 1000)
	require.Len(t, l.Settle(t, 1), 1)

	// Past what a connection holds (64 KiB), bytes go out as they come, all
	// of them, in order.
	resps := exchange(t, addr, get(t, "GET", "/?n=200000"), get(t, "GET", "/"))
	require.Equal(t, bytes.Repeat([]byte("x"), 200000), bodyOf(t, resps[0]))
	require.Equal(t, page, bodyOf(t, resps[1]), "and the next response on the connection is whole")
}

func TestStreamedFilesStillServed(t *testing.T) {
	t.Parallel()
	// Models are streamed with http.ServeContent, which net/http sends with
	// the connection's ReadFrom (sendfile): the wrapper keeps that path.
	dir := t.TempDir()
	model := bytes.Repeat([]byte("glTF"), 50_000)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.glb"), model, 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a *net.TCPConn under the wrapper, as in cmd/api
	require.NoError(t, err)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, ConnContext: onewrite.ConnContext,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := os.Open(filepath.Join(dir, "m.glb"))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer f.Close()
			http.ServeContent(w, r, "m.glb", time.Time{}, f)
		})}
	go func() { _ = srv.Serve(onewrite.Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })
	resps := exchange(t, ln.Addr().String(), get(t, "GET", "/"), get(t, "GET", "/"))
	for _, resp := range resps {
		require.Equal(t, model, bodyOf(t, resp))
	}
}
