package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/channels/oembed"
	"github.com/photo3d/photo3d/internal/publish"
)

// DefaultPublicRateLimit is requests per minute per IP on the public pages:
// far above what one shopper (or one office behind a NAT) makes, low enough
// to blunt a scraper.
const DefaultPublicRateLimit = 600

// LeadRateLimit is email-gate submissions per minute per IP: enough for a
// shop counter's shared connection, too few to fill a merchant's list with junk.
const LeadRateLimit = 20

// LeadsPerPublicationPerMinute is email-gate submissions per minute per
// publication, whatever the addresses (security review 2, item 8: 60 junk
// leads from 60 /64s were all accepted).
const LeadsPerPublicationPerMinute = 30

// leadsTooMany is the gate's 429 in the JSON shape its script shows.
func leadsTooMany(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"error":{"code":"rate_limited","message":"Too many emails were left on this page just now. Please try again in a minute."}}`))
}

// shopperRouter is the router of what shoppers hit at volume: the share and
// embed pages, their assets and the beacon endpoint. It carries only the
// middleware those routes need (client address behind trusted proxies,
// request id, metrics, panic recovery, security headers; the per-IP limits
// are on the routes), not the app's CORS, upload body caps, or compressor
// (the pages send their own gzip, images and models are not compressed);
// each of those cost a share page view time and allocations under load.
func shopperRouter(d Deps) *chi.Mux {
	pub := chi.NewRouter()
	pub.Use(realClientIP(d.TrustedProxies), requestIDFor(d.Logger, false))
	if d.Metrics != nil {
		pub.Use(observe(d.Metrics.HTTPDuration))
	} else {
		pub.Use(observe(nil))
	}
	pub.Use(recoverer, securityHeaders(d.HTTPSOnly))
	return pub
}

// shopperFirst is the app router's first middleware: /v/…, /embed/…, /g/… and /t
// go to the shopper router, and what that does not route (an unknown path
// under /v/) continues through the app's own chain, as does everything else.
func shopperFirst(pub *chi.Mux) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		pub.NotFound(next.ServeHTTP)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := r.URL.Path
			if strings.HasPrefix(p, "/v/") || strings.HasPrefix(p, "/embed/") || strings.HasPrefix(p, "/g/") || p == "/t" || p == "/oembed" || strings.HasPrefix(p, "/feeds/") {
				pub.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// noRateHeaders drops httprate's X-RateLimit-* answer headers (three
// formatted numbers on every page view nobody reads); the limit and the
// 429 with Retry-After stay.
var noRateHeaders = httprate.WithResponseHeaders(httprate.ResponseHeaders{RetryAfter: "Retry-After"})

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
			httprate.WithKeyFuncs(httprate.KeyByIP), noRateHeaders,
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
			pub.Method(m, "/v/{slug}/teaser.jpg", asset(publish.AssetTeaser)) // the email gate's teaser (issue 29 item 19)
			pub.Method(m, "/v/{slug}/logo", asset(publish.AssetLogo))
			pub.MethodFunc(m, "/v/{slug}/qr.png", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeQR(w, r, chi.URLParam(r, "slug"))
			})
		}
		// oEmbed (issue 32): blogs and CMSs turn a share link into our embed.
		oe := oembed.Handler(pages, nil)
		pub.Method(http.MethodGet, "/oembed", oe)
		pub.Method(http.MethodHead, "/oembed", oe)
		mountGalleryPages(pub, pages) // /g/{slug}: a gallery's live products (gallery_pages.go)
		// Product pages: per-variant AR files and buy-button redirects.
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			pub.MethodFunc(m, "/v/{slug}/ar/{file}", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeAR(w, r, chi.URLParam(r, "slug"), chi.URLParam(r, "file"))
			})
			pub.MethodFunc(m, "/v/{slug}/go/{linkId}", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeGo(w, r, chi.URLParam(r, "slug"), chi.URLParam(r, "linkId"))
			})
		}
		// The email gate: far fewer submissions per address than page views,
		// and a ceiling per publication, so junk from many addresses cannot
		// bury a merchant's real leads.
		pub.With(httprate.Limit(LeadRateLimit, time.Minute, httprate.WithKeyFuncs(httprate.KeyByIP)),
			httprate.Limit(LeadsPerPublicationPerMinute, time.Minute, httprate.WithKeyFuncs(func(r *http.Request) (string, error) {
				return chi.URLParam(r, "slug"), nil
			}), noRateHeaders, httprate.WithLimitHandler(leadsTooMany))).
			Post("/v/{slug}/lead", func(w http.ResponseWriter, r *http.Request) {
				pages.ServeLead(w, r, chi.URLParam(r, "slug"))
			})
	})
}
