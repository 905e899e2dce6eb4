package publish

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/experiment"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// NotifyChannel carries the slug of a publication whose public page changed
// (unpublished, locked, versioned), so every api instance drops its cached
// page at once instead of waiting for the cache TTL.
const NotifyChannel = "photo3d_publications"

// Plans answers whether a user's effective plan allows public sharing (spec:
// any non-free plan, trial included). internal/subscription provides it.
type Plans interface {
	CanSharePublic(ctx context.Context, userID string) (bool, error)
}

// User-facing failures of this package, worded once.
var (
	ErrUpgradeRequired = fault.New(fault.Forbidden, "upgrade_required",
		"Public sharing is a Pro feature. Upgrade to Pro or start a free trial to share links and embeds.")
	errBlueprintNotFound   = fault.New(fault.NotFound, "not_found", "Blueprint not found.")
	errPublicationNotFound = fault.New(fault.NotFound, "not_found", "Publication not found.")
	errStillBuilding       = fault.New(fault.Conflict, "blueprint_not_ready",
		"This blueprint is still being built. Publish it when its 3D model is ready.")
	errUnpublished = fault.New(fault.Conflict, "unpublished",
		"This link has been unpublished. Publish the blueprint again to get a new link.")
	errBlueprintIDRequired = fault.New(fault.Invalid, "invalid_blueprint_id", "Choose a blueprint to publish (blueprintId).")
)

// Publication is a share link as the merchant sees it.
type Publication struct {
	ID             string        `json:"id"`
	PublicationID  string        `json:"publicationId"` // = ID, the name the product publish answer uses
	BlueprintID    string        `json:"blueprintId"`
	ProductID      string        `json:"productId"`
	GalleryID      string        `json:"galleryId"`
	RequireEmail   bool          `json:"requireEmail"`
	AllowDeepLinks bool          `json:"allowDeepLinks"`
	Locked         bool          `json:"locked"`
	Name           string        `json:"name"`
	Slug           string        `json:"slug"`
	ShareURL       string        `json:"shareURL"`
	EmbedURL       string        `json:"embedURL"`
	EmbedCode      string        `json:"embedCode"`
	QRURL          string        `json:"qrURL"`
	Version        int           `json:"version"`
	LockedVersion  int           `json:"lockedVersion"`
	PendingEdits   bool          `json:"pendingEdits"` // locked, and the subject changed since: shoppers do not see those edits
	Status         string        `json:"status"`       // live | unpublished
	Versions       []VersionInfo `json:"versions"`
	CreatedAt      time.Time     `json:"createdAt"`
	UpdatedAt      time.Time     `json:"updatedAt"`
	UnpublishedAt  *time.Time    `json:"unpublishedAt,omitempty"`
	// EmbedOrigins are the sites allowed to frame EmbedURL; empty: any site.
	EmbedOrigins []string `json:"embedOrigins"`
}

