package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/internal/fault"
)

// MediaPath serves avatars and logos at stable public URLs: they appear on
// public share pages and in <img> tags, which cannot carry a token, and a
// signed URL would expire inside a cached page. Keys are unguessable (a
// random id per upload) and only the avatars/ and logos/ prefixes are served.
const MediaPath = "/media/*"

var errNoMedia = fault.New(fault.NotFound, "not_found", "This image does not exist.")

func serveMedia(bucket *blob.Bucket) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := chi.URLParam(r, "*")
		if !isMediaKey(key) {
			return errNoMedia
		}
		rd, err := bucket.NewReader(r.Context(), key, nil)
		if err != nil {
			if gcerrors.Code(err) == gcerrors.NotFound {
				return errNoMedia
			}
			return err
		}
		defer rd.Close()
		ct := rd.ContentType()
		switch ct {
		case "image/png", "image/jpeg", "image/svg+xml":
		default:
			return errNoMedia
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("Content-Length", strconv.FormatInt(rd.Size(), 10))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		if ct == "image/svg+xml" {
			// Belt and braces over the sanitiser: an SVG opened directly
			// can run nothing and load nothing.
			h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		}
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return nil
		}
		if _, err := io.Copy(w, rd); err != nil && !errors.Is(err, r.Context().Err()) {
			LoggerFrom(r.Context()).Warn("stream media", "key", key, "err", err)
		}
		return nil
	}
}
