package httpapi

import (
	"net/http"

	"github.com/photo3d/photo3d/internal/catalog"
)

// linkPlatformView answers GET /api/link-platform: the link as it will be
// stored (https:// prepended when it had no scheme) and its store chip, or
// platform null when the URL cannot be read.
type linkPlatformView struct {
	URL      string                `json:"url"`
	Platform *catalog.LinkPlatform `json:"platform"`
}

// linkPlatform serves GET /api/link-platform?url=…, the server's verdict for
// the chip the configurator shows while the merchant types a link.
func linkPlatform() Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw := r.URL.Query().Get("url")
		if len(raw) > catalog.MaxURLLength {
			return catalog.ErrLinkTooLong
		}
		WriteJSON(w, http.StatusOK, linkPlatformView{URL: catalog.NormalizeLinkURL(raw), Platform: catalog.DetectPlatform(raw)})
		return nil
	}
}