// VersionInfo is one immutable version in the merchant's list.
type VersionInfo struct {
	Version   int       `json:"version"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// Service creates and manages publications. Every change is an event on the
// publication's own stream, so publishing never contends with the owner's
// subscription or job streams.
type Service struct {
	db      *pgxpool.Pool
	store   *eventstore.Store
	plans   Plans
	baseURL string
	now     func() time.Time
}

// NewService builds the service; baseURL is PUBLIC_BASE_URL (links are absolute).
func NewService(db *pgxpool.Pool, store *eventstore.Store, plans Plans, baseURL string) *Service {
	return &Service{db: db, store: store, plans: plans, baseURL: baseURL, now: time.Now}
}

// newSlug returns 96 random bits, base64url: unguessable, URL-safe, 16 characters.
func newSlug() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate slug: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func stream(id string) events.Stream { return events.Stream{Type: events.StreamPublication, ID: id} }

func (s *Service) requireSharing(ctx context.Context, userID string) error {
	ok, err := s.plans.CanSharePublic(ctx, userID)
	if err != nil {
		return fmt.Errorf("check plan: %w", err)
	}
	if !ok {
		return ErrUpgradeRequired
	}
	return nil
}

// Create publishes a blueprint behind a new unguessable link with version 1,
// or returns the blueprint's existing live publication (created=false).
func (s *Service) Create(ctx context.Context, userID, blueprintID string) (Publication, bool, error) {
	if blueprintID == "" {
		return Publication{}, false, errBlueprintIDRequired
	}
	if err := s.requireSharing(ctx, userID); err != nil {
		return Publication{}, false, err
	}
	var id string
	created := false
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		existing, err := liveByBlueprint(ctx, tx, blueprintID)
		switch {
		case err == nil && existing.UserID == userID:
			id = existing.ID
			return nil
		case err == nil:
			return errBlueprintNotFound
		case !errors.Is(err, errNoRow):
			return err
		}
		bp, exists, err := loadBlueprint(ctx, s.store, tx, blueprintID)
		if err != nil {
			return err
		}
		if !exists || bp.UserID != userID || bp.Deleted {
			return errBlueprintNotFound
		}
		if !bp.Completed {
			return errStillBuilding
		}
		id, err = s.createLink(ctx, tx, events.PublicationCreated{UserID: userID, BlueprintID: blueprintID}, bp.Snapshot)
		created = err == nil
		return err
	})
	if pgdb.IsUniqueViolation(err, "publications_live_blueprint") {
		// A concurrent create won: answer with its publication.
		existing, rerr := liveByBlueprint(ctx, s.db, blueprintID)
		if rerr != nil || existing.UserID != userID {
			return Publication{}, false, fmt.Errorf("read concurrently created publication: %w", errors.Join(err, rerr))
		}
		// Nothing of this request was written: read after the fact is safe.
		p, err = s.Get(ctx, userID, existing.ID)
		return p, false, err
	}
	if err != nil {
		return Publication{}, false, err
	}
	return p, created, nil
}

// createLink appends a new publication: created (its id, slug and time are
// filled in here), version 1 of snap, then the events more builds for the new
// id (a product's settings). One append: the link exists whole or not at all.
func (s *Service) createLink(ctx context.Context, tx pgx.Tx, created events.PublicationCreated, snap Snapshot,
	more ...func(id string, at time.Time) events.Event) (string, error) {
	m, err := snap.asMap()
	if err != nil {
		return "", err
	}
	slug, err := newSlug()
	if err != nil {
		return "", err
	}
	id, now := uuid.NewString(), s.now().UTC()
	created.PublicationID, created.Slug, created.At = id, slug, now
	evs := []events.Event{created, events.PublicationVersioned{PublicationID: id, Version: 1, Snapshot: m, At: now}}
	for _, f := range more {
		evs = append(evs, f(id, now))
	}
	_, err = s.store.Append(ctx, tx, stream(id), 0, evs...)
	return id, err
}

// Get returns one of the user's publications (live or unpublished).
func (s *Service) Get(ctx context.Context, userID, id string) (Publication, error) {
	return s.get(ctx, s.db, userID, id)
}

// get is Get through q: a write reads its answer with it inside its own
// transaction (withTxThenGet).
func (s *Service) get(ctx context.Context, q pgdb.Querier, userID, id string) (Publication, error) {
	r, err := s.owned(ctx, q, userID, id)
	if err != nil {
		return Publication{}, err
	}
	vs, err := versionsOf(ctx, q, id)
	if err != nil {
		return Publication{}, err
	}
	p := s.view(ctx, r, vs)
	p.PendingEdits, err = s.pendingEdits(ctx, q, r, vs)
	return p, err
}

// withTxThenGet runs fn in a transaction and answers the publication *id
// (fn may set it) as that transaction left it. The answer is read before the
// COMMIT, never after it: a read after it can fail (the database restarting,
// the client going away) and answer an error for a change that was made, and
// a client retrying that error makes it twice (a second version; see
// job.Service.startBuild for the build it once charged twice).
func (s *Service) withTxThenGet(ctx context.Context, userID string, id *string, fn func(tx pgx.Tx) error) (Publication, error) {
	var p Publication
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		p, err = s.get(ctx, tx, userID, *id)
		return err
	})
	if err != nil {
		return Publication{}, err
	}
	return p, nil
}

// List returns the user's publications, live first, newest first; blueprintID
// narrows it to one blueprint (how the web app finds an existing link).
func (s *Service) List(ctx context.Context, userID, blueprintID string) ([]Publication, error) {
	rs, err := listByUser(ctx, s.db, userID, blueprintID)
	if err != nil {
		return nil, err
	}
	out := make([]Publication, 0, len(rs))
	for _, r := range rs {
		vs, err := versionsOf(ctx, s.db, r.ID)
		if err != nil {
			return nil, err
		}
		p := s.view(ctx, r, vs)
		if p.PendingEdits, err = s.pendingEdits(ctx, s.db, r, vs); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Unpublish stops the link at once: the read model is updated in the same
// transaction and every api instance is told to drop its cached page. It is
// idempotent: unpublishing twice is not an error. It returns the publication
// as it now stands.
func (s *Service) Unpublish(ctx context.Context, userID, id string) (Publication, error) {
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		r, err := s.owned(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if r.UnpublishedAt != nil {
			return nil
		}
		at := s.now().UTC()
		// An experiment on the page ends with it (issue 52).
		if err := experiment.StopForPublication(ctx, tx, s.store, id, "unpublished", at); err != nil {
			return err
		}
		return s.append(ctx, tx, r, events.PublicationUnpublished{PublicationID: id, At: at})
	})
	if err != nil {
		return Publication{}, err
	}
	return p, nil
}

// NewVersion snapshots the blueprint's current state as the next immutable version.
func (s *Service) NewVersion(ctx context.Context, userID, id string) (Publication, error) {
	if err := s.requireSharing(ctx, userID); err != nil {
		return Publication{}, err
	}
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		r, err := s.live(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		snap, err := s.currentSnapshot(ctx, tx, r)
		if err != nil {
			return err
		}
		return s.append(ctx, tx, r, events.PublicationVersioned{PublicationID: id, Version: r.CurrentVersion + 1,
			Snapshot: snap, At: s.now().UTC()})
	})
	if err != nil {
		return Publication{}, err
	}
	return p, nil
}

// currentSnapshot is what a new version of r freezes: its product's or its
// blueprint's state now.
func (s *Service) currentSnapshot(ctx context.Context, tx pgx.Tx, r record) (map[string]any, error) {
	snap, err := s.currentState(ctx, tx, r)
	if err != nil {
		return nil, err
	}
	return snap.asMap()
}

// currentState is r's subject as an unlocked page shows it now.
func (s *Service) currentState(ctx context.Context, q pgdb.Querier, r record) (Snapshot, error) {
	if r.ProductID != "" {
		return productSnapshot(ctx, q, r.UserID, r.ProductID)
	}
	bp, exists, err := loadBlueprint(ctx, s.store, q, r.BlueprintID)
	if err != nil {
		return Snapshot{}, err
	}
	if !exists || bp.Deleted {
		return Snapshot{}, errBlueprintNotFound
	}
	if !bp.Completed {
		return Snapshot{}, errStillBuilding
	}
	return bp.Snapshot, nil
}

// Lock pins the link to one existing version while edits continue; version 0
// unlocks, and the link follows the blueprint's edits live again. To freeze
// what shoppers see now, use LockLive: the latest version may be older than
// the live page.
func (s *Service) Lock(ctx context.Context, userID, id string, version int) (Publication, error) {
	p, err := s.withTxThenGet(ctx, userID, &id, func(tx pgx.Tx) error {
		r, err := s.live(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if version < 0 || version > r.CurrentVersion {
			return fault.Invalidf("invalid_version", "Version %d does not exist; choose a version from 1 to %d, or 0 to unlock.",
				version, r.CurrentVersion)
		}
		if version == r.LockedVersion {
			return nil
		}
		return s.append(ctx, tx, r, events.PublicationLocked{PublicationID: id, Version: version})
	})
	if err != nil {
		return Publication{}, err
	}
	return p, nil
}

// LockLive pins the link to what shoppers see now. An unlocked page shows
// its product or blueprint live, which usually has moved on since the latest
// version (a price and buy links added after publishing), so pinning that
// version took them off the page without a word (issue 50 item 1). Here the
// current state becomes a new version when it differs from the latest one,
// and that version is pinned, in one append. On a locked link it does the
// same: the merchant's edits made while locked go live and stay locked.
func (s *Service) LockLive(ctx context.Context, userID, id string) (Publication, error) {
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error { return s.lockLiveTx(ctx, tx, userID, id) })
	if err != nil {
		return Publication{}, err
	}
	return s.Get(ctx, userID, id)
}

// lockLiveTx is LockLive in the caller's transaction.
func (s *Service) lockLiveTx(ctx context.Context, tx pgx.Tx, userID, id string) error {
	r, err := s.live(ctx, tx, userID, id)
	if err != nil {
		return err
	}
	if r.GalleryID != "" {
		return errGalleryLock
	}
	now, err := s.currentState(ctx, tx, r)
	if err != nil {
		return err
	}
	latest, err := versionSnapshot(ctx, tx, id, r.CurrentVersion)
	if err != nil {
		return err
	}
	version := r.CurrentVersion
	var evs []events.Event
	if same, err := sameSnapshot(now, latest); err != nil {
		return err
	} else if !same {
		m, err := now.asMap()
		if err != nil {
			return err
		}
		version++
		evs = append(evs, events.PublicationVersioned{PublicationID: id, Version: version, Snapshot: m, At: s.now().UTC()})
	}
	if version != r.LockedVersion {
		evs = append(evs, events.PublicationLocked{PublicationID: id, Version: version})
	}
	if len(evs) == 0 {
		return nil
	}
	return s.append(ctx, tx, r, evs...)
}

var errGalleryLock = fault.New(fault.Invalid, "invalid_version",
	"A gallery page always shows its products' own pages; lock a product's page instead.")

// pendingEdits reports whether a locked link's subject has changed since the
// locked version: edits the merchant made that shoppers do not see. The
// screen says so, so a lock never hides changes silently. A subject that is
// gone or rebuilding counts as unchanged (the page says what it can).
func (s *Service) pendingEdits(ctx context.Context, q pgdb.Querier, r record, vs []versionRow) (bool, error) {
	if r.LockedVersion == 0 || r.GalleryID != "" || r.UnpublishedAt != nil {
		return false, nil
	}
	i := slices.IndexFunc(vs, func(v versionRow) bool { return v.Version == r.LockedVersion })
	if i < 0 {
		return false, nil
	}
	now, err := s.currentState(ctx, q, r)
	if fault.IsKind(err, fault.NotFound) || fault.IsKind(err, fault.Conflict) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	same, err := sameSnapshot(now, vs[i].Snapshot)
	return !same, err
}

// append writes events at the stream's current version (a concurrent
// change is a conflict, never a lost update) and tells every instance that
// the public page changed.
func (s *Service) append(ctx context.Context, tx pgx.Tx, r record, evs ...events.Event) error {
	v, err := s.store.Version(ctx, tx, stream(r.ID))
	if err != nil {
		return err
	}
	if _, err := s.store.Append(ctx, tx, stream(r.ID), v, evs...); err != nil {
		return err
	}
	// After the COMMIT where the transaction allows it, so a publish never
	// holds Postgres's NOTIFY lock through its commit flush (see
	// pgdb.AfterCommitter); a wake-up lost in a crash is bounded by the page
	// cache's TTL.
	if ac, ok := tx.(pgdb.AfterCommitter); ok {
		ac.AfterCommit("notify "+NotifyChannel+" "+r.Slug, `SELECT pg_notify($1, $2)`, NotifyChannel, r.Slug)
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, r.Slug); err != nil {
		return fmt.Errorf("notify page change: %w", err)
	}
	return nil
}

// owned reads a publication of userID; someone else's is reported as missing.
func (s *Service) owned(ctx context.Context, q pgdb.Querier, userID, id string) (record, error) {
	if _, err := uuid.Parse(id); err != nil {
		return record{}, errPublicationNotFound
	}
	r, err := byID(ctx, q, id)
	if errors.Is(err, errNoRow) || (err == nil && r.UserID != userID) {
		return record{}, errPublicationNotFound
	}
	return r, err
}

// live is owned plus "still published", locking the row so concurrent
// changes to one publication queue up instead of conflicting.
func (s *Service) live(ctx context.Context, tx pgx.Tx, userID, id string) (record, error) {
	r, err := s.owned(ctx, tx, userID, id)
	if err != nil {
		return record{}, err
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM publications WHERE id = $1 FOR UPDATE`, id); err != nil {
		return record{}, fmt.Errorf("lock publication: %w", err)
	}
	r, err = byID(ctx, tx, id)
	if err != nil {
		return record{}, err
	}
	if r.UnpublishedAt != nil {
		return record{}, errUnpublished
	}
	return r, nil
}

