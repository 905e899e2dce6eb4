package analytics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/httprate"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/windowcount"
)

// Publication is a live publication as the collector needs it.
type Publication struct {
	ID           string
	OwnerID      string
	ProductID    string
	EmbedOrigins []string // sites the merchant allows to embed it (their Origin may send beacons too)
}

// Publications resolves slugs and decides counted views (the public pages
// in internal/publish, adapted by the HTTP layer).
type Publications interface {
	Lookup(ctx context.Context, slug string) (Publication, bool, error)
	// CountView takes a counted view from the owner's balance unless the
	// (address, viewer) pair is a repeat or the address is at its ceiling.
	CountView(ctx context.Context, pub Publication, slug, addr, viewer string) bool
	// CheckViewToken accepts only a view token rendered into the slug's
	// page that has not expired (internal/publish/pagetoken.go).
	CheckViewToken(slug, pubID, token string) error
	// Arm is the experiment arm the slug's page shows this viewer ("": the
	// page runs no experiment, or the viewer is outside it). The server
	// decides it from the viewer id, as the page did: a beacon cannot
	// choose its arm (issue 52).
	Arm(ctx context.Context, slug, viewer string) string
}

// Budgets of the beacon endpoint (security review 2, item 5). One page
// sends a view, a heartbeat every 15 s and a handful of interactions, so a
// viewer id past these is a script, and an address past its budget is many
// scripts (minting viewer ids beats every per-viewer limit, never the
// address's). The tables behind them are bounded (internal/windowcount).
const (
	ViewerEventsPerMinute = 240 // events per viewer id per minute (429 over it)
	// AddressEventsPerMinute is events per client address (an IPv4 address
	// or an IPv6 /64) per minute, across viewer ids and publications: room
	// for a hundred shoppers behind one NAT, and at most this many rows per
	// minute from one address in the buffer, so one address cannot fill it
	// (the 500,000-row buffer would take it seven hours of a database
	// outage) and make /t answer 503 for everyone.
	AddressEventsPerMinute = 1200
	// ViewerPublicationExtras is non-view events (interactions, heartbeats,
	// hotspots, variants, AR, fullscreen) one viewer id may record on one
	// publication per window; past it they are dropped (the view still
	// counts). 30 minutes of heartbeats are 120 of them.
	ViewerPublicationExtras = 300
	ViewerPublicationWindow = 30 * time.Minute

	limiterKeys = 200_000 // keys each budget table remembers (least recently used forgotten)
)

// Collection outcomes the HTTP layer maps to statuses.
var (
	ErrUnknownPublication = errors.New("unknown publication")
	ErrViewerRateLimited  = errors.New("viewer over its beacon rate")
	ErrAddressRateLimited = errors.New("address over its beacon budget")
	// ErrForbidden: no valid view token, or sent from a site that is
	// neither ours nor one the merchant allows to embed the page.
	ErrForbidden = errors.New("beacon not from a page we served")
)

// Collector turns validated beacon batches (and server-side clicks) into
// shopper_events rows.
type Collector struct {
	Writer        *Writer // nil: views are still counted, nothing is stored
	Pubs          Publications
	CountryHeader string // a trusted proxy/CDN's country header (e.g. CF-IPCountry); empty: browser time zone
	OwnHost       string // our host: a referrer from it is not a source
	// OwnOrigins are the origins of our pages (PUBLIC_BASE_URL's) beside
	// the request's own host: a beacon's Origin (or, without one, its
	// Referer) must be one of them or an allowed embed origin.
	OwnOrigins []string
	Now        func() time.Time

	limitsOnce sync.Once
	viewers    *windowcount.Counter[string]    // events per viewer id per minute
	addrs      *windowcount.Counter[string]    // events per address per minute
	extras     *windowcount.Counter[[2]string] // non-view events per (viewer, publication) per window
}

