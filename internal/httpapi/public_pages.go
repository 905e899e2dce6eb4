package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/publish"
)

// DefaultPublicRateLimit is requests per minute per IP on the public pages:
// far above what one shopper (or one office behind a NAT) makes, low enough
// to blunt a scraper.
const DefaultPublicRateLimit = 600

// LeadRateLimit is email-gate submissions per minute per IP: enough for a
// shop counter's shared connection, too few to fill a merchant's list with junk.
const LeadRateLimit = 20

// mountPublicPages adds the shopper-facing pages: no sign-in, rate-limited
// per IP, every answer HTML or bytes (never the JSON envelope).
func mountPublicPages(r chi.Router, pages *publish.Pages, perMinute int) {
	if pages == nil {
		return
	}
	if perMinute <= 0 {
		perMinute = DefaultPublicRateLimit
	}
	r.Group(func(pub chi.Router) {
		pub.Use(httprate.Limit(perMinute, time.Minute,
			httprate.WithKeyFuncs(httprate.KeyByIP),
			httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("Retry-After", "60")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte("Too many requests. Please wait a minute and try again.\n"))
			})))
		viewer := func(embed bool) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				pages.ServeViewer(w, r, chi.URLParam(r, "slug"), embed)
			}
		}
		asset := func(kind string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				pages.ServeAsset(w, r, chi.URLParam(r, "slug"), kind)
			}
		}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			pub.Method(m, "/v/{slug}", viewer(false))
			pub.Method(m, "/embed/{slug}", viewer(true))
			pub.Method(m, "/v/{slug}/model.glb", asset(publish.AssetModel))
			pub.Method(m, "/v/{slug}/poster.png", asset(publish.AssetPoster))
			pub.Method(m, "/v/{slug}/logo", asset(publish.AssetLogo))
			pub.MethodFunc(m, "/v/{slug}/qr.png", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeQR(w, r, chi.URLParam(r, "slug"))
			})
		}
		// Product pages: per-variant AR files and buy-button redirects.
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			pub.MethodFunc(m, "/v/{slug}/ar/{file}", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeAR(w, r, chi.URLParam(r, "slug"), chi.URLParam(r, "file"))
			})
			pub.MethodFunc(m, "/v/{slug}/go/{linkId}", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeGo(w, r, chi.URLParam(r, "slug"), chi.URLParam(r, "linkId"))
			})
		}
		// The email gate: far fewer submissions per address than page views.
		pub.With(httprate.Limit(LeadRateLimit, time.Minute, httprate.WithKeyFuncs(httprate.KeyByIP))).
			Post("/v/{slug}/lead", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeLead(w, r, chi.URLParam(r, "slug"))
			})
	})
}
