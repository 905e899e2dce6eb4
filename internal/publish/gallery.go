package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// Gallery pages (issue 29 item 14): a publication whose subject is a
// gallery. Its public page /g/{slug} is a server-rendered grid of the
// gallery's products that are live (published, ready, not deleted), in the
// gallery's order, each opening that product's own page; products without a
// live page are never shown. /g/{slug}/embed is the same grid for an iframe.
// A page view is metered like a product page's: the page is refused with the
// notice when the owner's views are used up, and its GET costs nothing. The
// counted view is the page's view beacon, an image (the page works without
// JavaScript) carrying the page's signed view token, which counts only when
// our page loaded it (ServeGalleryView): one counted view per viewer
// (address, user agent) per ViewWindow, within the per-address and
// per-network ceilings (security review 3, M5).

var errGalleryNotFound = catalog.ErrGalleryNotFound

// PublishGallery publishes a gallery behind a new unguessable link, or
// returns its live one (created=false). Sharing needs a plan that can share
// publicly, as for products.
func (s *Service) PublishGallery(ctx context.Context, userID, galleryID string) (Publication, bool, error) {
	g, ok, err := catalog.LoadGallery(ctx, s.db, galleryID)
	if err != nil {
		return Publication{}, false, err
	}
	if !ok || g.UserID != userID {
		return Publication{}, false, errGalleryNotFound
	}
	if err := s.requireSharing(ctx, userID); err != nil {
		return Publication{}, false, err
	}
	var id string
	created := false
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		existing, err := liveByGallery(ctx, tx, galleryID)
		switch {
		case err == nil:
			id = existing.ID
			return nil
		case !errors.Is(err, errNoRow):
			return err
		}
		id, err = s.createLink(ctx, tx, events.PublicationCreated{UserID: userID, GalleryID: galleryID}, Snapshot{Name: g.Name})
		created = err == nil
		return err
	})
	if pgdb.IsUniqueViolation(err, "publications_live_gallery") {
		return s.PublishGallery(ctx, userID, galleryID) // a concurrent first publish won
	}
	if err != nil {
		return Publication{}, false, err
	}
	return p, created, nil
}

// ForGallery returns the gallery's live publication, or nil when it has none.
func (s *Service) ForGallery(ctx context.Context, userID, galleryID string) (*Publication, error) {
	r, err := liveByGallery(ctx, s.db, galleryID)
	if errors.Is(err, errNoRow) || (err == nil && r.UserID != userID) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read gallery publication: %w", err)
	}
	vs, err := versionsOf(ctx, s.db, r.ID)
	if err != nil {
		return nil, err
	}
	p := s.view(ctx, r, vs)
	return &p, nil
}

// galleryTile is one product in the grid.
type galleryTile struct {
	Name     string
	URL      string // the product's own page, on the host the shopper used (/v/{slug})
	AbsURL   string // the same, absolute: what an embed on another site opens
	ThumbURL string // "" for a gated product: its picture waits behind the email gate
	// TeaserURL: a gated product's tile shows its gate's teaser (a few dozen
	// pixels made from the poster, blurred: teaser.go), never the poster, so
	// the tile is not a blank "3D" square and the gate still holds (P14).
	TeaserURL string
}

// galleryEntry is what a gallery page's cache entry keeps.
type galleryEntry struct {
	// thumbKeys are the tiles' posters by tile index; "" (404) for a gated
	// product, whose poster is what its email gate trades for an address
	// (security review 3, L1).
	thumbKeys []string
}

// galleryView is what the gallery templates see (escaped by html/template).
type galleryView struct {
	Page   pageView
	About  string // the gallery's description
	Tiles  []galleryTile
	Beacon string // the view beacon's URL, with the page's view token (ServeGalleryView)
}

