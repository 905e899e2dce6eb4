package httpapi

import (
	"mime"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// compressMinSize is the smallest body worth compressing on the fly: below
// about a kilobyte the bytes saved do not pay for the encoder's time and the
// framing, and most answers fit in one TCP packet anyway.
const compressMinSize = 1024

// onTheFlyTypes are the text responses the API makes per request (JSON
// envelopes, OpenAPI, HTML pages, SVG, the odd text/plain). Images, models
// (GLB is left as is, issue 18) and already-encoded answers are not touched:
// the precompressed web assets carry Content-Encoding, which the wrapper
// leaves alone.
var onTheFlyTypes = map[string]bool{
	"text/html": true, "application/json": true, "image/svg+xml": true, "text/css": true,
	"text/javascript": true, "application/javascript": true, "text/plain": true,
	"application/xml": true, "text/xml": true, "application/manifest+json": true,
	"application/problem+json": true, "application/ld+json": true,
}

// compress encodes text responses above compressMinSize with zstd or gzip,
// whichever the client prefers, negotiated on Accept-Encoding (Vary is set).
// Range answers and bodies that already have a Content-Encoding pass through.
func compress() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		gzhttp.CompressionLevel(5), // near-best ratio at a fraction of level 9's CPU
		gzhttp.ContentTypeFilter(func(ct string) bool {
			mt, _, err := mime.ParseMediaType(ct)
			return err == nil && onTheFlyTypes[strings.ToLower(mt)]
		}),
		gzhttp.SuffixETag("-z"), // a compressed body must not share the identity body's strong ETag
	)
	if err != nil {
		panic(err) // the options above are constants; an error is a programming bug
	}
	return func(next http.Handler) http.Handler {
		wrapped := wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if encodesItself(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			wrapped(w, r)
		})
	}
}

// encodesItself reports the paths whose handlers negotiate their own
// encoding from bodies compressed ahead of time: the built web assets
// (web/precompressed.go) and the share and embed pages (publish.pageBody),
// plus the pages' images and models, which are not worth compressing. The
// wrapper would only cost them time: they are the hottest paths shoppers hit.
func encodesItself(path string) bool {
	return strings.HasPrefix(path, "/v/") || strings.HasPrefix(path, "/embed/") || strings.HasPrefix(path, "/assets/")
}
