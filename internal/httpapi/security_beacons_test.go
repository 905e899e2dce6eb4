package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/httpapi"
	"github.com/photo3d/photo3d/internal/publish"
	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

// Security review 2, item 4: any site could sendBeacon view events for any
// slug to /t (10 of 10 counted with a foreign Origin). A beacon now counts
// only from our origin or an embed origin the merchant allowed, and only
// with the view token of a page we served.
func TestSecurityForeignOriginBeaconsAreNotCounted(t *testing.T) {
	t.Parallel()
	b := pubSetup(t, 0)
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Floor lamp"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1000)

	// A page on evil.example makes its visitors' browsers send view beacons
	// (with a token its server fetched from our page): Origin is evil's.
	for i := range 10 {
		rec := b.beacon(t, p.Slug, fmt.Sprintf("198.51.100.%d", i+1), browserUA, fmt.Sprintf("viewer-foreign-%06d", i),
			"Origin", "https://evil.example")
		require.Equal(t, http.StatusForbidden, rec.Code)
	}
	// Without an Origin the Referer decides; neither at all is refused.
	require.Equal(t, http.StatusForbidden, b.beacon(t, p.Slug, "198.51.100.20", browserUA, "viewer-foreign-referer1",
		"Origin", "", "Referer", "https://evil.example/page").Code)
	require.Equal(t, http.StatusForbidden, b.beacon(t, p.Slug, "198.51.100.21", browserUA, "viewer-foreign-nothing1", "Origin", "").Code)
	require.Equal(t, http.StatusForbidden, b.beacon(t, p.Slug, "198.51.100.22", browserUA, "viewer-foreign-nullorig", "Origin", "null").Code)
	require.EqualValues(t, 0, b.used(t, owner), "no foreign beacon costs the merchant a view")

	// Our own page (the embed inside a shop's iframe is our origin too).
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.30", browserUA, "viewer-own-origin-0001").Code)
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.31", browserUA, "viewer-own-referer-001",
		"Origin", "", "Referer", "http://example.com/embed/"+p.Slug).Code)
	require.EqualValues(t, 2, b.used(t, owner))

	// A site the merchant allows to embed the page may send them too.
	rec, _ := b.call(t, owner, "PUT", "/api/publications/"+p.ID+"/embed-origins", `{"origins":["https://*.shop.example"]}`)
	require.Equal(t, http.StatusOK, rec.Code)
	b.Pages.Invalidate(p.Slug)
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.40", browserUA, "viewer-embedder-000001",
		"Origin", "https://www.shop.example").Code)
	require.Equal(t, http.StatusForbidden, b.beacon(t, p.Slug, "198.51.100.41", browserUA, "viewer-embedder-000002",
		"Origin", "https://shop.example.evil.example").Code)
	require.EqualValues(t, 3, b.used(t, owner))
}

// Security review 2, items 4 and 5: /t requires the view token of the
// slug's page on every batch; a missing, forged, other page's or expired
// token is refused (403) and counts nothing.
func TestSecurityBeaconsNeedAValidPageToken(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	b := pubSetup(t, 0, publishtest.WithClock(clock))
	owner := b.Owner(t, "trial")
	p := b.Publish(t, owner, b.Blueprint(t, owner, "Side table"))
	other := b.Publish(t, owner, b.Blueprint(t, owner, "Bookcase"))
	b.Downgrade(t, owner)
	b.SetViewBalance(t, owner, 1000)

	good := b.pageToken(p.Slug)
	require.NotEmpty(t, good, "the share page carries its view token")
	exp, sig, _ := strings.Cut(good, ".")
	flipped := []byte(sig)
	flipped[3] ^= 1
	view := func(ip, viewer, token string) int {
		body := fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q,"token":%q,"events":[{"t":"view","at":%d}]}`,
			p.Slug, viewer, token, time.Now().UnixMilli())
		if token == "-" {
			body = fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q,"events":[{"t":"view","at":%d}]}`, p.Slug, viewer, time.Now().UnixMilli())
		}
		return b.postBeacon(body, ip, browserUA).Code
	}
	require.Equal(t, http.StatusForbidden, view("203.0.113.1", "viewer-token-missing-1", ""))
	require.Equal(t, http.StatusForbidden, view("203.0.113.2", "viewer-token-forged-01", exp+"."+string(flipped)))
	require.Equal(t, http.StatusForbidden, view("203.0.113.3", "viewer-token-longer-01", fmt.Sprint(time.Now().Add(48*time.Hour).Unix())+"."+sig))
	require.Equal(t, http.StatusForbidden, view("203.0.113.4", "viewer-token-other-001", b.pageToken(other.Slug)))
	require.Equal(t, http.StatusForbidden, view("203.0.113.5", "viewer-token-junk-0001", "AAAA"))
	require.EqualValues(t, 0, b.used(t, owner))

	require.Equal(t, http.StatusNoContent, view("203.0.113.6", "viewer-token-good-0001", good))
	require.EqualValues(t, 1, b.used(t, owner))

	// The token outlives its page by publish.ViewTokenTTL, no more.
	offset.Store(int64(publish.ViewTokenTTL + time.Second))
	require.Equal(t, http.StatusForbidden, view("203.0.113.7", "viewer-token-expired-1", good))
	require.EqualValues(t, 1, b.used(t, owner))
}