// Links are the public addresses of a slug.
type Links struct {
	Share string
	Embed string
	QR    string
}

// LinksFor builds a slug's absolute public URLs. They always start with
// PUBLIC_BASE_URL, whatever host the request that asked for them was made
// to: a share link, embed code, QR code, oEmbed discovery link or mailed
// link is pasted, printed and opened elsewhere, so it must name the one
// address the server is configured to be reachable at, and the oEmbed
// endpoint accepts exactly these URLs (issue 50 item 15; docs/publishing.md).
// Links once followed the request's host when PUBLIC_BASE_URL was unset
// (issue 29 item 10), which made the app hand out two addresses for itself.
func LinksFor(baseURL, slug string) Links {
	esc := url.PathEscape(slug)
	return Links{
		Share: baseURL + "/v/" + esc,
		Embed: baseURL + "/embed/" + esc,
		QR:    baseURL + "/v/" + esc + "/qr.png",
	}
}

// GalleryLinksFor are a gallery page's links (/g/{slug}, its embed and QR).
func GalleryLinksFor(baseURL, slug string) Links {
	esc := url.PathEscape(slug)
	return Links{
		Share: baseURL + "/g/" + esc,
		Embed: baseURL + "/g/" + esc + "/embed",
		QR:    baseURL + "/g/" + esc + "/qr.png",
	}
}