func (c *Collector) limits() {
	c.limitsOnce.Do(func() {
		c.viewers = windowcount.New[string](ViewerEventsPerMinute, time.Minute, limiterKeys)
		c.addrs = windowcount.New[string](AddressEventsPerMinute, time.Minute, limiterKeys)
		c.extras = windowcount.New[[2]string](ViewerPublicationExtras, ViewerPublicationWindow, limiterKeys)
	})
}

// fromOurPage reports whether the request comes from one of our pages or an
// embed origin the merchant allowed: its Origin header (every browser sends
// one with a POST, sendBeacon included), else its Referer's origin. A
// browser on another site cannot forge either; a script outside a browser
// can, which is why the view token and the per-address budgets exist too.
func (c *Collector) fromOurPage(r *http.Request, pub Publication) bool {
	origin, u, ok := publish.RequestOrigin(r)
	if !ok {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, o := range c.OwnOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return publish.EmbedOriginAllows(pub.EmbedOrigins, origin)
}

// Where regions come from (the payload's regionSource, named in the UI):
// a country header set by a trusted proxy/CDN, or the browser's time zone.
const (
	RegionFromProxyHeader = "proxy-header"
	RegionFromTimeZone    = "time-zone"
)

// RegionSource says where regions come from, for the UI's note.
func (c *Collector) RegionSource() string {
	if c != nil && c.CountryHeader != "" {
		return RegionFromProxyHeader
	}
	return RegionFromTimeZone
}

func (c *Collector) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// IsBot reports user agents of crawlers and link unfurlers (the public
// pages' list): their beacons and clicks are dropped.
func IsBot(ua string) bool { return publish.IsCrawler(ua) }

// optedOut reports Do-Not-Track or Global Privacy Control: only the view is kept.
func optedOut(r *http.Request) bool {
	return r.Header.Get("DNT") == "1" || r.Header.Get("Sec-GPC") == "1"
}

// ClientAddr is the request's client address (RemoteAddr after the trusted
// proxy rewrite). It is used for the view dedupe and never stored.
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Collect records one validated batch from r. Bots are dropped silently.
func (c *Collector) Collect(r *http.Request, b Batch) error {
	if IsBot(r.UserAgent()) {
		return nil
	}
	pub, ok, err := c.Pubs.Lookup(r.Context(), b.Slug)
	if err != nil {
		return err
	}
	if !ok {
		return ErrUnknownPublication
	}
	if !c.fromOurPage(r, pub) || c.Pubs.CheckViewToken(b.Slug, pub.ID, b.Token) != nil {
		return ErrForbidden
	}
	c.limits()
	now := c.now()
	addr := httprate.CanonicalizeIP(ClientAddr(r))
	if !c.addrs.Take(addr, len(b.Events), now) {
		return ErrAddressRateLimited
	}
	if !c.viewers.Take(b.Viewer, len(b.Events), now) {
		c.addrs.Give(addr, len(b.Events))
		return ErrViewerRateLimited
	}
	if c.Writer != nil && !c.Writer.Room(len(b.Events)) {
		return ErrBufferFull // before any view is counted: refused whole, nothing billed
	}
	dnt := optedOut(r)
	base := Row{
		UserID: pub.OwnerID, PublicationID: pub.ID, ProductID: pub.ProductID, Viewer: b.Viewer,
		Device: Device(r.UserAgent()), Source: Source(b.UTM, b.Ref, c.OwnHost),
		Region: Region(headerIf(r, c.CountryHeader), b.TZ),
	}
	if !dnt { // a Do-Not-Track viewer saw the control and is not counted in it
		base.Arm = c.Pubs.Arm(r.Context(), b.Slug, b.Viewer)
	}
	rows := make([]Row, 0, len(b.Events))
	counted := false
	// This viewer's remaining share of non-view events on this publication,
	// taken once for the batch; what does not fit is dropped.
	extras := 0
	for _, e := range b.Events {
		if e.T != KindView && !dnt {
			extras++
		}
	}
	if extras > 0 {
		extras = c.extras.TakeUpTo([2]string{b.Viewer, pub.ID}, extras, now)
	}
	// Nothing happened after we received it: a browser whose clock runs
	// ahead (Validate allows MaxClockAhead) would otherwise date its AR or
	// hotspot after the buy click the server timed itself, and the feature
	// would not count as "preceding the click".
	received := c.now().UTC()
	for _, e := range b.Events {
		if dnt && e.T != KindView {
			continue
		}
		if e.T != KindView {
			if extras == 0 {
				continue // past this viewer's share of this publication: dropped
			}
			extras--
		}
		row := base
		row.At = time.UnixMilli(e.At).UTC()
		if row.At.After(received) {
			row.At = received
		}
		row.Kind, row.Ms, row.Hotspot, row.Variant, row.Mode = e.T, int32(e.Ms), e.Hotspot, e.Variant, e.Mode
		if e.T == KindView {
			row.Counted = c.Pubs.CountView(r.Context(), pub, b.Slug, ClientAddr(r), b.Viewer)
			counted = counted || row.Counted
		}
		rows = append(rows, row)
	}
	if c.Writer == nil || len(rows) == 0 {
		return nil
	}
	if counted {
		// Every counted view is recorded (metering exact under load).
		c.Writer.addCounted(rows...)
		return nil
	}
	return c.Writer.Add(rows...)
}

func headerIf(r *http.Request, name string) string {
	if name == "" {
		return ""
	}
	return r.Header.Get(name)
}

// Click records a buy-link click at the redirect /v/{slug}/go/{linkId}:
// viewer is the ?vid= the page appended (a click without one is still
// counted under an anonymous id), linkURL the stored destination (its store
// platform is the dimension), variant the variant the link belongs to ("" for
// product links). Bots and unknown slugs are ignored; a full buffer drops the
// row (the redirect must never fail because of analytics).
func (c *Collector) Click(r *http.Request, slug, viewer, linkURL, variant string) {
	c.server(r, slug, viewer, KindClick, linkURL, variant)
}

// BuyClickHook adapts Click for the buy-link redirect handler, which lives
// in internal/publish (which cannot import this package): the viewer id is
// the request's ?vid=. Wire it as the redirect's click callback.
func (c *Collector) BuyClickHook() func(r *http.Request, slug, linkURL, variant string) {
	return func(r *http.Request, slug, linkURL, variant string) {
		c.Click(r, slug, r.URL.Query().Get("vid"), linkURL, variant)
	}
}

// Lead records an email captured by the page's gate (no address stored).
func (c *Collector) Lead(r *http.Request, slug, viewer string) {
	c.server(r, slug, viewer, KindLead, "", "")
}

func (c *Collector) server(r *http.Request, slug, viewer, kind, linkURL, variant string) {
	if c == nil || c.Writer == nil || IsBot(r.UserAgent()) {
		return
	}
	pub, ok, err := c.Pubs.Lookup(r.Context(), slug)
	if err != nil || !ok {
		return
	}
	if !validViewer.MatchString(viewer) {
		viewer = "anonymous"
	}
	if variant != "" && !validID.MatchString(variant) {
		variant = ""
	}
	platform := ""
	if p := catalog.DetectPlatform(linkURL); p != nil {
		platform = p.Label
	}
	arm := ""
	if viewer != "anonymous" && !optedOut(r) {
		arm = c.Pubs.Arm(r.Context(), slug, viewer)
	}
	_ = c.Writer.Add(Row{
		At: c.now().UTC(), UserID: pub.OwnerID, PublicationID: pub.ID, ProductID: pub.ProductID, Viewer: viewer,
		Kind: kind, Platform: platform, Variant: variant, Device: Device(r.UserAgent()),
		Source: Source(r.URL.Query().Get("utm_source"), "", c.OwnHost), Region: Region(headerIf(r, c.CountryHeader), ""),
		Arm: arm,
	})
}

// ParseContentType accepts the beacon's body types: JSON, or text/plain
// (what navigator.sendBeacon sends for a string, which needs no preflight).
func ParseContentType(ct string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	return mt == "application/json" || mt == "text/plain" || mt == ""
}
