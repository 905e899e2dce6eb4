package analytics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/publish"
)

// Publication is a live publication as the collector needs it.
type Publication struct {
	ID        string
	OwnerID   string
	ProductID string
}

// Publications resolves slugs and decides counted views (the public pages
// in internal/publish, adapted by the HTTP layer).
type Publications interface {
	Lookup(ctx context.Context, slug string) (Publication, bool, error)
	// CountView takes a counted view from the owner's balance unless the
	// (address, viewer) pair is a repeat or the address is at its ceiling.
	CountView(ctx context.Context, pub Publication, slug, addr, viewer string) bool
}

// Per-viewer rate limit of beacon events: far above what one page sends
// (a heartbeat every 15 s plus a handful of interactions).
const (
	ViewerEventsPerMinute = 240
)

// Collection outcomes the HTTP layer maps to statuses.
var (
	ErrUnknownPublication = errors.New("unknown publication")
	ErrViewerRateLimited  = errors.New("viewer over its beacon rate")
)

// Collector turns validated beacon batches (and server-side clicks) into
// shopper_events rows.
type Collector struct {
	Writer        *Writer // nil: views are still counted, nothing is stored
	Pubs          Publications
	CountryHeader string // a trusted proxy/CDN's country header (e.g. CF-IPCountry); empty: browser time zone
	OwnHost       string // our host: a referrer from it is not a source
	Now           func() time.Time

	limiter viewerLimiter
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
	if !c.limiter.allow(b.Viewer, len(b.Events), c.now()) {
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
	rows := make([]Row, 0, len(b.Events))
	counted := false
	// Nothing happened after we received it: a browser whose clock runs
	// ahead (Validate allows MaxClockAhead) would otherwise date its AR or
	// hotspot after the buy click the server timed itself, and the feature
	// would not count as "preceding the click".
	received := c.now().UTC()
	for _, e := range b.Events {
		if dnt && e.T != KindView {
			continue
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
	_ = c.Writer.Add(Row{
		At: c.now().UTC(), UserID: pub.OwnerID, PublicationID: pub.ID, ProductID: pub.ProductID, Viewer: viewer,
		Kind: kind, Platform: platform, Variant: variant, Device: Device(r.UserAgent()),
		Source: Source(r.URL.Query().Get("utm_source"), "", c.OwnHost), Region: Region(headerIf(r, c.CountryHeader), ""),
	})
}

// viewerLimiter is a fixed-window count of events per viewer id.
type viewerLimiter struct {
	mu     sync.Mutex
	window int64
	counts map[string]int
}

func (l *viewerLimiter) allow(viewer string, n int, now time.Time) bool {
	w := now.Unix() / 60
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil || l.window != w {
		l.counts, l.window = map[string]int{}, w
	}
	if l.counts[viewer]+n > ViewerEventsPerMinute {
		return false
	}
	l.counts[viewer] += n
	return true
}

// ParseContentType accepts the beacon's body types: JSON, or text/plain
// (what navigator.sendBeacon sends for a string, which needs no preflight).
func ParseContentType(ct string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	return mt == "application/json" || mt == "text/plain" || mt == ""
}
