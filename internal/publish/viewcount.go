package publish

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"net/netip"
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
// analytics as not counted and cost nothing. Each network (IPv6 /48, IPv4
// /24) has an aggregate ceiling too, so rotating addresses within one
// allocation does not help either (DefaultViewsPerNetwork).

// Defaults of the view counter.
const (
	ViewWindow             = 30 * time.Minute // a viewer's repeat views within it count once
	DefaultViewsPerAddress = 20               // counted views per address per owner per ViewWindow
	addressCeilingMaxKeys  = 100_000          // (owner, address) pairs remembered; least recently used forgotten
)

// DefaultViewsPerNetwork is the ceiling of counted views per owner per
// ViewWindow from one network: an IPv6 /48 or an IPv4 /24, beside each
// address's own DefaultViewsPerAddress (security review 3, L8). The /64
// ceiling alone let one routed /48, which a cloud VM or a free tunnel
// hands out, count 65,536 × 20 views (about 1.3 M) per 30 minutes, and an
// IPv4 /24 5,120.
//
// Why 200: it is ten addresses (or /64s) at their own ceiling, more than an
// office or campus network (a /48 is one site, a /24 one organisation or one
// neighbourhood of a provider) shows one merchant's pages in half an hour,
// and room for carrier-grade NAT, where many real shoppers share a few
// IPv4 /24s (the end-to-end analytics run plays 150 shoppers from one /24).
// It caps what one network can spend of one merchant's views at 9,600 a
// day, under one 10,000-view pack, where one /48 could spend 130 packs per
// half hour before. Erring low
// costs shoppers nothing: past the ceiling the page is still served, and
// its view is recorded for analytics as not counted, free to the merchant.
const DefaultViewsPerNetwork = 200

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

// addressCeiling counts counted views per (owner, address) and per (owner,
// network) in fixed windows. Addresses are keyed as the rate limiters key
// them (httprate.CanonicalizeIP: an IPv4 address, or the /64 of an IPv6
// one, which is what one subscriber is handed), so one home network cannot
// mint a fresh ceiling per address; networks are the /48 or /24 around
// them (networkOf), so one site cannot mint a fresh ceiling per /64 or
// per address either. Each table holds at most addressCeilingMaxKeys pairs
// (least recently used forgotten first), so addresses arriving faster than
// the window ends cannot grow it.
type addressCeiling struct {
	salt     []byte
	counts   *windowcount.Counter[[16]byte] // per (owner, address or /64)
	networks *windowcount.Counter[[16]byte] // per (owner, /48 or /24)
}

// newAddressCeiling allows limit counted views per address and
// networkLimit per network (0: the defaults; never below limit).
func newAddressCeiling(limit, networkLimit int, window time.Duration) *addressCeiling {
	if limit <= 0 {
		limit = DefaultViewsPerAddress
	}
	if networkLimit <= 0 {
		networkLimit = DefaultViewsPerNetwork
	}
	networkLimit = max(networkLimit, limit)
	a := &addressCeiling{salt: make([]byte, 32),
		counts:   windowcount.New[[16]byte](limit, window, addressCeilingMaxKeys),
		networks: windowcount.New[[16]byte](networkLimit, window, addressCeilingMaxKeys)}
	_, _ = rand.Read(a.salt)
	return a
}

// key hashes (owner, where) with the per-process salt: no address is kept.
func (a *addressCeiling) key(owner, where string) [16]byte {
	m := hmac.New(sha256.New, a.salt)
	m.Write([]byte(owner))
	m.Write([]byte{0})
	m.Write([]byte(where))
	var k [16]byte
	copy(k[:], m.Sum(nil))
	return k
}

// keys are (owner, addr)'s address and network keys.
func (a *addressCeiling) keys(owner, addr string) (address, network [16]byte) {
	return a.key(owner, httprate.CanonicalizeIP(addr)), a.key(owner, networkOf(addr))
}

// allow reserves one counted view for (owner, addr) unless the address or
// its network is at its ceiling in the current window.
func (a *addressCeiling) allow(owner, addr string, now time.Time) bool {
	ak, nk := a.keys(owner, addr)
	if !a.counts.Take(ak, 1, now) {
		return false
	}
	if !a.networks.Take(nk, 1, now) {
		a.counts.Give(ak, 1)
		return false
	}
	return true
}

// refund gives back a reservation the balance did not honour.
func (a *addressCeiling) refund(owner, addr string) {
	ak, nk := a.keys(owner, addr)
	a.counts.Give(ak, 1)
	a.networks.Give(nk, 1)
}

// networkOf is the network addr belongs to for the aggregate ceiling: the
// /48 of an IPv6 address (one site's allocation) or the /24 of an IPv4 one
// (IPv4-mapped IPv6 included). Something that is not an address is its own
// network.
func networkOf(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap().WithZone("")
	bits := 48
	if ip.Is4() {
		bits = 24
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		return addr
	}
	return p.String()
}

// remembered is how many (owner, address) pairs the ceiling holds (tests).
func (a *addressCeiling) remembered() int { return a.counts.Len() }
