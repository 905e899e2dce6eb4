package publish

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"time"

	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/windowcount"
)

// Counted views (security review item 10, second half). A page GET no longer
// costs the owner a view: the viewer script's `view` beacon does, through
// CountView. The repeat-viewer dedupe keys on the client address and the
// first-party viewer id the page keeps in local storage, and each address
// has a ceiling of counted views per owner per window, so neither rotating
// the User-Agent nor rotating the viewer id from one address can drain a
// merchant's balance: past the ceiling an address's views are recorded for
// analytics as not counted and cost nothing.

// Defaults of the view counter.
const (
	ViewWindow             = 30 * time.Minute // a viewer's repeat views within it count once
	DefaultViewsPerAddress = 20               // counted views per address per owner per ViewWindow
	addressCeilingMaxKeys  = 100_000          // (owner, address) pairs remembered; least recently used forgotten
)

// PublicationRef is what the beacon endpoint needs to know about a slug.
type PublicationRef struct {
	PublicationID string
	OwnerID       string
	SubjectID     string   // the blueprint (or product) the publication shows
	EmbedOrigins  []string // sites allowed to embed it (may send its beacons); empty: none besides ours
}

// Lookup resolves a live publication's slug from the page cache: ok is false
// for an unknown, unpublished or deleted link.
func (p *Pages) Lookup(ctx context.Context, slug string) (ref PublicationRef, ok bool, err error) {
	e, err := p.entry(ctx, slug)
	if err != nil || e.missing {
		return PublicationRef{}, false, err
	}
	return PublicationRef{PublicationID: e.pubID, OwnerID: e.ownerID, SubjectID: e.subjectID, EmbedOrigins: e.embedOrigins}, true, nil
}

// CountView decides whether a shopper's view beacon is a counted view and,
// if so, takes it from the owner's balance. It answers false for a repeat
// (same address and viewer id within ViewWindow), for an address past its
// ceiling, and when the balance is exhausted. addr is the client address
// (after the trusted-proxy rewrite); it is only ever hashed with a
// per-process key, never kept.
func (p *Pages) CountView(ctx context.Context, ref PublicationRef, slug, addr, viewerID string) bool {
	now := p.now()
	key := p.seen.key(slug, addr, viewerID)
	if p.seen.recent(key, now) {
		return false
	}
	if !p.addrs.allow(ref.OwnerID, addr, now) {
		return false
	}
	if !p.cfg.Meter.Take(ctx, ref.OwnerID, ref.PublicationID) {
		p.addrs.refund(ref.OwnerID, addr)
		return false
	}
	p.seen.mark(key, now)
	return true
}

// addressCeiling counts counted views per (owner, address) in fixed
// windows. Addresses are keyed as the rate limiters key them
// (httprate.CanonicalizeIP: an IPv4 address, or the /64 of an IPv6 one,
// which is what one subscriber is handed), so one home network cannot mint
// a fresh ceiling per address; and the table holds at most
// addressCeilingMaxKeys pairs (least recently used forgotten first), so
// addresses arriving faster than the window ends cannot grow it.
type addressCeiling struct {
	salt   []byte
	counts *windowcount.Counter[[16]byte]
}

func newAddressCeiling(limit int, window time.Duration) *addressCeiling {
	if limit <= 0 {
		limit = DefaultViewsPerAddress
	}
	a := &addressCeiling{salt: make([]byte, 32), counts: windowcount.New[[16]byte](limit, window, addressCeilingMaxKeys)}
	_, _ = rand.Read(a.salt)
	return a
}

func (a *addressCeiling) key(owner, addr string) [16]byte {
	m := hmac.New(sha256.New, a.salt)
	m.Write([]byte(owner))
	m.Write([]byte{0})
	m.Write([]byte(httprate.CanonicalizeIP(addr)))
	var k [16]byte
	copy(k[:], m.Sum(nil))
	return k
}

// allow reserves one counted view for (owner, addr) unless the address is at
// its ceiling in the current window.
func (a *addressCeiling) allow(owner, addr string, now time.Time) bool {
	return a.counts.Take(a.key(owner, addr), 1, now)
}

// refund gives back a reservation the balance did not honour.
func (a *addressCeiling) refund(owner, addr string) {
	a.counts.Give(a.key(owner, addr), 1)
}

// remembered is how many (owner, address) pairs the ceiling holds (tests).
func (a *addressCeiling) remembered() int { return a.counts.Len() }