// loadGallery renders a gallery publication's pages into e.
func (p *Pages) loadGallery(ctx context.Context, e *pageEntry, r record, v pageView) error {
	g, ok, err := catalog.LoadGallery(ctx, p.cfg.DB, r.GalleryID)
	if err != nil {
		return err
	}
	if !ok || g.UserID != r.UserID {
		e.missing = true
		return nil
	}
	links := GalleryLinksFor(e.base, e.slug)
	v.Title = strings.TrimSpace(g.Name)
	v.ShareURL = links.Share
	v.QRURL = "/g/" + e.slug + "/qr.png"
	v.Description = v.Title + " — a collection in interactive 3D."
	v.JSONLD = map[string]any{"@context": "https://schema.org", "@type": "CollectionPage", "name": v.Title, "url": links.Share}
	// No script: the view token travels in the beacon image's URL, not in
	// the meta tag the viewer script reads.
	beacon := "/g/" + e.slug + "/view.gif?t=" + url.QueryEscape(v.ViewToken)
	v.ViewToken = ""
	v.Script, v.Preload = "", nil
	gv := galleryView{Page: v, About: strings.TrimSpace(g.Description), Beacon: beacon}
	ge := &galleryEntry{}
	for _, pid := range g.ProductIDs {
		pr, err := liveByProduct(ctx, p.cfg.DB, pid)
		if errors.Is(err, errNoRow) {
			continue // not published: never shown
		}
		if err != nil {
			return err
		}
		if pr.UserID != r.UserID {
			continue
		}
		snap, err := productSnapshot(ctx, p.cfg.DB, r.UserID, pid)
		if errors.Is(err, errProductNotFound) || errors.Is(err, errProductNotReady) {
			continue
		}
		if err != nil {
			return err
		}
		t := galleryTile{Name: strings.TrimSpace(snap.Name), URL: "/v/" + pr.Slug, AbsURL: LinksFor(e.base, pr.Slug).Share}
		if t.Name == "" {
			t.Name = "3D product"
		}
		thumbKey := snap.ThumbnailKey
		if pr.RequireEmail {
			thumbKey = "" // no tile picture at all: the gate keeps the poster
		}
		if pr.RequireEmail && snap.ThumbnailKey != "" {
			t.TeaserURL = "/v/" + pr.Slug + "/teaser.jpg?v=" + assetTag(snap.ThumbnailKey)
		}
		if thumbKey != "" {
			t.ThumbURL = "/g/" + e.slug + "/t/" + strconv.Itoa(len(ge.thumbKeys)) + ".png?v=" + assetTag(thumbKey)
		}
		ge.thumbKeys = append(ge.thumbKeys, thumbKey)
		gv.Tiles = append(gv.Tiles, t)
	}
	e.gallery = ge
	if e.share, err = renderGallery(gv); err != nil {
		return err
	}
	gv.Page.Embed = true
	e.embed, err = renderGallery(gv)
	return err
}

func renderGallery(gv galleryView) (pageBody, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "gallery", gv); err != nil {
		return pageBody{}, fmt.Errorf("render gallery page: %w", err)
	}
	return compressBody("gallery", buf.Bytes())
}

// ServeGallery answers /g/{slug} (embed=false) and /g/{slug}/embed.
func (p *Pages) ServeGallery(w http.ResponseWriter, r *http.Request, slug string, embed bool) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	pageHeaders(w, embed, e.embedOrigins)
	if e.missing || e.gallery == nil {
		p.notFound(w, embed)
		return
	}
	body := e.share
	if embed {
		body = e.embed
	}
	// The page itself costs nothing (any site can make a browser GET it):
	// its view beacon is the counted view (ServeGalleryView). The page only
	// checks that the balance can still serve one.
	if counts(r) && !p.cfg.Meter.Available(r.Context(), e.ownerID, e.pubID) {
		body = e.unavailShare
		if embed {
			body = e.unavailEmbed
		}
	}
	body.write(w, r)
}

