// Package oembed makes Photo3D an oEmbed provider (https://oembed.com) for
// its public pages: a blog, a newsletter tool or a CMS that is given a
// /v/{slug} link finds the page's discovery tag, asks GET /oembed?url=… and
// gets a "rich" answer whose html is our iframe embed, sized to the box it
// asked for: width and height as the oEmbed spec requires, and an iframe
// that is responsive within that box (publish.EmbedCodeSized). Only live pages whose owner still has views answer; anything
// else is the 404 the spec prescribes for "no response for this URL".
package oembed

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/photo3d/photo3d/internal/publish"
)

// ProviderName is the oEmbed provider_name of every answer.
const ProviderName = "Photo3D"

// The embed's natural box (publish.EmbedCode's 800×600) and the smallest
// box worth rendering a 3D viewer in.
const (
	DefaultWidth  = 800
	DefaultHeight = 600
	minSide       = 120
)

// UTMSource marks views of embeds made through oEmbed in shopper
// analytics (the embed page's beacons report the utm_source of its URL).
const UTMSource = "oembed"

// CacheAge is the answer's cache_age in seconds: short, because an
// unpublished page must stop being embedded soon.
const CacheAge = 300

// Source is what the provider reads of the public pages (*publish.Pages).
type Source interface {
	BaseURL() string
	EmbedInfo(ctx context.Context, slug string) (publish.EmbedInfo, bool, error)
}

// Response is the JSON answer (oEmbed 1.0, section 2.3.4, type "rich").
type Response struct {
	Version         string `json:"version"`
	Type            string `json:"type"`
	Title           string `json:"title"`
	AuthorName      string `json:"author_name,omitempty"`
	ProviderName    string `json:"provider_name"`
	ProviderURL     string `json:"provider_url"`
	CacheAge        int    `json:"cache_age"`
	HTML            string `json:"html"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	ThumbnailURL    string `json:"thumbnail_url,omitempty"`
	ThumbnailWidth  int    `json:"thumbnail_width,omitempty"`
	ThumbnailHeight int    `json:"thumbnail_height,omitempty"`
}

var pagePath = regexp.MustCompile(`^/(?:v|embed)/([A-Za-z0-9_-]{16,64})/?$`)

// Handler answers GET /oembed.
func Handler(src Source, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch q.Get("format") {
		case "", "json":
		case "xml":
			plain(w, http.StatusNotImplemented, "Only format=json is supported.")
			return
		default:
			plain(w, http.StatusNotImplemented, "Unknown format: only format=json is supported.")
			return
		}
		slug, ok := slugOf(src.BaseURL(), q.Get("url"))
		if !ok {
			plain(w, http.StatusNotFound, "No embed for this URL: give the share link of a published Photo3D page.")
			return
		}
		width, height, ok := box(q.Get("maxwidth"), q.Get("maxheight"))
		if !ok {
			plain(w, http.StatusBadRequest, "maxwidth and maxheight must be whole numbers of pixels, at least "+strconv.Itoa(minSide)+".")
			return
		}
		info, live, err := src.EmbedInfo(r.Context(), slug)
		if err != nil {
			log.Error("oembed lookup failed", "err", err)
			w.Header().Set("Retry-After", "5")
			plain(w, http.StatusServiceUnavailable, "Please try again in a moment.")
			return
		}
		if !live {
			plain(w, http.StatusNotFound, "This page is not published.")
			return
		}
		resp := Response{Version: "1.0", Type: "rich", Title: info.Title, AuthorName: info.BrandName,
			ProviderName: ProviderName, ProviderURL: src.BaseURL(), CacheAge: CacheAge,
			HTML:  publish.EmbedCodeSized(info.EmbedURL+"?utm_source="+UTMSource, info.Title, width, height),
			Width: width, Height: height, ThumbnailURL: info.ThumbnailURL,
			ThumbnailWidth: info.ThumbnailWidth, ThumbnailHeight: info.ThumbnailHeight}
		b, err := json.Marshal(resp)
		if err != nil {
			plain(w, http.StatusInternalServerError, "Could not encode the answer.")
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		// Consumers fetch from servers and from browsers; the answer holds
		// nothing the public page does not show.
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(CacheAge))
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}

// slugOf accepts only our own share and embed URLs (same scheme and host
// as the base URL, any case of the host, an optional query such as
// ?variant=): the provider never fetches or echoes another site's URL.
// The base is PUBLIC_BASE_URL, the one address every link, embed code and
// discovery tag names (publish.LinksFor), so it answers for exactly the URLs
// the server hands out; the same path on another host of this server is not
// one of them (issue 50 item 15).
func slugOf(base, raw string) (string, bool) {
	if raw == "" || len(raw) > 2048 {
		return "", false
	}
	u, err := url.Parse(raw)
	b, err2 := url.Parse(base)
	if err != nil || err2 != nil || u.User != nil || !strings.EqualFold(u.Scheme, b.Scheme) || !strings.EqualFold(u.Host, b.Host) {
		return "", false
	}
	path := strings.TrimPrefix(u.Path, strings.TrimSuffix(b.Path, "/"))
	m := pagePath.FindStringSubmatch(path)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// box fits the embed's 4:3 box into maxwidth × maxheight (either may be
// absent), never larger than its natural 800×600.
func box(maxW, maxH string) (int, int, bool) {
	w, h := DefaultWidth, DefaultHeight
	parse := func(s string) (int, bool) {
		if s == "" {
			return 0, true
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= minSide
	}
	mw, ok1 := parse(maxW)
	mh, ok2 := parse(maxH)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if mw > 0 && w > mw {
		w, h = mw, mw*DefaultHeight/DefaultWidth
	}
	if mh > 0 && h > mh {
		h, w = mh, mh*DefaultWidth/DefaultHeight
	}
	return w, h, true
}

func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}