// Security review 2, item 5: 300 requests from one address, a new viewer id
// each, wrote 30,000 AR/hotspot rows on another merchant's product, and the
// buffer they fill makes /t answer 503 for everyone. One address now writes
// at most analytics.AddressEventsPerMinute rows a minute, so honest shoppers
// elsewhere are still served; and one viewer id records at most
// analytics.ViewerPublicationExtras non-view events per publication.
func TestSecurityOneAddressCannotFloodBeacons(t *testing.T) {
	t.Parallel()
	env := publishtest.New(t)
	w := analytics.NewWriter(env.DB.Pool, nil, analytics.WriterConfig{MaxBuffer: 5000})
	var offset atomic.Int64
	c := &analytics.Collector{Writer: w, Pubs: httpapi.PublicationsOf(env.Pages), OwnHost: "photo3d.test",
		Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }}
	b := pubBundle{Env: env, h: httpapi.NewRouter(httpapi.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		DB: env.DB.Pool, Publications: env.Service, PublicPages: env.Pages, Shoppers: c})}
	victim := env.Owner(t, "pro")
	p := env.Publish(t, victim, env.Blueprint(t, victim, "Dining chair"))

	junk := func(viewer string) string {
		evs := make([]string, 0, analytics.MaxBatchEvents)
		at := time.Now().UnixMilli()
		for i := range analytics.MaxBatchEvents {
			if i%2 == 0 {
				evs = append(evs, fmt.Sprintf(`{"t":"ar","at":%d,"mode":"webxr"}`, at))
			} else {
				evs = append(evs, fmt.Sprintf(`{"t":"hotspot","at":%d,"hotspot":"h%d"}`, at, i))
			}
		}
		return batch(p.Slug, viewer, "", evs...)
	}
	codes := map[int]int{}
	for i := range 300 {
		codes[b.postBeacon(junk(fmt.Sprintf("viewer-flood-%08d", i)), "203.0.113.99", browserUA).Code]++
	}
	require.Zero(t, codes[http.StatusServiceUnavailable])
	require.LessOrEqual(t, w.Pending(), analytics.AddressEventsPerMinute, "one address writes a bounded number of rows: %v", codes)
	// The buffer is not the attacker's: another shopper is stored.
	require.Equal(t, http.StatusNoContent, b.beacon(t, p.Slug, "198.51.100.7", browserUA, "viewer-honest-after-flood").Code)

	// One viewer id, across minutes: past its share of this publication
	// its non-view events are dropped.
	require.NoError(t, w.Flush(env.Ctx))
	for minute := range 10 {
		offset.Store(int64(time.Duration(minute) * time.Minute))
		require.Equal(t, http.StatusNoContent, b.postBeacon(junk("viewer-one-persistent-01"), "198.51.100.8", browserUA).Code)
	}
	require.NoError(t, w.Flush(env.Ctx))
	var n int
	require.NoError(t, env.DB.Pool.QueryRow(env.Ctx, `SELECT count(*) FROM shopper_events WHERE viewer = 'viewer-one-persistent-01'`).Scan(&n))
	require.Equal(t, analytics.ViewerPublicationExtras, n)
}
