package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/publish"
)

// DefaultBeaconRateLimit is beacon requests per minute per client address
// (an IPv4 address or an IPv6 /64) on POST /t: one page sends a batch every
// 15 s at most, so this is a hundred shoppers behind one NAT (security
// review 2, item 5: it was 6,000); the per-address event budget and the
// per-viewer limits are in analytics.Collector.
const DefaultBeaconRateLimit = 600

// PublicationsOf adapts the public pages to what the collector needs: slug
// lookup from the page cache and the counted-view decision (publish/viewcount.go).
func PublicationsOf(p *publish.Pages) analytics.Publications { return pagesPubs{p} }

type pagesPubs struct{ p *publish.Pages }

func (a pagesPubs) Lookup(ctx context.Context, slug string) (analytics.Publication, bool, error) {
	ref, ok, err := a.p.Lookup(ctx, slug)
	return analytics.Publication{ID: ref.PublicationID, OwnerID: ref.OwnerID, ProductID: ref.SubjectID, EmbedOrigins: ref.EmbedOrigins}, ok, err
}

func (a pagesPubs) CheckViewToken(slug, pubID, token string) error {
	return a.p.CheckViewToken(slug, pubID, token)
}

func (a pagesPubs) Arm(ctx context.Context, slug, viewer string) string {
	return a.p.ArmFor(ctx, slug, viewer)
}

func (a pagesPubs) CountView(ctx context.Context, pub analytics.Publication, slug, addr, viewer string) bool {
	return a.p.CountView(ctx, publish.PublicationRef{PublicationID: pub.ID, OwnerID: pub.OwnerID, SubjectID: pub.ProductID}, slug, addr, viewer)
}

// ShopperPages makes the public pages with their buy-link redirect and email
// gate reporting to shopper analytics, and points the collector at those
// pages for slug lookups and counted views. cmd/api wires them here so a test
// can prove the wiring (each needs the other, hence one place).
func ShopperPages(pc publish.PagesConfig, c *analytics.Collector) *publish.Pages {
	pc.OnBuyClick = c.BuyClickHook()
	pc.OnLead = c.Lead
	pages := publish.NewPages(pc)
	c.Pubs = PublicationsOf(pages)
	return pages
}

// mountBeacons adds POST /t, the public viewer's beacon endpoint (README,
// "Beacon protocol"). Its answers are bare statuses, never the JSON envelope:
// navigator.sendBeacon ignores the response.
func mountBeacons(r chi.Router, c *analytics.Collector, perMinute int) {
	if c == nil {
		return
	}
	if perMinute <= 0 {
		perMinute = DefaultBeaconRateLimit
	}
	r.With(httprate.Limit(perMinute, time.Minute, httprate.WithKeyFuncs(httprate.KeyByIP), noRateHeaders)).
		Post("/t", collectBeacons(c))
}

// collectBeacons answers 204 for a stored (or deliberately dropped) batch,
// 400 for a malformed one (refused whole), 403 without a valid view token or
// from another site, 404 for an unknown publication, 413 over 16 KB, 415 for
// another body type, 429 over the viewer's or the address's budget and 503
// while the event buffer is full.
func collectBeacons(c *analytics.Collector) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !analytics.ParseContentType(r.Header.Get("Content-Type")) {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, analytics.MaxBatchBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				return
			}
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		now := time.Now()
		if c.Now != nil {
			now = c.Now()
		}
		b, err := analytics.ParseBatch(body, now)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch err := c.Collect(r, b); {
		case err == nil:
			w.WriteHeader(http.StatusNoContent)
		case errors.Is(err, analytics.ErrUnknownPublication):
			w.WriteHeader(http.StatusNotFound)
		case errors.Is(err, analytics.ErrForbidden):
			w.WriteHeader(http.StatusForbidden)
		case errors.Is(err, analytics.ErrViewerRateLimited), errors.Is(err, analytics.ErrAddressRateLimited):
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
		case errors.Is(err, analytics.ErrBufferFull):
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}
}
