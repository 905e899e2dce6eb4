package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type lockReply struct {
	publishReply
	LockedVersion int  `json:"lockedVersion"`
	PendingEdits  bool `json:"pendingEdits"`
}

// Issue 50 item 1: "Lock this version" froze the first-published snapshot, so
// the price and buy buttons added since vanished from the live page. Locking
// live freezes exactly what shoppers see; edits made while locked stay off
// the page (and the answer says there are some) until the merchant locks
// again or unlocks.
func TestLockLiveKeepsWhatShoppersSee(t *testing.T) {
	t.Parallel()
	s := newProductPubStack(t)
	user, id := s.readyProduct(t, "Lounge Side Chair")
	startTrialFor(t, s.creationStack, user)
	pub := decodeAs[publishReply](t, s.ok(t, user, "POST", "/api/products/"+id+"/publish", map[string]any{}))
	require.Equal(t, 1, pub.Version)

	// After publishing: a price and two buy links, live at once.
	s.ok(t, user, "PATCH", "/api/products/"+id+"/variants/v1", map[string]any{"price": 189, "currency": "EUR"})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.etsy.com/listing/42/chair"})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://www.amazon.com/dp/B0CHAIR"})
	page := func() string {
		t.Helper()
		rec := s.shopper(t, "GET", "/v/"+pub.Slug, "")
		require.Equal(t, http.StatusOK, rec.Code)
		return rec.Body.String()
	}
	shows := func(body, price string, links ...string) {
		t.Helper()
		require.Contains(t, body, `id="price">`+price+`</p>`)
		require.Equal(t, len(links), strings.Count(body, `class="p3d-buy" href=`), "buy buttons")
		for _, l := range links {
			require.Contains(t, body, `class="p3d-buy" href="/v/`+pub.Slug+`/go/`+l+`"`)
		}
	}
	shows(page(), "€189", "l1", "l2")

	lock := func(body map[string]any) lockReply {
		t.Helper()
		return decodeAs[lockReply](t, s.ok(t, user, "POST", "/api/publications/"+pub.PublicationID+"/lock", body))
	}
	locked := lock(map[string]any{"live": true})
	require.True(t, locked.Locked)
	require.Equal(t, 2, locked.Version, "what shoppers saw became a version")
	require.Equal(t, 2, locked.LockedVersion)
	require.False(t, locked.PendingEdits)
	shows(page(), "€189", "l1", "l2")
	go1 := s.shopper(t, "GET", "/v/"+pub.Slug+"/go/l2", "")
	require.Equal(t, http.StatusFound, go1.Code)
	require.Equal(t, "https://www.amazon.com/dp/B0CHAIR", go1.Header().Get("Location"))

	// Locking again with nothing changed makes no new version.
	require.Equal(t, 2, lock(map[string]any{"live": true}).Version)

	// Edits while locked do not reach the page; the merchant is told they wait.
	s.ok(t, user, "PATCH", "/api/products/"+id+"/variants/v1", map[string]any{"price": 149})
	s.ok(t, user, "POST", "/api/products/"+id+"/links", map[string]any{"url": "https://shop.example.com/chair"})
	shows(page(), "€189", "l1", "l2")
	require.Equal(t, http.StatusNotFound, s.shopper(t, "GET", "/v/"+pub.Slug+"/go/l3", "").Code)
	detail := decodeAs[struct {
		Publication lockReply `json:"publication"`
	}](t, s.ok(t, user, "GET", "/api/products/"+id, nil))
	require.True(t, detail.Publication.PendingEdits)
	require.Equal(t, 2, detail.Publication.LockedVersion)

	// Unlocking shows them.
	unlocked := lock(map[string]any{"version": 0})
	require.False(t, unlocked.Locked)
	require.False(t, unlocked.PendingEdits)
	shows(page(), "€149", "l1", "l2", "l3")

	// Locking live while locked puts the edits made meanwhile on the page.
	lock(map[string]any{"live": true})
	s.ok(t, user, "DELETE", "/api/products/"+id+"/links/l1", nil)
	require.True(t, decodeAs[lockReply](t, s.ok(t, user, "GET", "/api/publications/"+pub.PublicationID, nil)).PendingEdits)
	shows(page(), "€149", "l1", "l2", "l3")
	again := lock(map[string]any{"live": true})
	require.Equal(t, 4, again.LockedVersion)
	require.False(t, again.PendingEdits)
	shows(page(), "€149", "l2", "l3")

	// A body that says neither, or both, is refused.
	for _, bad := range []map[string]any{{}, {"live": false}, {"live": true, "version": 1}} {
		rec, r := s.json(t, user, "POST", "/api/publications/"+pub.PublicationID+"/lock", bad)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%v", bad)
		require.Equal(t, "invalid_version", r.Error.Code)
	}
}