// EmbedCode is the iframe snippet merchants paste: 800×600 as the spec says,
// fullscreen and WebXR allowed, lazy, borderless, titled for screen readers,
// and responsive (EmbedCodeSized).
func EmbedCode(embedURL, name string) string { return EmbedCodeSized(embedURL, name, 800, 600) }

// EmbedCodeSized is EmbedCode for a box of width×height pixels (oEmbed
// consumers ask for one with maxwidth and maxheight). The box is a maximum,
// not a fixed size: the iframe is as wide as the column it is pasted into, at
// most width pixels, and its height follows the box's aspect ratio (CSS
// aspect-ratio), so on a 390-pixel phone it shrinks to the screen instead of
// running 800 pixels off it (merchant walk 4, H4). The width and height
// attributes stay for what reads them rather than the style: oEmbed
// consumers, and site builders that strip style and size embeds themselves.
// One element, no wrapper, so "the html is an iframe" still holds for them.
func EmbedCodeSized(embedURL, name string, width, height int) string {
	title := "3D view"
	if name != "" {
		title = name + " in 3D"
	}
	w, h := strconv.Itoa(width), strconv.Itoa(height)
	return `<iframe src="` + html.EscapeString(embedURL) + `" title="` + html.EscapeString(title) +
		`" width="` + w + `" height="` + h + `" style="display:block;width:100%;max-width:` + w + `px;height:auto;aspect-ratio:` + w + `/` + h +
		`;border:0" loading="lazy" allow="fullscreen; xr-spatial-tracking" allowfullscreen></iframe>`
}

