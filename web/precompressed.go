package web

import (
	"bytes"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/acceptenc"
)

// encodings are the precompressed siblings scripts/precompress.mjs writes
// next to a built file, best first: brotli is about 15% smaller than gzip on
// the model-viewer bundle, and every browser that takes br also takes gzip.
var encodings = []struct{ name, ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// servePrecompressed answers a request for the built file p with its
// brotli or gzip sibling when the client accepts one, so the big bundles go
// out compressed without spending CPU per request. It reports whether it
// answered; when it did not (no sibling, or the client takes neither) the
// caller serves the file as it is. Every answer for a file that has a
// sibling carries Vary: Accept-Encoding so caches keep the variants apart.
// Range requests get the identity file (ranges of an encoding are rarely
// useful and easy to get wrong).
func servePrecompressed(w http.ResponseWriter, r *http.Request, root fs.FS, p string) bool {
	var (
		body     []byte
		encoding string
		vary     bool
	)
	for _, e := range encodings {
		b, err := fs.ReadFile(root, p+e.ext)
		if err != nil {
			continue
		}
		vary = true
		if body == nil && r.Header.Get("Range") == "" && acceptenc.Allows(r.Header.Get("Accept-Encoding"), e.name) {
			body, encoding = b, e.name
		}
	}
	if vary {
		w.Header().Add("Vary", "Accept-Encoding")
	}
	if body == nil {
		return false
	}
	h := w.Header()
	ctype := mime.TypeByExtension(path.Ext(p))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Encoding", encoding)
	// A weak validator per variant: the name is content-hashed for assets, and
	// the length tells the encodings apart.
	h.Set("ETag", `W/"`+strings.ReplaceAll(path.Base(p), `"`, "")+"-"+encoding+"-"+strconv.Itoa(len(body))+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	return true
}
