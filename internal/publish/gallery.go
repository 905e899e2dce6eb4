package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
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
// A page view is metered like a product page's: refused with the notice
// when the owner's views are used up, and one counted view per viewer
// (address, user agent) per ViewWindow. The page works without JavaScript.

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
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
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
	p, err := s.Get(ctx, userID, id)
	return p, created, err
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
}

// galleryEntry is what a gallery page's cache entry keeps.
type galleryEntry struct {
	thumbKeys []string // by tile index
}

// galleryView is what the gallery templates see (escaped by html/template).
type galleryView struct {
	Page  pageView
	About string // the gallery's description
	Tiles []galleryTile
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
	v.ViewToken = "" // no beacons: the page's GET is its view (ServeGallery)
	v.Script, v.Preload = "", nil
	gv := galleryView{Page: v, About: strings.TrimSpace(g.Description)}
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
		if !pr.RequireEmail && snap.ThumbnailKey != "" {
			t.ThumbURL = "/g/" + e.slug + "/t/" + strconv.Itoa(len(ge.thumbKeys)) + ".png?v=" + assetTag(snap.ThumbnailKey)
		}
		ge.thumbKeys = append(ge.thumbKeys, snap.ThumbnailKey)
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
	if counts(r) {
		if !p.cfg.Meter.Available(r.Context(), e.ownerID, e.pubID) {
			body = e.unavailShare
			if embed {
				body = e.unavailEmbed
			}
		} else {
			// No script on this page: its GET is the view, counted once per
			// viewer (address and user agent) per window, within the
			// per-address ceiling, as CountView counts a product page's beacon.
			p.CountView(r.Context(), PublicationRef{PublicationID: e.pubID, OwnerID: e.ownerID, SubjectID: e.subjectID},
				slug, clientIP(r), r.UserAgent())
		}
	}
	body.write(w, r)
}

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
