package publish

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/photo3d/photo3d/internal/acceptenc"
	"github.com/photo3d/photo3d/internal/onewrite"
)

// pageBody is one rendered page, kept with its gzip encoding: pages are
// rendered once per cache fill and served thousands of times, so they are
// compressed once there rather than per view (the router's on-the-fly
// compressor leaves bodies that already carry a Content-Encoding alone).
type pageBody struct {
	raw, gz []byte
	// Content-Length values, formatted once.
	rawLen, gzLen []string
}

// renderBody renders a page template and compresses it at the best level.
func renderBody(name string, v pageView) (pageBody, error) {
	raw, err := render(name, v)
	if err != nil {
		return pageBody{}, err
	}
	return compressBody(name, raw)
}

// compressBody keeps a rendered page with its gzip form.
func compressBody(name string, raw []byte) (pageBody, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return pageBody{}, fmt.Errorf("compress %s page: %w", name, err)
	}
	if _, err := zw.Write(raw); err != nil {
		return pageBody{}, fmt.Errorf("compress %s page: %w", name, err)
	}
	if err := zw.Close(); err != nil {
		return pageBody{}, fmt.Errorf("compress %s page: %w", name, err)
	}
	b := pageBody{raw: raw, rawLen: []string{strconv.Itoa(len(raw))}}
	if buf.Len() < len(raw) {
		b.gz = buf.Bytes()
		b.gzLen = []string{strconv.Itoa(buf.Len())}
	}
	return b, nil
}

// write sends the page with status 200, gzip-encoded when the client takes it.
func (b pageBody) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if b.gz != nil {
		if v := h["Vary"]; len(v) == 0 {
			h["Vary"] = hdrVaryAE // shared, never mutated: no allocation
		} else if !hasToken(v, "Accept-Encoding") {
			h.Add("Vary", "Accept-Encoding")
		}
	}
	body, length := b.raw, b.rawLen
	if b.gz != nil && acceptenc.Allows(r.Header.Get("Accept-Encoding"), "gzip") {
		body, length = b.gz, b.gzLen
		h["Content-Encoding"] = hdrGzip
	}
	if length == nil { // a pageBody not made by renderBody
		length = []string{strconv.Itoa(len(body))}
	}
	h["Content-Length"] = length
	// Headers and page in one write syscall, as nginx sends a static page:
	// net/http alone needs two once they pass its 4 KiB buffer (onewrite).
	onewrite.Write(w, r, http.StatusOK, body)
}

var (
	hdrVaryAE = []string{"Accept-Encoding"}
	hdrGzip   = []string{"gzip"}
)

func hasToken(values []string, token string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// assetCacheControl is how long a browser may keep a page's model, poster or
// logo. The model and poster of a locked version, asked for under the URL
// the page names (?v= its tag), never change: a year, immutable, so a
// returning shopper's phone does not even revalidate. Anything else may be
// rebuilt or unpublished, so it is kept briefly and then revalidated with its
// ETag.
func assetCacheControl(e *pageEntry, kind, v string) string {
	if e.locked && kind != AssetLogo && v == e.tag {
		return "private, max-age=31536000, immutable"
	}
	return "private, max-age=300"
}