func (s *Service) view(ctx context.Context, r record, vs []versionRow) Publication {
	links := LinksFor(s.baseURL, r.Slug)
	if r.GalleryID != "" {
		links = GalleryLinksFor(s.baseURL, r.Slug)
	}
	p := Publication{
		ID: r.ID, PublicationID: r.ID, BlueprintID: r.BlueprintID, ProductID: r.ProductID, GalleryID: r.GalleryID,
		RequireEmail: r.RequireEmail, AllowDeepLinks: r.AllowDeepLinks, Locked: r.LockedVersion != 0, Slug: r.Slug,
		ShareURL: links.Share, EmbedURL: links.Embed, QRURL: links.QR,
		Version: r.CurrentVersion, LockedVersion: r.LockedVersion, Status: "live",
		Versions: make([]VersionInfo, 0, len(vs)), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		UnpublishedAt: r.UnpublishedAt, EmbedOrigins: r.EmbedOrigins,
	}
	if p.EmbedOrigins == nil {
		p.EmbedOrigins = []string{}
	}
	if r.UnpublishedAt != nil {
		p.Status = "unpublished"
	}
	for _, v := range vs {
		p.Versions = append(p.Versions, VersionInfo{Version: v.Version, Name: v.Snapshot.Name, CreatedAt: v.CreatedAt})
		if v.Version == r.LockedVersion || (r.LockedVersion == 0 && v.Version == r.CurrentVersion) {
			p.Name = v.Snapshot.Name
		}
	}
	p.EmbedCode = EmbedCode(links.Embed, p.Name)
	return p
}