// ServeGalleryView answers /g/{slug}/view.gif, the gallery page's view
// beacon: an image the page (or its embed) loads, whose URL carries the
// page's view token. It counts the view, as CountView counts a product
// page's `view` beacon, only when the token is one we rendered into this
// gallery's page and has not expired, and the image was loaded by our page
// or by a site the merchant allows to embed it: 403 otherwise, spending
// nothing. Counted or not (a repeat viewer, an address or network at its
// ceiling, a crawler), the answer is the same transparent pixel.
func (p *Pages) ServeGalleryView(w http.ResponseWriter, r *http.Request, slug string) {
	w.Header().Set("Cache-Control", "no-store") // every view must reach us
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if e.missing || e.gallery == nil {
		http.NotFound(w, r)
		return
	}
	if !beaconFromOurPage(r, p.cfg.BaseURL, e.embedOrigins) || p.tokens.check(purposeView, slug, e.pubID, r.URL.Query().Get("t"), p.now()) != nil {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	if counts(r) {
		p.CountView(r.Context(), PublicationRef{PublicationID: e.pubID, OwnerID: e.ownerID, SubjectID: e.subjectID},
			slug, clientIP(r), r.UserAgent())
	}
	h := w.Header()
	h.Set("Content-Type", "image/gif")
	h.Set("Content-Length", strconv.Itoa(len(pixelGIF)))
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pixelGIF)
}

// beaconFromOurPage reports whether a view beacon image was loaded by one
// of our pages (their host is the request's, or PUBLIC_BASE_URL's) or by a
// page of an embed origin the merchant allows. A browser says who asked in
// Sec-Fetch-Site, which no page can forge; a browser without it, in its
// Referer (our pages send it to us in full). The beacon must be fetched as
// an image: Sec-Fetch-Dest document or iframe is a navigation to it, not our
// page's <img>. With neither header nothing vouches for the request and it
// is refused: an uncounted view costs the merchant nothing. A script
// outside a browser can forge all of these, which is what the view token
// and the per-address and per-network ceilings are for.
func beaconFromOurPage(r *http.Request, baseURL string, embedOrigins []string) bool {
	if d := r.Header.Get("Sec-Fetch-Dest"); d != "" && d != "image" {
		return false
	}
	site := r.Header.Get("Sec-Fetch-Site")
	switch site {
	case "same-origin":
		return true
	case "", "same-site", "cross-site":
	default: // "none": typed or bookmarked, no page asked
		return false
	}
	origin, u, ok := RequestOrigin(r)
	if !ok {
		return false
	}
	if EmbedOriginAllows(embedOrigins, origin) {
		return true
	}
	if site != "" {
		return false // another site's page, whatever its Referer says
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	b, err := url.Parse(baseURL)
	return err == nil && b.Host != "" && strings.EqualFold(b.Scheme+"://"+b.Host, origin)
}

// pixelGIF is the view beacon's answer: one transparent pixel.
var pixelGIF = func() []byte {
	var buf bytes.Buffer
	_ = gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Transparent}), nil)
	return buf.Bytes()
}()

// ServeGalleryThumb streams tile n's thumbnail (not metered: the page was).
func (p *Pages) ServeGalleryThumb(w http.ResponseWriter, r *http.Request, slug, file string) {
	e, err := p.entry(r.Context(), slug)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(strings.TrimSuffix(file, ".png"))
	if e.missing || e.gallery == nil || err != nil || n < 0 || n >= len(e.gallery.thumbKeys) || e.gallery.thumbKeys[n] == "" || p.cfg.Bucket == nil {
		http.NotFound(w, r)
		return
	}
	p.stream(w, r, e, e.gallery.thumbKeys[n], AssetPoster)
}

// RequestOrigin is the origin a browser says a request came from: its
// Origin header, else its Referer's scheme and host. ok is false when there
// is none (or "null"): the view beacons count nothing without one.
func RequestOrigin(r *http.Request) (origin string, u *url.URL, ok bool) {
	origin = r.Header.Get("Origin")
	if origin == "" {
		if ref, err := url.Parse(r.Header.Get("Referer")); err == nil && ref.Scheme != "" && ref.Host != "" {
			origin = ref.Scheme + "://" + ref.Host
		}
	}
	u, err := url.Parse(origin)
	if origin == "" || origin == "null" || err != nil || u.Host == "" {
		return "", nil, false
	}
	return origin, u, true
}
